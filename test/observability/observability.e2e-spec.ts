import { Controller, Get, Injectable, INestApplication, Module, Res } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { HealthCheck, HealthCheckService, TerminusModule } from '@nestjs/terminus';
import { getDataSourceToken, TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  stripeEndpoint,
  WebhookAdmin,
  WebhookAlert,
  WebhookAlerts,
  WebhooksHealthIndicator,
  WebhooksMetrics,
  webhooksMigrations,
  WebhooksModule,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { signedStripeEvent, stripeEventId } from '../support/stripe-event';
import { Database, eventually, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_observability_secret';
const QUIET_SECRET = 'whsec_observability_quiet';
/** The shortest `expectDeliveryWithinMs` the package takes: its silence is checked every 500 ms. */
const QUIET_WITHIN_MS = 1000;

interface Delivery {
  id: string;
  paymentRef: string;
  body: string;
  headers: Record<string, string>;
}

/** A Stripe delivery signed by the Stripe SDK, its order id its event id. */
function stripeDelivery(
  options: { secret?: string; paymentRef?: string; type?: string } = {},
): Delivery {
  const id = stripeEventId();
  const paymentRef = options.paymentRef ?? `pi_${id}`;
  const event = signedStripeEvent(options.secret ?? SECRET, {
    id,
    type: options.type,
    paymentId: paymentRef,
    orderId: id,
    amount: 1200,
    currency: 'eur',
  });
  return { ...event, paymentRef };
}

/**
 * The value of a metric in Prometheus text, summed over the series whose labels include
 * `labels`; 0 when there is none.
 */
function metricValue(text: string, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) {
      continue;
    }
    const series = Object.fromEntries(
      [...(match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    );
    if (Object.entries(labels).every(([key, value]) => series[key] === value)) {
      total += Number(match[3]);
    }
  }
  return total;
}

/** Minimal view of the platform response a metrics controller sets a header on. */
interface HeaderTarget {
  setHeader(name: string, value: string): void;
}

@Controller('metrics')
class MetricsController {
  constructor(private readonly webhooks: WebhooksMetrics) {}

  @Get()
  scrape(@Res({ passthrough: true }) response: HeaderTarget): Promise<string> {
    response.setHeader('Content-Type', this.webhooks.contentType);
    return this.webhooks.metrics();
  }
}

async function scrape(app: TestApp | ObservedApp): Promise<string> {
  const response = await fetch(`${app.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toContain('text/plain');
  return response.text();
}

describe.each<Database>(['sqlite', 'postgres'])('metrics and alerts on %s', (database) => {
  let app: TestApp;
  const alerts: WebhookAlert[] = [];
  const subscribed: WebhookAlert[] = [];

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database,
      controllers: [MetricsController],
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'stripe', secret: SECRET }),
          stripeEndpoint({ name: 'quiet', secret: QUIET_SECRET }),
          stripeEndpoint({ name: 'storm', secret: SECRET }),
        ],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 2, baseDelayMs: 10, maxDelayMs: 20 },
        },
        observability: {
          metrics: { registry: new Registry() },
          sampleCacheMs: 0,
          alerts: {
            onAlert: (alert) => {
              alerts.push(alert);
            },
            signatureFailureThreshold: 3,
            paymentEventThreshold: 3,
          },
          expectDeliveryWithinMs: { quiet: QUIET_WITHIN_MS },
        },
      },
    });
    app.app.get(WebhookAlerts).subscribe((alert) => {
      subscribed.push(alert);
    });
  });

  afterAll(() => app?.close());

  async function send(delivery: Delivery, endpoint = 'stripe', status = 200): Promise<void> {
    const response = await post(`${app.url}/webhooks/${endpoint}`, delivery.body, delivery.headers);
    expect(response.status).toBe(status);
  }

  async function statusOf(eventId: string): Promise<string | undefined> {
    const row = await app.dataSource.getRepository(WebhookEventEntity).findOneBy({ eventId });
    return row?.status;
  }

  const of = (kind: WebhookAlert['kind']) => alerts.filter((alert) => alert.kind === kind);

  /** Payments observed by the events-per-payment histogram of the `storm` endpoint so far. */
  async function paymentsObserved(): Promise<number> {
    const labels = { endpoint: 'storm', provider: 'stripe' };
    return metricValue(await scrape(app), 'payment_webhooks_events_per_payment_count', labels);
  }

  it('counts deliveries by decision, with their answer latency', async () => {
    const stripe = { endpoint: 'stripe', provider: 'stripe' };
    const before = await scrape(app);
    const delivery = stripeDelivery();
    await send(delivery);
    await send(delivery);
    await send(stripeDelivery({ secret: 'whsec_not_the_secret' }), 'stripe', 400);
    await send(stripeDelivery(), 'no-such-endpoint', 404);

    const after = await scrape(app);
    const delta = (name: string, labels: Record<string, string>) =>
      metricValue(after, name, labels) - metricValue(before, name, labels);
    expect(delta('payment_webhooks_deliveries_total', { ...stripe, decision: 'accepted' })).toBe(1);
    expect(delta('payment_webhooks_deliveries_total', { ...stripe, decision: 'duplicate' })).toBe(
      1,
    );
    expect(
      delta('payment_webhooks_deliveries_total', { ...stripe, decision: 'rejected_signature' }),
    ).toBe(1);
    // The name in the URL of an unknown endpoint never becomes a label value.
    expect(
      delta('payment_webhooks_deliveries_total', {
        endpoint: '(unknown)',
        decision: 'unknown_endpoint',
      }),
    ).toBe(1);
    expect(after).not.toContain('no-such-endpoint');
    expect(
      delta('payment_webhooks_ack_latency_seconds_count', { ...stripe, decision: 'accepted' }),
    ).toBe(1);
    expect(after).not.toContain(delivery.id);
    expect(after).not.toContain(delivery.paymentRef);
    // NOTE: settled before the next test takes its first scrape, which would count it otherwise.
    await eventually(async () => (await statusOf(delivery.id)) === 'processed');
  });

  it('counts processed and dead events, handler failures and retries, and alerts once per dead letter', async () => {
    const labels = { endpoint: 'stripe', provider: 'stripe', type: 'payment.succeeded' };
    const before = await scrape(app);
    const good = stripeDelivery();
    const broken = stripeDelivery();
    app.control.scripts.set(broken.id, { alwaysFail: true });
    await send(good);
    await send(broken);
    await eventually(async () => (await statusOf(good.id)) === 'processed');
    await eventually(async () => (await statusOf(broken.id)) === 'dead');
    await eventually(() => alerts.some((a) => a.kind === 'dead_letter'));

    const after = await scrape(app);
    const delta = (name: string, extra: Record<string, string> = {}) =>
      metricValue(after, name, { ...labels, ...extra }) -
      metricValue(before, name, { ...labels, ...extra });
    expect(delta('payment_webhooks_events_settled_total', { status: 'processed' })).toBe(1);
    expect(delta('payment_webhooks_events_settled_total', { status: 'retrying' })).toBe(1);
    expect(delta('payment_webhooks_events_settled_total', { status: 'dead' })).toBe(1);
    expect(delta('payment_webhooks_retries_total')).toBe(1);
    expect(delta('payment_webhooks_dead_letters_total')).toBe(1);
    expect(
      delta('payment_webhooks_handler_failures_total', {
        handler: 'TestPaymentHandlers.onPayment',
      }),
    ).toBe(2);
    expect(delta('payment_webhooks_processing_duration_seconds_count', { outcome: 'ran' })).toBe(1);
    expect(delta('payment_webhooks_processing_duration_seconds_count', { outcome: 'failed' })).toBe(
      2,
    );

    const dead = await app.dataSource
      .getRepository(WebhookEventEntity)
      .countBy({ endpoint: 'stripe', status: 'dead' });
    expect(
      metricValue(after, 'payment_webhooks_inbox_depth', { endpoint: 'stripe', status: 'dead' }),
    ).toBe(dead);
    expect(metricValue(after, 'payment_webhooks_database_up')).toBe(1);

    // Another attempt at the dead event would be a new condition; nothing else may repeat it.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const deadLetters = of('dead_letter').filter(
      (alert) => alert.kind === 'dead_letter' && alert.eventId === broken.id,
    );
    expect(deadLetters).toHaveLength(1);
    expect(deadLetters[0]).toMatchObject({
      endpoint: 'stripe',
      provider: 'stripe',
      type: 'payment.succeeded',
      paymentRef: broken.paymentRef,
      attempt: 2,
    });
    expect(deadLetters[0].message).toContain('handler failure on attempt 2');
    expect(subscribed.filter((a) => a.kind === 'dead_letter')).toHaveLength(
      of('dead_letter').length,
    );
  });

  it('alerts once per run of bad signatures on an endpoint, and again after an acknowledged delivery', async () => {
    const forged = () => stripeDelivery({ secret: 'whsec_rotated_away' });
    await send(stripeDelivery());
    const start = of('signature_failures').length;

    await send(forged(), 'stripe', 400);
    await send(forged(), 'stripe', 400);
    expect(of('signature_failures')).toHaveLength(start);
    await send(forged(), 'stripe', 400);
    expect(of('signature_failures')).toHaveLength(start + 1);
    expect(of('signature_failures')[start]).toMatchObject({
      endpoint: 'stripe',
      provider: 'stripe',
      failures: 3,
    });
    await send(forged(), 'stripe', 400);
    await send(forged(), 'stripe', 400);
    expect(of('signature_failures')).toHaveLength(start + 1);

    // Refusals on another endpoint are another run.
    for (let i = 0; i < 2; i += 1) {
      await send(forged(), 'quiet', 400);
    }
    expect(of('signature_failures')).toHaveLength(start + 1);

    await send(stripeDelivery());
    for (let i = 0; i < 3; i += 1) {
      await send(forged(), 'stripe', 400);
    }
    expect(of('signature_failures')).toHaveLength(start + 2);
  });

  it('observes events per payment and alerts once when a payment has too many', async () => {
    const paymentRef = `pi_storm_${process.pid}_${database}`;
    const before = await scrape(app);
    const stormFor = () =>
      alerts.filter(
        (alert) => alert.kind === 'payment_event_storm' && alert.paymentRef === paymentRef,
      );
    for (let i = 1; i <= 3; i += 1) {
      await send(stripeDelivery({ paymentRef }), 'storm');
    }
    const third = stripeDelivery({ paymentRef });
    // A re-delivery stores nothing new and counts nothing.
    await send(third, 'storm');
    await send(third, 'storm');
    await eventually(() => stormFor().length === 1);
    await send(stripeDelivery({ paymentRef, type: 'charge.refunded' }), 'storm');

    const labels = { endpoint: 'storm', provider: 'stripe' };
    await eventually(async () => {
      const text = await scrape(app);
      return (
        metricValue(text, 'payment_webhooks_events_per_payment_count', labels) -
          metricValue(before, 'payment_webhooks_events_per_payment_count', labels) ===
        5
      );
    });
    const after = await scrape(app);
    const sum =
      metricValue(after, 'payment_webhooks_events_per_payment_sum', labels) -
      metricValue(before, 'payment_webhooks_events_per_payment_sum', labels);
    expect(sum).toBe(1 + 2 + 3 + 4 + 5);
    expect(stormFor()).toHaveLength(1);
    expect(stormFor()[0]).toMatchObject({ endpoint: 'storm', events: 4, threshold: 3 });
    expect(after).not.toContain(paymentRef);
  });

  it('counts the events of a payment in one statement, with no transaction around it', async () => {
    const paymentRef = `pi_single_${process.pid}_${database}`;
    const before = await paymentsObserved();
    const logger = app.dataSource.logger;
    const logQuery = logger.logQuery.bind(logger);
    // NOTE: each statement with whether its connection was inside a transaction when it went
    // out: the dispatcher's handler transactions run meanwhile on other connections.
    const sent: { query: string; inTransaction: boolean }[] = [];
    logger.logQuery = (query, parameters, queryRunner) => {
      sent.push({ query, inTransaction: queryRunner?.isTransactionActive === true });
      return logQuery(query, parameters, queryRunner);
    };
    try {
      await send(stripeDelivery({ paymentRef }), 'storm');
      await eventually(async () => (await paymentsObserved()) === before + 1);
    } finally {
      logger.logQuery = logQuery;
    }
    const counts = sent.filter(({ query }) => query.includes('"payment_ref" IN'));
    expect(counts).toHaveLength(1);
    expect(counts[0].inTransaction).toBe(false);
  });

  it('alerts once for a payment whose events arrive all at once', async () => {
    const paymentRef = `pi_burst_${process.pid}_${database}`;
    const before = await paymentsObserved();
    await Promise.all(
      Array.from({ length: 6 }, () => send(stripeDelivery({ paymentRef }), 'storm')),
    );
    await eventually(async () => (await paymentsObserved()) - before === 6);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const storms = alerts.filter(
      (alert) => alert.kind === 'payment_event_storm' && alert.paymentRef === paymentRef,
    );
    expect(storms).toHaveLength(1);
  });

  it('alerts once per silence of an endpoint that expects deliveries, and again after the next silence', async () => {
    const silences = () => of('endpoint_silent').filter((alert) => alert.endpoint === 'quiet');
    await eventually(() => silences().length === 1);
    expect(silences()[0]).toMatchObject({
      provider: 'stripe',
      lastDeliveryAt: null,
      expectDeliveryWithinMs: QUIET_WITHIN_MS,
    });
    await new Promise((resolve) => setTimeout(resolve, 2 * QUIET_WITHIN_MS));
    expect(silences()).toHaveLength(1);

    await send(stripeDelivery({ secret: QUIET_SECRET }), 'quiet');
    const text = await scrape(app);
    expect(
      metricValue(text, 'payment_webhooks_last_delivery_age_seconds', { endpoint: 'quiet' }),
    ).toBeLessThan(QUIET_WITHIN_MS / 1000);
    await eventually(() => silences().length === 2);
    const second = silences()[1];
    expect(second.kind === 'endpoint_silent' && second.lastDeliveryAt).toBeInstanceOf(Date);
    expect(
      metricValue(await scrape(app), 'payment_webhooks_last_delivery_age_seconds', {
        endpoint: 'quiet',
      }),
    ).toBeGreaterThan(QUIET_WITHIN_MS / 1000);
  });
});

@Injectable()
class PendingHandler {
  @OnPaymentEvent('payment.succeeded')
  async onPayment(): Promise<void> {}
}

@Controller('health')
class HealthController {
  constructor(
    private readonly health: HealthCheckService,
    private readonly webhooks: WebhooksHealthIndicator,
  ) {}

  @Get()
  @HealthCheck()
  check() {
    return this.health.check([() => this.webhooks.isHealthy('webhooks')]);
  }
}

interface ObservedApp {
  app: INestApplication;
  url: string;
  dataSource: DataSource;
  close(): Promise<void>;
}

/**
 * Short, as the oldest pending event and the endpoint's silence must pass them before the
 * health goes down on them; long enough for the tests before that one to find it up.
 */
const MAX_OLDEST_PENDING_MS = 2000;
const STRIPE_WITHIN_MS = 2000;

/** An app with TerminusModule, a /health and a /metrics route, and no dispatcher. */
async function startObservedApp(database: Database): Promise<ObservedApp> {
  let testDatabase: TestDatabase | undefined;
  let typeorm: TypeOrmModuleOptions;
  if (database === 'postgres') {
    testDatabase = await createTestDatabase();
    typeorm = {
      type: 'postgres',
      url: testDatabase.url,
      autoLoadEntities: true,
      migrations: webhooksMigrations,
      migrationsRun: true,
    };
  } else {
    typeorm = {
      type: 'better-sqlite3',
      database: join(mkdtempSync(join(tmpdir(), 'pw-obs-')), 'inbox.sqlite'),
      autoLoadEntities: true,
      migrations: webhooksMigrations,
      migrationsRun: true,
    };
  }

  @Module({
    imports: [
      TypeOrmModule.forRoot(typeorm),
      TerminusModule.forRoot({ logger: false }),
      WebhooksModule.forRoot({
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { enabled: false },
        observability: {
          metrics: { registry: new Registry() },
          sampleCacheMs: 0,
          health: {
            maxPendingBacklog: 2,
            maxOldestPendingMs: MAX_OLDEST_PENDING_MS,
            maxDeadLetters: 0,
          },
          expectDeliveryWithinMs: { stripe: STRIPE_WITHIN_MS },
        },
      }),
    ],
    controllers: [HealthController, MetricsController],
    providers: [PendingHandler],
  })
  class ObservedAppModule {}

  const app = await NestFactory.create(ObservedAppModule, new ExpressAdapter(), {
    rawBody: true,
    logger: process.env.TEST_LOGS ? undefined : false,
  });
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return {
    app,
    url,
    dataSource: app.get<DataSource>(getDataSourceToken()),
    async close() {
      await app.close();
      await testDatabase?.drop();
    },
  };
}

describe.each<Database>(['sqlite', 'postgres'])('health on %s', (database) => {
  let app: ObservedApp;

  beforeAll(async () => {
    app = await startObservedApp(database);
  });

  afterAll(() => app?.close());

  async function health(): Promise<{ status: number; body: Record<string, unknown> }> {
    const response = await fetch(`${app.url}/health`);
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  }

  async function send(delivery = stripeDelivery()): Promise<void> {
    const response = await post(`${app.url}/webhooks/stripe`, delivery.body, delivery.headers);
    expect(response.status).toBe(200);
  }

  it('is up while the backlog is under its threshold', async () => {
    const indicator = app.app.get(WebhooksHealthIndicator);
    expect((await health()).status).toBe(200);
    await send();
    await send();
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body).toMatchObject({
      status: 'ok',
      info: { webhooks: { status: 'up', pendingBacklog: { value: 2, max: 2, ok: true } } },
    });
    expect((await indicator.checkHealth()).problems).toEqual([]);
  });

  it('goes down when the pending backlog crosses its threshold', async () => {
    await send();
    const { status, body } = await health();
    expect(status).toBe(503);
    expect(body).toMatchObject({
      status: 'error',
      error: { webhooks: { status: 'down', pendingBacklog: { value: 3, max: 2, ok: false } } },
    });
    const report = await app.app.get(WebhooksHealthIndicator).checkHealth();
    expect(report.status).toBe('down');
    expect(report.problems).toEqual([expect.stringContaining('3 events wait for their first run')]);
    const text = await scrape(app);
    expect(
      metricValue(text, 'payment_webhooks_inbox_depth', { endpoint: 'stripe', status: 'pending' }),
    ).toBe(3);
  });

  it('goes down when the oldest pending event or the endpoint waits too long', async () => {
    const indicator = app.app.get(WebhooksHealthIndicator);
    await eventually(
      async () => {
        const report = await indicator.checkHealth();
        return !report.oldestPendingAgeMs.ok && report.silentEndpoints.length === 1;
      },
      MAX_OLDEST_PENDING_MS + STRIPE_WITHIN_MS + 5000,
    );
    const report = await indicator.checkHealth();
    expect(report.oldestPendingAgeMs.value).toBeGreaterThan(MAX_OLDEST_PENDING_MS);
    expect(report.silentEndpoints[0]).toMatchObject({
      endpoint: 'stripe',
      expectDeliveryWithinMs: STRIPE_WITHIN_MS,
    });
    expect(report.silentEndpoints[0].lastDeliveryAt).toBeInstanceOf(Date);
    expect(report.problems).toEqual(
      expect.arrayContaining([
        expect.stringContaining('The oldest pending event has waited'),
        expect.stringContaining('Endpoint "stripe" has had no acknowledged delivery'),
      ]),
    );
    const text = await scrape(app);
    expect(
      metricValue(text, 'payment_webhooks_oldest_pending_age_seconds', { endpoint: 'stripe' }),
    ).toBeGreaterThan(MAX_OLDEST_PENDING_MS / 1000);
  });

  it('goes down when dead letters cross their threshold', async () => {
    const indicator = app.app.get(WebhooksHealthIndicator);
    expect((await indicator.checkHealth()).deadLetters).toEqual({ value: 0, max: 0, ok: true });
    const [event] = await app.app.get(WebhookAdmin).list({ status: 'pending', limit: 1 });
    expect(await app.app.get(WebhookAdmin).settle(event.id, 'dead', 'checked by hand')).toBe(true);
    const report = await indicator.checkHealth();
    expect(report.deadLetters).toEqual({ value: 1, max: 0, ok: false });
    expect(report.problems).toContainEqual(expect.stringContaining('1 events are dead'));
  });

  it('goes down when the database cannot be read', async () => {
    await app.dataSource.destroy();
    const { status, body } = await health();
    expect(status).toBe(503);
    expect(body).toMatchObject({
      error: { webhooks: { status: 'down', database: { up: false } } },
    });
    const text = await scrape(app);
    expect(metricValue(text, 'payment_webhooks_database_up')).toBe(0);
  });
});
