import { In } from 'typeorm';
import { stripeEndpoint, WebhooksModuleOptions } from 'nestjs-payment-webhooks';
import { WebhookStore } from 'nestjs-payment-webhooks';
import { BUSY_ANSWER_PATH, WebhookDispatcher } from '../lib/dispatch/webhook.dispatcher';
import { WebhookEventProcessor } from '../lib/dispatch/webhook-event.processor';
import { WebhookHandlerRegistry } from '../lib/handlers/webhook-handler.registry';
import { SafeLogger } from '../lib/observability/safe-logger';
import { WebhookTelemetry } from '../lib/observability/webhook-telemetry';
import { WebhookEventEntity } from '../lib/store/entities';
import { InboxSignal } from '../lib/store/inbox-signal';
import { InboxWorker } from '../lib/store/ports';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../lib/webhooks.constants';
import { ResolvedWebhooksOptions } from '../lib/webhooks-options.resolver';
import { newWebhookEvent } from './support/webhook-event';
import { post } from './support/http';
import { stripePaymentEvent } from './support/stripe-event';
import { eventually, HandlerControl, startTestApp, TestApp, TestEffect } from './support/test-app';

const SECRET = 'whsec_answer_priority';
const CONCURRENCY = 8;

/**
 * Handlers at most in flight at once, sampled while `work` runs: each handler call is counted
 * from its start until its transaction's 40 ms delay is over.
 */
function inFlightHandlers(control: HandlerControl): { readonly max: () => number } {
  let running = 0;
  let max = 0;
  const calls = control.calls;
  const push = calls.push.bind(calls);
  calls.push = (...items) => {
    running += items.length;
    max = Math.max(max, running);
    setTimeout(() => (running -= items.length), 40);
    return push(...items);
  };
  return { max: () => max };
}

describe('handlers give way to answers on PostgreSQL', () => {
  let app: TestApp;
  const control = new HandlerControl();

  beforeAll(async () => {
    const webhooks: WebhooksModuleOptions = {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
      dispatch: { concurrency: CONCURRENCY, pollIntervalMs: 100 },
    };
    // NOTE: room in the pool for every handler transaction at once, beside the answer path's.
    app = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks,
      control,
      poolSize: 16,
    });
  });

  afterAll(() => app.close());

  it('handles every event of a long burst once, while the burst and after it', async () => {
    const events = Array.from({ length: 600 }, () => stripePaymentEvent(SECRET));
    events.forEach((event) => control.scripts.set(event.id, { delayMs: 40 }));
    const flight = inFlightHandlers(control);
    // NOTE: 60 requests at a time keep far more than BUSY_ANSWER_PATH answers waiting.
    const statuses: number[] = [];
    for (let i = 0; i < events.length; i += 60) {
      const wave = events.slice(i, i + 60);
      const answers = await Promise.all(
        wave.map((event) => post(`${app.url}/webhooks/stripe`, event.body, event.headers())),
      );
      statuses.push(...answers.map((answer) => answer.status));
    }
    expect(statuses.filter((status) => status === 200)).toHaveLength(events.length);
    const ids = events.map((event) => event.id);
    const effects = app.dataSource.getRepository(TestEffect);
    await eventually(async () => (await effects.countBy({ eventId: In(ids) })) === ids.length, 30_000);
    const processed = await app.dataSource
      .getRepository(WebhookEventEntity)
      .countBy({ eventId: In(ids), status: 'processed' });
    expect(processed).toBe(ids.length);
    expect(flight.max()).toBeLessThanOrEqual(CONCURRENCY);
  });

  it('runs a quarter of its concurrency while answers wait, and all of it once they are done', async () => {
    // NOTE: the app's own dispatcher is stopped; this one is built from the same parts, with
    // the same ingress signal the module's route counts waiting answers on.
    await app.app.get(WebhookDispatcher).stop();
    const resolved = app.app.get<ResolvedWebhooksOptions>(WEBHOOKS_RESOLVED_OPTIONS);
    const signal = app.app.get(InboxSignal);
    const worker = app.app.get<InboxWorker>(InboxWorker);
    const logger = new SafeLogger('WebhookDispatcher');
    const gates = new Map<string, () => void>();
    const running = new Set<string>();
    const registry = new WebhookHandlerRegistry(['stripe']);
    registry.register({
      on: 'payment.succeeded',
      name: 'gated',
      handle: async (event) => {
        running.add(event.eventId);
        await new Promise<void>((resolve) => gates.set(event.eventId, resolve));
        running.delete(event.eventId);
      },
    });
    const processor = new WebhookEventProcessor(
      worker,
      registry,
      resolved,
      new WebhookTelemetry(),
      logger,
    );
    const dispatcher = new WebhookDispatcher(worker, processor, signal, resolved, logger);
    const store = app.app.get<WebhookStore>(WebhookStore);
    const ids = Array.from({ length: 20 }, (_, i) => `evt_priority_${process.pid}_${i}`);
    for (const id of ids) {
      await store.record(
        newWebhookEvent(id, {
          type: 'payment.succeeded',
          status: 'pending',
          receivedAt: new Date(Date.now() - 60_000),
        }),
      );
    }
    const openAll = () => [...running].forEach((id) => gates.get(id)?.());
    const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
    dispatcher.start();
    try {
      await eventually(() => running.size === CONCURRENCY);
      // NOTE: as many deliveries as make the answer path busy wait for their commit.
      const waiting = Array.from({ length: BUSY_ANSWER_PATH }, () => signal.commitStarted());
      openAll();
      await eventually(() => running.size === CONCURRENCY / 4);
      await settle();
      expect(running.size).toBe(CONCURRENCY / 4);
      openAll();
      await eventually(() => running.size === CONCURRENCY / 4);
      await settle();
      expect(running.size).toBe(CONCURRENCY / 4);

      waiting.forEach((done) => done());
      openAll();
      // NOTE: 8 + 2 + 2 have run; of the 8 left, more than a quarter start at once again.
      await eventually(() => running.size > CONCURRENCY / 2);
      const processed = () =>
        app.dataSource
          .getRepository(WebhookEventEntity)
          .countBy({ eventId: In(ids), status: 'processed' });
      await eventually(async () => {
        openAll();
        return (await processed()) === ids.length;
      });
    } finally {
      openAll();
      await dispatcher.stop();
    }
  });
});
