import {
  NewWebhookEvent,
  stripeEndpoint,
  WebhookDispatcher,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import { In } from 'typeorm';
import { startAssembledWorker } from '../support/assembled-worker';
import { liveEvent } from '../support/inbox-state';
import { InboxSignal, WebhookHandlerRegistry, WebhookHandlerRunEntity } from '../support/internals';
import { Database, eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';

const BOUND_MS = 300;

let sequence = 0;

function paymentEvent(): NewWebhookEvent {
  const eventId = `evt_batch_${process.pid}_${sequence++}`;
  return newWebhookEvent(eventId, {
    type: 'payment.succeeded',
    nativeType: 'payment_intent.succeeded',
    paymentRef: `pi_${eventId}`,
    merchantRef: `order_${eventId}`,
    receivedAt: new Date(Date.now() - 60_000),
    status: 'pending',
  });
}

/** What the `charge` handler does for one provider event id besides writing its effect. */
interface Script {
  /** Throws after its insert. */
  readonly fail?: Error;
  /** Waits on this after its insert, on its first call only. */
  readonly gate?: Promise<void>;
  /** On PostgreSQL, a statement that runs this long, on its first call only (seconds). */
  readonly sleepSeconds?: number;
}

/**
 * `dispatch.batch`: handler runs share transactions, each in its own savepoint. The worker is
 * assembled from its parts (`startAssembledWorker`, as in `dispatch-engine`) on a store whose
 * runs are batched.
 */
describe.each<Database>(['sqlite', 'postgres'])('handler runs in batches on %s', (database) => {
  let app: TestApp;
  let store: WebhookStore;
  let dispatcher: WebhookDispatcher | undefined;
  const signal = new InboxSignal();
  const registry = new WebhookHandlerRegistry(['stripe']);
  const scripts = new Map<string, Script>();
  /** Provider event ids, once per call of the `charge` handler. */
  const calls: string[] = [];

  registry.register({
    on: 'payment.succeeded',
    name: 'charge',
    handle: async (event, ctx) => {
      calls.push(event.eventId);
      const first = calls.filter((id) => id === event.eventId).length === 1;
      await ctx.manager.insert(TestEffect, {
        eventId: event.eventId,
        handler: 'charge',
        merchantRef: event.merchantRef,
      });
      const script = scripts.get(event.eventId) ?? {};
      if (first && script.gate) {
        await script.gate;
      }
      if (first && script.sleepSeconds) {
        await ctx.manager.query(`SELECT pg_sleep(${script.sleepSeconds})`);
      }
      if (script.fail) {
        throw script.fail;
      }
      ctx.recordOutcome(`charged`);
    },
  });

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      handlers: [],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_batches' })],
        dispatch: {
          enabled: false,
          batch: { size: 32, waitMs: 20, handlerBoundMs: BOUND_MS },
        },
      },
    });
    store = app.app.get<WebhookStore>(WebhookStore);
  });

  afterEach(async () => {
    await dispatcher?.stop();
    dispatcher = undefined;
  });

  afterAll(() => app.close());

  function startWorker(): void {
    dispatcher = startAssembledWorker(app, {
      registry,
      signal,
      dispatch: { pollIntervalMs: 50, concurrency: 16 },
    });
  }

  async function recorded(count: number): Promise<NewWebhookEvent[]> {
    const events = Array.from({ length: count }, () => paymentEvent());
    for (const event of events) {
      await store.record(event);
    }
    return events;
  }

  /** Whether every event but `except` (a provider event id) is processed. */
  async function allProcessed(events: readonly NewWebhookEvent[], except?: string) {
    const others = events.filter((event) => event.eventId !== except);
    const states = await Promise.all(others.map((event) => status(event.eventId)));
    return states.every((state) => state === 'processed');
  }

  const status = async (eventId: string) => (await liveEvent(app.dataSource, eventId))?.status;
  const effects = (eventId: string) =>
    app.dataSource.getRepository(TestEffect).countBy({ eventId });
  const ledger = (ids: readonly string[]) =>
    app.dataSource.getRepository(WebhookHandlerRunEntity).findBy({ eventId: In([...ids]) });

  it('settles many events per commit, each handler once, with its outcome', async () => {
    const events = await recorded(12);
    startWorker();

    await eventually(() => allProcessed(events));
    for (const event of events) {
      expect(await effects(event.eventId)).toBe(1);
      const row = await liveEvent(app.dataSource, event.eventId);
      expect(row).toMatchObject({ outcome: 'charged', lastError: null, attempts: 1 });
    }
    const runs = await ledger(await inboxIds(events));
    expect(runs).toHaveLength(12);
    expect(runs.every((run) => run.outcome === 'charged')).toBe(true);
    // NOTE: the rows of one batch are written by one statement, with one time.
    expect(new Set(runs.map((run) => run.finishedAt.getTime())).size).toBeLessThan(12);
  });

  it('rolls back only the writes and ledger row of a handler that throws', async () => {
    const events = await recorded(6);
    const failing = events[2].eventId;
    scripts.set(failing, { fail: new Error('card declined by the test') });
    startWorker();

    await eventually(async () => (await status(failing)) === 'retrying');
    await eventually(() => allProcessed(events, failing));
    expect(await effects(failing)).toBe(0);
    const failed = await liveEvent(app.dataSource, failing);
    expect(failed?.lastError).toContain('card declined by the test');
    const ids = await inboxIds(events);
    const runs = await ledger(ids);
    expect(runs.map((run) => run.eventId).sort()).toEqual(
      ids.filter((id) => id !== failed?.id).sort(),
    );
    for (const event of events.filter((each) => each.eventId !== failing)) {
      expect(await effects(event.eventId)).toBe(1);
    }
  });

  it('cuts off a handler that holds its batch past the bound and runs it again on its own', async () => {
    const events = await recorded(6);
    const slow = events[1].eventId;
    let open!: () => void;
    scripts.set(slow, { gate: new Promise<void>((resolve) => (open = resolve)) });
    const started = Date.now();
    startWorker();

    await eventually(() => allProcessed(events, slow), 10_000);
    const othersDoneMs = Date.now() - started;
    expect(await status(slow)).toBe('processing');
    expect(await effects(slow)).toBe(0);

    open();
    await eventually(async () => (await status(slow)) === 'processed');
    expect(calls.filter((id) => id === slow)).toHaveLength(2);
    expect(await effects(slow)).toBe(1);
    // NOTE: the others waited for the bound at most, not for the gate (opened only now).
    expect(othersDoneMs).toBeLessThan(BOUND_MS + 2_500);
  });

  if (database === 'postgres') {
    it('cancels a statement of a handler that runs past the bound', async () => {
      const events = await recorded(4);
      const slow = events[0].eventId;
      scripts.set(slow, { sleepSeconds: 5 });
      const started = Date.now();
      startWorker();

      await eventually(() => allProcessed(events, slow), 10_000);
      expect(Date.now() - started).toBeLessThan(4_000);
      await eventually(async () => (await status(slow)) === 'processed', 15_000);
      expect(calls.filter((id) => id === slow)).toHaveLength(2);
      expect(await effects(slow)).toBe(1);
    });
  }

  /** The inbox ids of recorded events. */
  async function inboxIds(events: readonly NewWebhookEvent[]): Promise<string[]> {
    const rows = await Promise.all(events.map((event) => liveEvent(app.dataSource, event.eventId)));
    return rows.map((row) => row!.id);
  }
});
