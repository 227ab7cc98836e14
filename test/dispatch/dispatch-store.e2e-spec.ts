import {
  NewWebhookEvent,
  stripeEndpoint,
  WebhookDispatcher,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import type { Pool as PgPool, PoolClient } from 'pg';
import { In } from 'typeorm';
import {
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  WebhookWorkEntity,
} from '../support/internals';
import {
  Database,
  eventually,
  sameDatabaseAs,
  startTestApp,
  statementsSent,
  TestApp,
  TestEffect,
} from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';
import { settleAll } from '../support/inbox-state';

let sequence = 0;

/** A pending payment event received two minutes ago, so a claim "now" finds it due. */
function event(overrides: Partial<NewWebhookEvent> = {}): NewWebhookEvent {
  const eventId = `evt_store_${process.pid}_${sequence++}`;
  return newWebhookEvent(eventId, {
    type: 'payment.succeeded',
    nativeType: 'payment_intent.succeeded',
    paymentRef: `pi_${eventId}`,
    merchantRef: `order_${eventId}`,
    amount: 9_007_199_254,
    currency: 'EUR',
    paymentStatus: 'succeeded',
    occurredAt: new Date('2026-11-01T10:20:30.456Z'),
    receivedAt: new Date(Date.now() - 120_000),
    headers: { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0' },
    status: 'pending',
    ...overrides,
  });
}

describe.each<Database>(['sqlite', 'postgres'])('the dispatcher store on %s', (database) => {
  let app: TestApp;
  let store: WebhookStore;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_store' })],
        dispatch: { enabled: false, concurrency: 8 },
      },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
  });

  afterAll(() => app.close());

  const events = () => app.dataSource.getRepository(WebhookEventEntity);
  const runs = () => app.dataSource.getRepository(WebhookHandlerRunEntity);
  const work = () => app.dataSource.getRepository(WebhookWorkEntity);

  /** Leaves nothing due from an earlier test, so each claim sees only its own events. */
  async function settleEverything(): Promise<void> {
    await settleAll(app.dataSource);
  }

  beforeEach(settleEverything);

  it('returns claimed events whole, read exactly as TypeORM reads them', async () => {
    const stored = await Promise.all([
      store.record(event()),
      store.record(event({ occurredAt: null, amount: null, merchantRef: null })),
    ]);
    const claimed = await store.claim('worker-a', 10, 30_000, new Date());
    expect(claimed.map((row) => row.id).sort()).toEqual(stored.map((row) => row.id).sort());
    const read = await events().findBy(claimed.map((row) => ({ id: row.id })));
    const byId = new Map(read.map((row) => [row.id, row]));
    for (const row of claimed) {
      expect(row).toBeInstanceOf(WebhookEventEntity);
      // NOTE: the event's own row is as received; the claim's status and attempt are its work row's.
      expect({ ...row, status: 'pending', attempts: 0 }).toEqual(byId.get(row.id));
      expect(row.status).toBe('processing');
      expect(row.attempts).toBe(1);
      const work = await app.dataSource
        .getRepository(WebhookWorkEntity)
        .findOneBy({ eventId: row.id });
      expect(work).toMatchObject({ status: 'processing', attempts: 1, lockedBy: 'worker-a' });
    }
    const full = claimed.find((row) => row.amount !== null)!;
    expect(full.amount).toBe(9_007_199_254);
    expect(full.occurredAt).toEqual(new Date('2026-11-01T10:20:30.456Z'));
    expect(full.headers).toEqual({
      'content-type': 'application/json',
      'user-agent': 'Stripe/1.0',
    });
  });

  it('takes an expired lease only when asked to look for expired leases', async () => {
    const { id } = await store.record(event());
    const past = new Date(Date.now() - 60_000);
    expect(await store.claim('dead-worker', 1, 1_000, past)).toHaveLength(1);

    expect(await store.claim('worker-b', 5, 30_000, new Date(), { expired: false })).toEqual([]);
    const taken = await store.claim('worker-b', 5, 30_000, new Date());
    expect(taken.map((row) => [row.id, row.attempts])).toEqual([[id, 2]]);
    const work = await app.dataSource.getRepository(WebhookWorkEntity).findOneBy({ eventId: id });
    expect(work?.lockedBy).toBe('worker-b');
  });

  it('settles the event in the handler transaction: effect, ledger row and status together', async () => {
    const { id } = await store.record(event());
    const [claimed] = await store.claim('worker-c', 1, 30_000, new Date());
    const outcome = await store.runHandler(
      id,
      'Handlers.paid',
      1,
      async (manager) => {
        await manager.insert(TestEffect, { eventId: claimed.eventId, handler: 'paid' });
        return 'applied';
      },
      {
        workerId: 'worker-c',
        result: (reported) => ({ outcome: `${reported},earlier`, providerStatus: 'succeeded' }),
      },
    );
    expect(outcome).toBe('ran_and_settled');
    const row = await events().findOneByOrFail({ id });
    expect(row).toMatchObject({
      status: 'processed',
      outcome: 'applied,earlier',
      providerStatus: 'succeeded',
      attempts: 1,
      nextAttemptAt: null,
    });
    expect(row.processedAt).toBeInstanceOf(Date);
    expect(await work().countBy({ eventId: id })).toBe(0);
    expect(await runs().findBy({ eventId: id })).toEqual([
      expect.objectContaining({ handlerKey: 'Handlers.paid', outcome: 'applied' }),
    ]);
    expect(
      await app.dataSource.getRepository(TestEffect).countBy({ eventId: claimed.eventId }),
    ).toBe(1);
  });

  it('settles nothing when the handler fails: no effect, no ledger row, the event still held', async () => {
    const { id } = await store.record(event());
    const [claimed] = await store.claim('worker-d', 1, 30_000, new Date());
    await expect(
      store.runHandler(
        id,
        'Handlers.paid',
        1,
        async (manager) => {
          await manager.insert(TestEffect, { eventId: claimed.eventId, handler: 'paid' });
          throw new Error('card network down');
        },
        { workerId: 'worker-d', result: () => ({ outcome: null }) },
      ),
    ).rejects.toThrow('card network down');
    expect(await work().findOneByOrFail({ eventId: id })).toMatchObject({
      status: 'processing',
      lockedBy: 'worker-d',
    });
    expect((await events().findOneByOrFail({ id })).status).toBe('pending');
    expect(await runs().countBy({ eventId: id })).toBe(0);
    expect(
      await app.dataSource.getRepository(TestEffect).countBy({ eventId: claimed.eventId }),
    ).toBe(0);
  });

  it('keeps the effect but leaves the event alone when another worker took it over', async () => {
    const { id } = await store.record(event());
    await store.claim('slow-worker', 1, 1_000, new Date(Date.now() - 60_000));
    const [reclaimed] = await store.claim('new-worker', 1, 30_000, new Date());
    expect(reclaimed.id).toBe(id);
    const outcome = await store.runHandler(id, 'Handlers.paid', 1, async () => undefined, {
      workerId: 'slow-worker',
      result: () => ({ outcome: null }),
    });
    expect(outcome).toBe('ran');
    expect(await work().findOneByOrFail({ eventId: id })).toMatchObject({
      status: 'processing',
      lockedBy: 'new-worker',
      attempts: 2,
    });
    expect(await runs().countBy({ eventId: id })).toBe(1);
    const again = await store.runHandler(id, 'Handlers.paid', 2, async () => 'twice', {
      workerId: 'new-worker',
      result: () => ({ outcome: null }),
    });
    expect(again).toBe('already_done');
  });

  it('stores handler keys and outcomes exactly as given, quotes and backslashes included', async () => {
    const { id } = await store.record(event());
    await store.claim('worker-e', 1, 30_000, new Date());
    const key = "Handlers.it's\\odd";
    const reported = "'); DROP TABLE webhook_events; -- \\' $1 ✓";
    const outcome = await store.runHandler(id, key, 1, async () => reported, {
      workerId: 'worker-e',
      result: (value) => ({ outcome: `${value}|`, providerStatus: "o'k\\" }),
    });
    expect(outcome).toBe('ran_and_settled');
    expect(await runs().findBy({ eventId: id })).toEqual([
      expect.objectContaining({ handlerKey: key, outcome: reported }),
    ]);
    expect(await events().findOneByOrFail({ id })).toMatchObject({
      status: 'processed',
      outcome: `${reported}|`,
      providerStatus: "o'k\\",
    });
  });

  it("nests a handler's own transaction in the run: an inner failure undoes the inner writes only", async () => {
    const { id } = await store.record(event());
    const [claimed] = await store.claim('worker-f', 1, 30_000, new Date());
    const outcome = await store.runHandler(
      id,
      'Handlers.nested',
      1,
      async (manager) => {
        await manager.insert(TestEffect, { eventId: claimed.eventId, handler: 'outer' });
        await manager
          .transaction(async (inner) => {
            await inner.insert(TestEffect, { eventId: claimed.eventId, handler: 'inner' });
            throw new Error('inner step refused');
          })
          .catch(() => undefined);
        return undefined;
      },
      { workerId: 'worker-f', result: () => ({ outcome: null }) },
    );
    expect(outcome).toBe('ran_and_settled');
    const effects = await app.dataSource
      .getRepository(TestEffect)
      .findBy({ eventId: claimed.eventId });
    expect(effects.map((effect) => effect.handler)).toEqual(['outer']);
    expect(await runs().countBy({ eventId: id })).toBe(1);
    expect((await events().findOneByOrFail({ id })).status).toBe('processed');
  });

  it('runs a handler that writes nothing in the fewest round trips its database allows', async () => {
    const { id } = await store.record(event());
    await store.claim('worker-g', 1, 30_000, new Date());
    const sent = await statementsSent(app, async () => {
      const outcome = await store.runHandler(id, 'Handlers.quiet', 1, async () => 'noted', {
        workerId: 'worker-g',
        result: () => ({ outcome: 'noted' }),
      });
      expect(outcome).toBe('ran_and_settled');
    });
    // NOTE: every statement is its own round trip, parameters bound: BEGIN, the ledger row,
    // one statement for the outcome, the end of the work row and the event's new status
    // (PostgreSQL: data-modifying WITHs), COMMIT. SQLite runs in the process, one at a time.
    if (database === 'postgres') {
      // NOTE: the announcement of the stored event to other instances may go out meanwhile.
      expect(sent.filter((sql) => !sql.includes('pg_notify'))).toEqual([
        'START TRANSACTION',
        expect.stringMatching(/^INSERT INTO webhook_handler_runs /),
        expect.stringMatching(
          /^WITH before_settling AS \(UPDATE webhook_handler_runs .*held AS \(DELETE FROM webhook_work .*UPDATE webhook_events /,
        ),
        'COMMIT',
      ]);
    } else {
      expect(sent).toHaveLength(6);
    }
    expect(await runs().findBy({ eventId: id })).toEqual([
      expect.objectContaining({ handlerKey: 'Handlers.quiet', outcome: 'noted' }),
    ]);
    expect((await events().findOneByOrFail({ id })).status).toBe('processed');
  });

  it('refills its slots in batches: far fewer claims than events while draining a backlog', async () => {
    const backlog = 120;
    const stored = await Promise.all(Array.from({ length: backlog }, () => store.record(event())));
    const ids = stored.map((row) => row.id);
    const dispatcher = app.app.get(WebhookDispatcher);
    const claim = jest.spyOn(store, 'claim');
    try {
      dispatcher.start();
      await eventually(
        async () => (await events().countBy({ id: In(ids), status: 'processed' })) === backlog,
      );
      await dispatcher.stop();
      // NOTE: refilling one slot at a time would claim about once per event.
      expect(claim.mock.calls.length).toBeLessThanOrEqual(backlog / 3);
      expect(await runs().countBy({ eventId: In(ids) })).toBe(backlog);
    } finally {
      claim.mockRestore();
      await dispatcher.stop();
    }
  });
});

describe('the dispatcher store on postgres, when the statement that settles a handler run fails', () => {
  let app: TestApp;
  let store: WebhookStore;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_store_commit' })],
        dispatch: { enabled: false },
      },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
    // NOTE: no value a handler reports can fail a statement (each is fitted to its column), so
    // the database is made to refuse one outcome here.
    await app.dataSource.query(`
      CREATE FUNCTION refuse_outcome() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF NEW.outcome = 'refused' THEN RAISE EXCEPTION 'outcome refused by the test'; END IF;
        RETURN NEW;
      END $$`);
    await app.dataSource.query(
      'CREATE TRIGGER refuse_outcome BEFORE UPDATE ON webhook_handler_runs ' +
        'FOR EACH ROW EXECUTE FUNCTION refuse_outcome()',
    );
  });

  afterAll(() => app.close());

  it("undoes the handler's effect and the ledger row, and leaves the event held", async () => {
    const { id } = await store.record(event());
    const [claimed] = await store.claim('worker-h', 1, 30_000, new Date());
    // NOTE: the refused outcome fails the statement that writes the outcome and the event's
    // status, so the transaction is rolled back instead of committed.
    await expect(
      store.runHandler(
        id,
        'Handlers.long',
        1,
        async (manager) => {
          await manager.insert(TestEffect, { eventId: claimed.eventId, handler: 'long' });
          return 'refused';
        },
        { workerId: 'worker-h', result: () => ({ outcome: null }) },
      ),
    ).rejects.toThrow(/outcome refused by the test/);
    expect(
      await app.dataSource.getRepository(WebhookWorkEntity).findOneByOrFail({ eventId: id }),
    ).toMatchObject({ status: 'processing', lockedBy: 'worker-h' });
    expect(
      await app.dataSource.getRepository(WebhookHandlerRunEntity).countBy({ eventId: id }),
    ).toBe(0);
    expect(
      await app.dataSource.getRepository(TestEffect).countBy({ eventId: claimed.eventId }),
    ).toBe(0);
    // NOTE: the connection went back to the pool usable: the next run on it commits.
    const again = await store.runHandler(id, 'Handlers.long', 2, async () => 'short', {
      workerId: 'worker-h',
      result: () => ({ outcome: null }),
    });
    expect(again).toBe('ran_and_settled');
  });
});

