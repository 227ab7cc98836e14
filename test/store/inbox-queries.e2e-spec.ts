import {
  InboxQueries,
  NewWebhookEvent,
  stripeEndpoint,
  WebhookEventStatus,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import {
  WebhookEventEntity,
  WebhookHandlerRunEntity,
  WebhookWorkEntity,
} from '../support/internals';
import { Database, startTestApp, TestApp } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';
import { liveStatus, putInState } from '../support/inbox-state';

let sequence = 0;
const HOUR_MS = 3_600_000;
/** A reference longer than its column: stored fitted, it must still be found by its full value. */
const LONG_REF = `pi_${'x'.repeat(400)}`;

describe.each<Database>(['sqlite', 'postgres'])('the inbox queries on %s', (database) => {
  let app: TestApp;
  let store: WebhookStore;
  let queries: InboxQueries;
  const now = Date.now();

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_queries' })],
        dispatch: { enabled: false },
      },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
    queries = app.app.get<InboxQueries>(InboxQueries);
  });

  afterAll(() => app.close());

  const events = () => app.dataSource.getRepository(WebhookEventEntity);
  const runs = () => app.dataSource.getRepository(WebhookHandlerRunEntity);
  const work = () => app.dataSource.getRepository(WebhookWorkEntity);

  beforeEach(async () => {
    await runs().createQueryBuilder().delete().execute();
    await events().createQueryBuilder().delete().execute();
  });

  /** Stores an event received `hoursAgo` hours ago, then gives it `status`. */
  async function stored(
    status: WebhookEventStatus,
    hoursAgo: number,
    overrides: Partial<NewWebhookEvent> = {},
  ): Promise<string> {
    const eventId = `evt_queries_${process.pid}_${sequence++}`;
    const { id } = await store.record(
      newWebhookEvent(eventId, {
        type: 'payment.succeeded',
        paymentRef: `pi_${eventId}`,
        merchantRef: `order_${eventId}`,
        receivedAt: new Date(now - hoursAgo * HOUR_MS),
        headers: { 'content-type': 'application/json' },
        status: 'pending',
        ...overrides,
      }),
    );
    if (status !== 'pending') {
      await putInState(app.dataSource, id, status, {
        lockedBy: status === 'processing' ? 'worker-q' : null,
        lockedUntil: status === 'processing' ? new Date(now + HOUR_MS) : null,
      });
    }
    return id;
  }

  /** A ledger row for `eventId`, as a finished handler leaves it. */
  async function ran(eventId: string, handlerKey: string, at = new Date()): Promise<void> {
    await runs().insert({
      eventId,
      handlerKey,
      attempt: 1,
      finishedAt: at,
    });
  }

  it('lists the matching events newest first, at most the limit, finding long values', async () => {
    const oldest = await stored('processed', 3, { endpoint: 'shop' });
    const middle = await stored('dead', 2, { endpoint: 'shop', paymentRef: LONG_REF });
    const newest = await stored('pending', 1, { endpoint: 'shop', type: 'refund.succeeded' });
    await stored('processed', 1, { endpoint: 'other' });

    const ids = async (filter: Parameters<InboxQueries['list']>[0], limit = 10) =>
      (await queries.list(filter, limit)).map((event) => event.id);
    expect(await ids({ endpoint: 'shop' })).toEqual([newest, middle, oldest]);
    expect(await ids({ endpoint: 'shop' }, 2)).toEqual([newest, middle]);
    expect(await ids({ endpoint: 'shop', status: ['dead', 'processed'] })).toEqual([
      middle,
      oldest,
    ]);
    expect(await ids({ type: 'refund.succeeded' })).toEqual([newest]);
    expect(await ids({ paymentRef: LONG_REF })).toEqual([middle]);
    expect(
      await ids({
        endpoint: 'shop',
        since: new Date(now - 2.5 * HOUR_MS),
        until: new Date(now - 1.5 * HOUR_MS),
      }),
    ).toEqual([middle]);
    const [event] = await queries.list({ paymentRef: LONG_REF }, 1);
    expect(event).toBeInstanceOf(WebhookEventEntity);
    expect(event.receivedAt).toEqual(new Date(now - 2 * HOUR_MS));
  });

  it('counts the matching events', async () => {
    await stored('processed', 3, { endpoint: 'shop', merchantRef: 'order_42' });
    await stored('dead', 2, { endpoint: 'shop', merchantRef: 'order_42' });
    await stored('dead', 2, { endpoint: 'other' });
    expect(await queries.count({})).toBe(3);
    expect(await queries.count({ merchantRef: 'order_42' })).toBe(2);
    expect(await queries.count({ status: 'dead' })).toBe(2);
    expect(await queries.count({ endpoint: 'nowhere' })).toBe(0);
  });

  it('finds one event with its handler runs, oldest first, and null for an unknown id', async () => {
    const id = await stored('processed', 1);
    await ran(id, 'Second.handler', new Date(now - 1000));
    await ran(id, 'First.handler', new Date(now - 5000));
    const found = await queries.find(id);
    expect(found?.event.id).toBe(id);
    expect(found?.handlerRuns.map((run) => run.handlerKey)).toEqual([
      'First.handler',
      'Second.handler',
    ]);
    expect(await queries.find('no-such-event')).toBeNull();
  });

  it('replays settled and retrying events, never those waiting or held by a worker', async () => {
    const dead = await stored('dead', 4);
    const processed = await stored('processed', 3);
    const retrying = await stored('retrying', 2);
    const pending = await stored('pending', 1);
    const held = await stored('processing', 1);
    await events().update({ id: dead }, { attempts: 5, processedAt: null });

    expect(await queries.replayable({}, 10)).toEqual([dead, processed, retrying]);
    expect(await queries.replayable({ status: 'dead' }, 10)).toEqual([dead]);
    expect(await queries.replayable({}, 2)).toEqual([dead, processed]);

    const before = Date.now();
    expect(await queries.replay([dead, pending, held])).toBe(1);
    const replayed = await events().findOneByOrFail({ id: dead });
    expect(replayed).toMatchObject({ status: 'pending', attempts: 0 });
    expect(replayed.nextAttemptAt!.getTime()).toBeGreaterThanOrEqual(before - 1000);
    expect(await work().findOneByOrFail({ eventId: dead })).toMatchObject({
      status: 'pending',
      attempts: 0,
      lockedBy: null,
    });
    expect(await liveStatus(app.dataSource, held)).toBe('processing');
    expect(await queries.replay([])).toBe(0);
  });

  it('settles an event by hand, unless a worker holds it', async () => {
    const waiting = await stored('retrying', 1);
    const held = await stored('processing', 1);
    expect(await queries.settleByHand(waiting, 'dead', 'refunded by phone')).toBe(true);
    expect(await events().findOneByOrFail({ id: waiting })).toMatchObject({
      status: 'dead',
      lastError: 'Settled by hand: refunded by phone',
      nextAttemptAt: null,
    });
    expect(await queries.settleByHand(held, 'ignored', 'test order')).toBe(false);
    expect(await queries.settleByHand('no-such-event', 'ignored', 'test order')).toBe(false);
  });

  it('purges settled events of the selection with their ledger rows, a batch at a time', async () => {
    const old = await stored('processed', 48);
    await stored('ignored', 72);
    const dead = await stored('dead', 72);
    const elsewhere = await stored('processed', 72, { endpoint: 'other' });
    const recent = await stored('processed', 1);
    const waiting = await stored('retrying', 72);
    await ran(old, 'Orders.fulfil');
    const selection: Parameters<InboxQueries['purge']>[0] = {
      statuses: ['processed', 'ignored'],
      olderThan: new Date(now - 24 * HOUR_MS),
      endpoint: 'stripe',
    };
    expect(await queries.purge(selection, 1)).toBe(1);
    expect(await queries.purge(selection, 10)).toBe(1);
    expect(await queries.purge(selection, 10)).toBe(0);
    const left = (await events().find()).map((event) => event.id).sort();
    expect(left).toEqual([dead, elsewhere, recent, waiting].sort());
    expect(await runs().countBy({ eventId: old })).toBe(0);
  });

  it('gives counts per endpoint and status, and the oldest event waiting to run', async () => {
    await stored('pending', 2);
    await stored('pending', 1);
    await stored('retrying', 5, { endpoint: 'other' });
    await stored('dead', 9, { endpoint: 'other' });
    expect(await queries.stats()).toEqual({
      counts: [
        { endpoint: 'other', status: 'dead', count: 1 },
        { endpoint: 'other', status: 'retrying', count: 1 },
        { endpoint: 'stripe', status: 'pending', count: 2 },
      ],
      oldestPendingAt: new Date(now - 5 * HOUR_MS),
    });
  });

  it('deletes settled events past a time for retention, with their ledger, keeping dead ones', async () => {
    const first = await stored('processed', 50);
    await stored('ignored', 49);
    const dead = await stored('dead', 50);
    const young = await stored('processed', 1);
    await ran(first, 'Orders.fulfil');
    await ran(first, 'Mail.receipt');
    const before = new Date(now - 24 * HOUR_MS);
    expect(await queries.deleteSettled(before, 1)).toEqual({ found: 1, events: 1, handlerRuns: 2 });
    expect(await queries.deleteSettled(before, 10)).toEqual({
      found: 1,
      events: 1,
      handlerRuns: 0,
    });
    expect(await queries.deleteSettled(before, 10)).toEqual({
      found: 0,
      events: 0,
      handlerRuns: 0,
    });
    const left = (await events().find()).map((event) => event.id).sort();
    expect(left).toEqual([dead, young].sort());
  });

  it('prunes the payloads of settled events in order, continuing after a cursor', async () => {
    const first = await stored('processed', 50);
    const second = await stored('ignored', 49);
    const third = await stored('processed', 48);
    const dead = await stored('dead', 50);
    const before = new Date(now - 24 * HOUR_MS);
    const batch = await queries.prunePayloads(before, 2);
    expect(batch).toEqual([
      { id: first, receivedAt: new Date(now - 50 * HOUR_MS) },
      { id: second, receivedAt: new Date(now - 49 * HOUR_MS) },
    ]);
    expect(await queries.prunePayloads(before, 2, batch[1])).toEqual([
      { id: third, receivedAt: new Date(now - 48 * HOUR_MS) },
    ]);
    expect(await queries.prunePayloads(before, 2)).toEqual([]);
    const pruned = await events().findOneByOrFail({ id: first });
    expect(pruned.headers).toEqual({});
    expect(pruned.rawBody).toBe('');
    expect((await events().findOneByOrFail({ id: dead })).headers).toEqual({
      'content-type': 'application/json',
    });
  });

  it('samples depth, the oldest pending and the latest delivery per endpoint', async () => {
    await stored('pending', 3);
    await stored('pending', 2);
    await stored('dead', 1);
    await stored('processed', 0.5);
    await stored('retrying', 4, { endpoint: 'other' });
    const sample = await queries.sample(['pending', 'retrying', 'dead'], null);
    const byEndpoint = <T extends { endpoint: string }>(rows: readonly T[]) =>
      [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    expect(byEndpoint(sample.depth)).toEqual(
      byEndpoint([
        { endpoint: 'stripe', status: 'pending', count: 2 },
        { endpoint: 'stripe', status: 'dead', count: 1 },
        { endpoint: 'other', status: 'retrying', count: 1 },
      ]),
    );
    expect(sample.oldestPending).toEqual([{ endpoint: 'stripe', at: new Date(now - 3 * HOUR_MS) }]);
    expect(byEndpoint(sample.latest)).toEqual(
      byEndpoint([
        { endpoint: 'stripe', at: new Date(now - 0.5 * HOUR_MS) },
        { endpoint: 'other', at: new Date(now - 4 * HOUR_MS) },
      ]),
    );
    const since = await queries.sample(['pending'], new Date(now - 2.5 * HOUR_MS));
    expect(since.latest).toEqual([{ endpoint: 'stripe', at: new Date(now - 0.5 * HOUR_MS) }]);
  });

  it('counts the events of payments per receipt time, under the reference asked for', async () => {
    const at = (hoursAgo: number) => new Date(now - hoursAgo * HOUR_MS);
    await stored('processed', 2, { paymentRef: LONG_REF });
    await stored('processed', 1, { paymentRef: LONG_REF });
    await stored('pending', 1, { paymentRef: 'pi_short' });
    await stored('pending', 1, { paymentRef: 'pi_short' });
    await stored('pending', 1, { paymentRef: 'pi_short', endpoint: 'other' });
    await stored('pending', 1, { paymentRef: 'pi_not_asked' });
    const times = await queries.paymentEventTimes([LONG_REF, 'pi_short', 'pi_none']);
    expect(times).toHaveLength(4);
    expect(times).toEqual(
      expect.arrayContaining([
        { endpoint: 'stripe', paymentRef: LONG_REF, receivedAt: at(1), count: 1 },
        { endpoint: 'stripe', paymentRef: LONG_REF, receivedAt: at(2), count: 1 },
        { endpoint: 'other', paymentRef: 'pi_short', receivedAt: at(1), count: 1 },
        { endpoint: 'stripe', paymentRef: 'pi_short', receivedAt: at(1), count: 2 },
      ]),
    );
    expect(await queries.paymentEventTimes([])).toEqual([]);
  });

  it('names the provider kinds of the stored events, of one endpoint when asked', async () => {
    await stored('processed', 1);
    await stored('processed', 1, { endpoint: 'yoo', provider: 'yookassa' });
    expect((await queries.providerKinds()).sort()).toEqual(['stripe', 'yookassa']);
    expect(await queries.providerKinds('yoo')).toEqual(['yookassa']);
    expect(await queries.providerKinds('nowhere')).toEqual([]);
  });

  it('names the endpoints and handlers the database records, each once, sorted, without *', async () => {
    expect(await queries.recordedNames()).toEqual({ endpoints: [], handlers: [] });
    const paid = await stored('processed', 1);
    await stored('processed', 1, { endpoint: 'yoo', provider: 'yookassa' });
    await stored('dead', 2, { endpoint: 'yoo', provider: 'yookassa' });
    await ran(paid, 'Orders.onPaid');
    await ran(paid, 'Mail.send');
    await queries.pause({ endpoint: 'legacy', handler: 'Old.handler' }, null, null);
    await queries.pause({}, null, null);
    try {
      expect(await queries.recordedNames()).toEqual({
        endpoints: ['legacy', 'stripe', 'yoo'],
        handlers: ['Mail.send', 'Old.handler', 'Orders.onPaid'],
      });
    } finally {
      await queries.resume({ endpoint: 'legacy', handler: 'Old.handler' });
      await queries.resume({});
    }
  });
});
