import {
  NewWebhookEvent,
  NonRetryableError,
  stripeEndpoint,
  WebhookDispatcher,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import { startAssembledWorker } from '../support/assembled-worker';
import {
  InboxSignal,
  ResolvedWebhooksOptions,
  WebhookHandlerRegistry,
  WebhookHandlerRunEntity,
} from '../support/internals';
import { Database, eventually, startTestApp, TestApp, TestEffect } from '../support/test-app';
import { newWebhookEvent } from '../support/webhook-event';
import { liveEvent } from '../support/inbox-state';

let sequence = 0;

function paymentEvent(overrides: Partial<NewWebhookEvent> = {}): NewWebhookEvent {
  const eventId = `evt_engine_${process.pid}_${sequence++}`;
  return newWebhookEvent(eventId, {
    type: 'payment.succeeded',
    nativeType: 'payment_intent.succeeded',
    paymentRef: `pi_${eventId}`,
    merchantRef: `order_${eventId}`,
    receivedAt: new Date(Date.now() - 60_000),
    status: 'pending',
    ...overrides,
  });
}

/**
 * The worker assembled by hand from its parts, the way an app without Nest assembles it: the
 * inbox's worker port, a registry holding function handlers, and the resolved options.
 */
describe.each<Database>(['sqlite', 'postgres'])(
  'the worker built from its parts on %s',
  (database) => {
    let app: TestApp;
    let store: WebhookStore;
    let dispatcher: WebhookDispatcher | undefined;
    const signal = new InboxSignal();
    const registry = new WebhookHandlerRegistry(['stripe']);
    /** Provider event ids the `charge` handler fails for, and how. */
    const failures = new Map<string, Error>();
    /** Provider event ids the `charge` handler waits on until resolved. */
    const gates = new Map<string, Promise<void>>();
    /** Provider event ids, once per call of the `charge` handler. */
    const invocations: string[] = [];

    registry.register({
      on: 'payment.succeeded',
      name: 'charge',
      handle: async (event, ctx) => {
        invocations.push(event.eventId);
        await ctx.manager.insert(TestEffect, {
          eventId: event.eventId,
          handler: 'charge',
          merchantRef: event.merchantRef,
        });
        await gates.get(event.eventId);
        const failure = failures.get(event.eventId);
        if (failure) {
          throw failure;
        }
        ctx.recordOutcome('charged');
      },
    });

    beforeAll(async () => {
      app = await startTestApp({
        platform: 'express',
        database,
        handlers: [],
        webhooks: {
          endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_engine' })],
          dispatch: { enabled: false },
        },
      });
      store = app.app.get<WebhookStore>(WebhookStore);
    });

    afterEach(async () => {
      await dispatcher?.stop();
      dispatcher = undefined;
    });

    afterAll(() => app.close());

    function startWorker(dispatch: Partial<ResolvedWebhooksOptions['dispatch']> = {}) {
      dispatcher = startAssembledWorker(app, {
        registry,
        signal,
        dispatch: { pollIntervalMs: 50, ...dispatch },
      });
      return dispatcher;
    }

    const row = async (eventId: string) => (await liveEvent(app.dataSource, eventId))!;
    const effects = (eventId: string) =>
      app.dataSource.getRepository(TestEffect).countBy({ eventId });

    it('runs a function handler once per event and keeps its outcome on the event', async () => {
      const first = paymentEvent();
      const second = paymentEvent();
      await store.record(first);
      await store.record(second);
      await store.record(first);
      startWorker();

      await eventually(async () => (await row(second.eventId)).status === 'processed');
      await eventually(async () => (await row(first.eventId)).status === 'processed');
      expect(await effects(first.eventId)).toBe(1);
      expect(await effects(second.eventId)).toBe(1);
      expect(await row(first.eventId)).toMatchObject({ outcome: 'charged', lastError: null });
    });

    it('wakes on an insert instead of waiting for its next poll', async () => {
      startWorker({ pollIntervalMs: 60_000 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const event = paymentEvent();
      await store.record(event);
      signal.notify();

      await eventually(async () => (await row(event.eventId)).status === 'processed', 5_000);
    });

    it('schedules a failed event for later with the error, and counts no effect', async () => {
      const event = paymentEvent();
      failures.set(event.eventId, new Error('card declined'));
      await store.record(event);
      const before = Date.now();
      startWorker();

      await eventually(async () => (await row(event.eventId)).status === 'retrying');
      const retried = await row(event.eventId);
      expect(retried.lastError?.split('\n')[0]).toBe('charge: Error: card declined');
      expect(retried.attempts).toBe(1);
      expect(retried.nextAttemptAt!.getTime()).toBeGreaterThan(before);
      expect(await effects(event.eventId)).toBe(0);
    });

    it('sends an event to dead letters at once on NonRetryableError', async () => {
      const event = paymentEvent();
      failures.set(event.eventId, new NonRetryableError('order was deleted'));
      await store.record(event);
      startWorker();

      await eventually(async () => (await row(event.eventId)).status === 'dead');
      expect((await row(event.eventId)).lastError).toMatch(
        /^charge: NonRetryableError: order was deleted/,
      );
    });

    it('lets a handler still running at stop finish once, and the next worker settle its event', async () => {
      const event = paymentEvent();
      let open!: () => void;
      gates.set(event.eventId, new Promise<void>((resolve) => (open = resolve)));
      await store.record(event);
      const worker = startWorker({ shutdownTimeoutMs: 100 });
      await eventually(async () => (await row(event.eventId)).status === 'processing');

      setTimeout(() => open(), 300);
      await worker.stop();
      dispatcher = undefined;
      // NOTE: the event was given back after 100 ms; whether the handler's commit settled it
      // first depends on whether the database lets the release wait for it (SQLite does).
      expect((await row(event.eventId)).status).not.toBe('processing');
      await eventually(async () => (await effects(event.eventId)) === 1);

      startWorker();
      await eventually(async () => (await row(event.eventId)).status === 'processed');
      expect(await effects(event.eventId)).toBe(1);
      expect(invocations.filter((id) => id === event.eventId)).toHaveLength(1);
      const runs = await app.dataSource
        .getRepository(WebhookHandlerRunEntity)
        .countBy({ eventId: (await row(event.eventId)).id });
      expect(runs).toBe(1);
    });
  },
);