describe('inbox notifications between instances on postgres', () => {
  let a: TestApp;
  let b: TestApp;

  beforeAll(async () => {
    const webhooks = {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_store_notify' })],
      dispatch: { enabled: false },
    };
    a = await startTestApp({ platform: 'express', database: 'postgres', webhooks });
    b = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks,
      ...sameDatabaseAs(a),
    });
  });

  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  it("wakes the other instance's listener for a stored event, never the storing instance's own", async () => {
    const stores = [a, b].map((app) => app.app.get<WebhookStore>(WebhookStore));
    const heard = [0, 0];
    const stops = await Promise.all(
      stores.map((store, i) =>
        store.watch(() => {
          heard[i] += 1;
        }),
      ),
    );
    try {
      // NOTE: a listener is called once when it starts listening, for what it may have missed.
      await eventually(() => heard[0] === 1 && heard[1] === 1);
      await stores[0].record(event());
      await eventually(() => heard[1] === 2);
      await stores[1].record(event());
      await eventually(() => heard[0] === 2);
      // NOTE: a notification arrives within milliseconds; this leaves each echo ample time.
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(heard).toEqual([2, 2]);
    } finally {
      await Promise.all(stops.map((stop) => stop()));
    }
  });

  it('listens again on a new connection once its listening connection is cut', async () => {
    const [storing, listening] = [a, b].map((app) => app.app.get<WebhookStore>(WebhookStore));
    let heard = 0;
    const stop = await listening.watch(() => {
      heard += 1;
    });
    try {
      await eventually(() => heard === 1);
      const [{ cut }] = (await a.dataSource.query(
        'SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity ' +
          'WHERE datname = current_database() AND query = $1 AND pid <> pg_backend_pid()',
        ['LISTEN webhook_events_inbox'],
      )) as { cut: number }[];
      expect(cut).toBe(1);
      // NOTE: listening again wakes the listener once, for what it may have missed meanwhile.
      await eventually(() => heard === 2);
      await storing.record(event());
      await eventually(() => heard === 3);
      expect(await b.dataSource.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    } finally {
      await stop();
    }
    const [{ listeners }] = (await a.dataSource.query(
      "SELECT count(*)::int AS listeners FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND state = 'idle'",
    )) as { listeners: number }[];
    expect(listeners).toBe(0);
  });

  it('gives the pool back a connection it was still opening when it stopped listening', async () => {
    const listening = b.app.get<WebhookStore>(WebhookStore);
    const pool = (b.dataSource.driver as unknown as { master: PgPool }).master;
    // NOTE: the store keeps a connection or two of its own (the answer path's).
    const busy = () => pool.totalCount - pool.idleCount;
    const busyBefore = busy();
    let heard = 0;
    const stop = await listening.watch(() => {
      heard += 1;
    });
    const taken: PoolClient[] = [];
    /** Takes every connection the pool has free, or may still open. */
    const takeFree = async () => {
      const free = pool.options.max - busy();
      taken.push(...(await Promise.all(Array.from({ length: free }, () => pool.connect()))));
    };
    try {
      await eventually(() => heard === 1);
      await takeFree();
      const [{ cut }] = (await a.dataSource.query(
        'SELECT count(pg_terminate_backend(pid))::int AS cut FROM pg_stat_activity ' +
          'WHERE datname = current_database() AND query = $1',
        ['LISTEN webhook_events_inbox'],
      )) as { cut: number }[];
      expect(cut).toBeGreaterThanOrEqual(1);
      // NOTE: the pool drops the broken connection; its place is taken too, so listening again
      // (1 s later) waits for a connection.
      await eventually(() => pool.totalCount < pool.options.max);
      await takeFree();
      await new Promise((resolve) => setTimeout(resolve, 1500));
    } finally {
      await stop();
      taken.forEach((client) => client.release());
    }
    await eventually(() => busy() === busyBefore);
    // NOTE: ample time for a connection opened late to start listening, had it been kept.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const [{ listeners }] = (await a.dataSource.query(
      "SELECT count(*)::int AS listeners FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%' AND state = 'idle'",
    )) as { listeners: number }[];
    expect(listeners).toBe(0);
    expect(busy()).toBe(busyBefore);
    expect(heard).toBe(1);
  });
});
