import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  Inject,
  Injectable,
  INestApplicationContext,
  Module,
  OnModuleInit,
  Type,
} from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { ExpressAdapter } from '@nestjs/platform-express';
import { BullModule, getQueueToken, Processor, WorkerHost } from '@nestjs/bullmq';
import { TypeOrmModule } from '@nestjs/typeorm';
import { Job, Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookConfigurationError,
  WebhookDispatchOptions,
  WEBHOOKS_TRANSPORT,
  WebhooksHealthIndicator,
  WebhooksMetrics,
  webhooksMigrations,
  WebhooksModule,
  WebhooksModuleOptions,
  WebhookTransport,
} from 'nestjs-payment-webhooks';
import {
  bullmqTransport,
  BullmqTransportOptions,
  BullmqWebhookTransport,
  WEBHOOK_JOB_NAME,
  webhookJobId,
  WebhookJobResult,
} from 'nestjs-payment-webhooks/bullmq';
import {
  createWebhooksRouter,
  WebhookHandlerDefinition,
  webhookEntities,
} from 'nestjs-payment-webhooks/express';
import { post } from '../support/http';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { dropRedisPrefix, freePort, redisPrefix, redisUrl } from '../support/redis';
import { startRouterApp, testHandlerDefinitions } from '../support/router-app';
import { signedStripeEvent, SignedStripeEvent } from '../support/stripe-event';
import {
  eventually,
  HandlerControl,
  startTestApp,
  TestApp,
  TestEffect,
  TestPaymentHandlers,
} from '../support/test-app';

const SECRET = 'whsec_bullmq_processes_secret';
const QUEUE = 'payment-webhooks';
const JOB_STATES = ['waiting', 'active', 'delayed', 'completed', 'failed'] as const;
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };
const nestLogger = process.env.TEST_LOGS ? undefined : (false as const);

function connection() {
  const url = new URL(redisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}

interface ProcessOptions {
  /** Options of `bullmqTransport()` besides the connection and the suite's prefix. */
  transport?: Omit<BullmqTransportOptions, 'connection' | 'queue' | 'prefix'>;
  dispatch?: Omit<WebhookDispatchOptions, 'transport'>;
  orderPerPayment?: boolean;
  observability?: WebhooksModuleOptions['observability'];
}

/** The options of one process of a deployment: Stripe, and the BullMQ transport on `prefix`. */
function processOptions(prefix: string, options: ProcessOptions = {}): WebhooksModuleOptions {
  return {
    endpoints: [
      stripeEndpoint({ name: 'stripe', secret: SECRET, orderPerPayment: options.orderPerPayment }),
    ],
    dispatch: {
      pollIntervalMs: 50,
      ...options.dispatch,
      transport: bullmqTransport({ connection: connection(), prefix, ...options.transport }),
    },
    ...(options.observability ? { observability: options.observability } : {}),
  };
}

/** The TypeORM options of a process on the deployment's database, migrated by its ingress. */
function sharedDatabase(url: string) {
  return {
    type: 'postgres' as const,
    url,
    autoLoadEntities: true,
    entities: [TestEffect],
  };
}

interface NestWorker {
  readonly app: INestApplicationContext;
  readonly control: HandlerControl;
}

/** A worker-only Nest process: an application context, no HTTP server, on the shared inbox. */
async function startNestWorker(
  databaseUrl: string,
  webhooks: WebhooksModuleOptions,
  handlers: Type<unknown>[] = [TestPaymentHandlers],
): Promise<NestWorker> {
  const control = new HandlerControl();
  @Module({
    imports: [TypeOrmModule.forRoot(sharedDatabase(databaseUrl)), WebhooksModule.forRoot(webhooks)],
    providers: [{ provide: HandlerControl, useValue: control }, ...handlers],
  })
  class WorkerModule {}
  const app = await NestFactory.createApplicationContext(WorkerModule, {
    logger: nestLogger,
    abortOnError: false,
  });
  return { app, control };
}

/** POSTs each event to the app's Stripe endpoint at once; every answer must be 200. */
async function deliver(url: string, events: readonly SignedStripeEvent[]): Promise<void> {
  const answers = await Promise.all(
    events.map((event) => post(`${url}/webhooks/stripe`, event.body, event.headers)),
  );
  expect(answers.map((answer) => answer.status)).toEqual(events.map(() => 200));
}

function freshEvents(count: number): SignedStripeEvent[] {
  return Array.from({ length: count }, () => signedStripeEvent(SECRET));
}

function idsOf(events: readonly SignedStripeEvent[]): string[] {
  return events.map((event) => event.id).sort();
}

interface InboxRow {
  id: string;
  event_id: string;
  status: string;
  attempts: number;
}

function inboxRows(dataSource: DataSource, events: readonly SignedStripeEvent[]) {
  return dataSource.query(
    'SELECT e.id, e.event_id, COALESCE(w.status, e.status) AS status, ' +
      'COALESCE(w.attempts, e.attempts) AS attempts FROM webhook_events e ' +
      'LEFT JOIN webhook_work w ON w.event_id = e.id WHERE e.event_id = ANY($1) ORDER BY e.event_id',
    [idsOf(events)],
  ) as Promise<InboxRow[]>;
}

async function effectsOf(dataSource: DataSource, events: readonly SignedStripeEvent[]) {
  const [{ count }] = (await dataSource.query(
    'SELECT count(*)::int AS count FROM test_effects WHERE "eventId" = ANY($1)',
    [idsOf(events)],
  )) as { count: number }[];
  return count;
}

function allProcessed(dataSource: DataSource, events: readonly SignedStripeEvent[]) {
  return async () => {
    const rows = await inboxRows(dataSource, events);
    return rows.length === events.length && rows.every((row) => row.status === 'processed');
  };
}

/** The jobs of the queue (any state) that carry one of these inbox rows. */
async function jobsOf(queue: Queue, rows: readonly InboxRow[]): Promise<Job[]> {
  const ids = new Set(rows.map((row) => row.id));
  return (await queue.getJobs([...JOB_STATES])).filter((job) => ids.has(job.data.event));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

describe('an ingress-only process and worker-only processes on one inbox and one queue', () => {
  const prefix = redisPrefix();
  let ingress: TestApp;
  let queue: Queue;

  beforeAll(async () => {
    ingress = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: processOptions(prefix, { dispatch: { enabled: false } }),
    });
    queue = new Queue(QUEUE, { connection: connection(), prefix });
  });
  afterAll(async () => {
    await ingress?.close();
    await queue?.close();
    await dropRedisPrefix(redisUrl(), prefix);
  });

  it('stores and answers with no worker running, queues nothing, then a Nest application context processes each event once', async () => {
    const events = freshEvents(5);
    await deliver(ingress.url, events);
    // NOTE: ten poll intervals: a relay or worker in the ingress process would have moved them.
    await sleep(500);
    expect((await inboxRows(ingress.dataSource, events)).map((row) => row.status)).toEqual(
      Array(5).fill('pending'),
    );
    expect(await queue.getJobCounts(...JOB_STATES)).toEqual({
      waiting: 0,
      active: 0,
      delayed: 0,
      completed: 0,
      failed: 0,
    });
    expect(await effectsOf(ingress.dataSource, events)).toBe(0);

    const worker = await startNestWorker(ingress.databaseUrl!, processOptions(prefix));
    try {
      await eventually(allProcessed(ingress.dataSource, events));
      expect(await effectsOf(ingress.dataSource, events)).toBe(5);
      expect(worker.control.calls.map((call) => call.eventId).sort()).toEqual(idsOf(events));
      const rows = await inboxRows(ingress.dataSource, events);
      expect(rows.map((row) => row.attempts)).toEqual(Array(5).fill(1));
      await eventually(async () => {
        const jobs = await jobsOf(queue, rows);
        const states = await Promise.all(jobs.map((job) => job.getState()));
        return jobs.length === 5 && states.every((state) => state === 'completed');
      });
    } finally {
      await worker.app.close();
    }
  });

  it('has an unmounted createWebhooksRouter() as the worker-only process of a plain Express deployment', async () => {
    const events = freshEvents(5);
    await deliver(ingress.url, events);
    const control = new HandlerControl();
    const dataSource = new DataSource({
      type: 'postgres',
      url: ingress.databaseUrl,
      entities: [TestEffect, ...webhookEntities],
    });
    await dataSource.initialize();
    const router = await createWebhooksRouter({
      ...processOptions(prefix),
      dataSource,
      handlers: testHandlerDefinitions(control),
      logger: silent,
    });
    try {
      await eventually(allProcessed(ingress.dataSource, events));
      expect(await effectsOf(ingress.dataSource, events)).toBe(5);
      expect(control.calls.map((call) => call.eventId).sort()).toEqual(idsOf(events));
    } finally {
      await router.stop();
      await dataSource.destroy();
    }
  });

  it('shares 40 events between two worker-only processes, each event processed once', async () => {
    const options = () => processOptions(prefix, { transport: { concurrency: 2 } });
    const workers = await Promise.all([
      startNestWorker(ingress.databaseUrl!, options()),
      startNestWorker(ingress.databaseUrl!, options()),
    ]);
    try {
      const events = freshEvents(40);
      // NOTE: each handler takes a while, so one process cannot drain the queue alone.
      for (const { control } of workers) {
        events.forEach((event) => control.scripts.set(event.id, { delayMs: 25 }));
      }
      await deliver(ingress.url, events);
      await eventually(allProcessed(ingress.dataSource, events), 20_000);
      const [first, second] = workers.map(({ control }) => control.calls.map((c) => c.eventId));
      expect([...first, ...second].sort()).toEqual(idsOf(events));
      expect(first.length).toBeGreaterThan(0);
      expect(second.length).toBeGreaterThan(0);
      expect(await effectsOf(ingress.dataSource, events)).toBe(40);
      const rows = await inboxRows(ingress.dataSource, events);
      expect(rows.filter((row) => row.attempts !== 1)).toEqual([]);
    } finally {
      await Promise.all(workers.map(({ app }) => app.close()));
    }
  });
});

interface TimedRun {
  eventId: string;
  start: number;
  end: number;
}

/** Records when each event's handler ran; each run takes a while, so overlaps would show. */
@Injectable()
class TimedHandlers {
  static runs: TimedRun[] = [];

  @OnPaymentEvent('*')
  async onAny(event: PaymentEvent): Promise<void> {
    const start = Date.now();
    await sleep(60);
    TimedHandlers.runs.push({ eventId: event.eventId, start, end: Date.now() });
  }
}

describe('per-payment ordering with two worker-only processes', () => {
  const prefix = redisPrefix();
  let ingress: TestApp;

  beforeAll(async () => {
    // NOTE: the ingress stores an event nobody there handles as ignored, so it registers the
    // handlers the workers run, as every process of one app does.
    ingress = await startTestApp({
      platform: 'express',
      database: 'postgres',
      handlers: [TimedHandlers],
      webhooks: processOptions(prefix, { orderPerPayment: true, dispatch: { enabled: false } }),
    });
  });
  afterAll(async () => {
    await ingress?.close();
    await dropRedisPrefix(redisUrl(), prefix);
  });

  it('runs one payment’s events one at a time in the order they happened', async () => {
    TimedHandlers.runs = [];
    const paymentId = `pi_ordered_${Date.now().toString(36)}`;
    const base = Math.floor(Date.now() / 1000);
    const types = ['created', 'requires_action', 'processing', 'succeeded'];
    const inOrder = types.map((type, index) =>
      signedStripeEvent(SECRET, {
        type: `payment_intent.${type}`,
        paymentId,
        created: base + index,
      }),
    );
    // NOTE: delivered newest first, one after another, so arrival order is the reverse.
    for (const event of [...inOrder].reverse()) {
      await deliver(ingress.url, [event]);
    }
    const options = () => processOptions(prefix, { orderPerPayment: true });
    const workers = await Promise.all([
      startNestWorker(ingress.databaseUrl!, options(), [TimedHandlers]),
      startNestWorker(ingress.databaseUrl!, options(), [TimedHandlers]),
    ]);
    try {
      await eventually(allProcessed(ingress.dataSource, inOrder));
      const runs = [...TimedHandlers.runs].sort((a, b) => a.start - b.start);
      expect(runs.map((run) => run.eventId)).toEqual(inOrder.map((event) => event.id));
      const overlapping = runs.filter((run, i) => i > 0 && run.start < runs[i - 1].end);
      expect(overlapping).toEqual([]);
    } finally {
      await Promise.all(workers.map(({ app }) => app.close()));
    }
  });
});

/** A `@nestjs/bullmq` processor of the webhook queue, as an app that already runs BullMQ writes it. */
@Processor(QUEUE)
class WebhookJobsProcessor extends WorkerHost {
  constructor(@Inject(WEBHOOKS_TRANSPORT) private readonly transport: BullmqWebhookTransport) {
    super();
  }

  process(job: Job): Promise<WebhookJobResult> {
    return this.transport.process(job);
  }
}

/** A module of the app that does I/O while the app initializes (a warm-up, a connection). */
@Module({})
class WarmUpModule implements OnModuleInit {
  async onModuleInit(): Promise<void> {
    await sleep(300);
  }
}

describe('the BullMQ transport with @nestjs/bullmq conventions', () => {
  const prefix = redisPrefix();
  let database: TestDatabase;
  let queue: Queue;

  /** An app with `BullModule`, the queue injected into forRootAsync, and a `WorkerHost`. */
  async function startBullApp(
    control: HandlerControl,
    options: { warmUp?: boolean; dispatchEnabled?: boolean } = {},
  ) {
    @Module({
      imports: [
        ...(options.warmUp ? [WarmUpModule] : []),
        TypeOrmModule.forRoot({
          ...sharedDatabase(database.url),
          migrations: webhooksMigrations,
          migrationsRun: true,
        }),
        BullModule.forRoot({ connection: connection(), prefix }),
        BullModule.registerQueue({ name: QUEUE }),
        WebhooksModule.forRootAsync({
          imports: [BullModule.registerQueue({ name: QUEUE })],
          inject: [getQueueToken(QUEUE)],
          useFactory: (bullQueue: Queue) => ({
            endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
            dispatch: {
              enabled: options.dispatchEnabled ?? true,
              pollIntervalMs: 50,
              // NOTE: a failed attempt's retry falls due at once, not after 5 s.
              retry: { baseDelayMs: 50, maxDelayMs: 50 },
              transport: bullmqTransport({ queue: bullQueue, worker: false }),
            },
          }),
        }),
      ],
      providers: [
        { provide: HandlerControl, useValue: control },
        TestPaymentHandlers,
        WebhookJobsProcessor,
      ],
    })
    class BullAppModule {}
    const app = await NestFactory.create(BullAppModule, new ExpressAdapter(), {
      rawBody: true,
      logger: nestLogger,
      abortOnError: false,
    });
    const dataSource = app.get(DataSource);
    await dataSource.query(
      'CREATE TABLE IF NOT EXISTS test_effects (id serial PRIMARY KEY, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)',
    );
    await app.listen(0, '127.0.0.1');
    const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
    return { app, url, dataSource };
  }

  beforeAll(async () => {
    database = await createTestDatabase();
    queue = new Queue(QUEUE, { connection: connection(), prefix });
  });
  afterAll(async () => {
    await queue?.close();
    await database?.drop();
    await dropRedisPrefix(redisUrl(), prefix);
  });

  it('processes each delivery once through a WorkerHost that calls the injected transport', async () => {
    const control = new HandlerControl();
    const t = await startBullApp(control);
    try {
      expect(t.app.get(WEBHOOKS_TRANSPORT)).toBeInstanceOf(BullmqWebhookTransport);
      const events = freshEvents(5);
      await deliver(t.url, events);
      await eventually(allProcessed(t.dataSource, events));
      expect(await effectsOf(t.dataSource, events)).toBe(5);
      expect(control.calls.map((call) => call.eventId).sort()).toEqual(idsOf(events));
      const rows = await inboxRows(t.dataSource, events);
      await eventually(async () => {
        const jobs = await jobsOf(queue, rows);
        return jobs.length === 5 && jobs.every((job) => job.returnvalue === 'processed');
      });

      // NOTE: a job run twice (a stalled job, a failover) finds the event settled.
      const [again] = await jobsOf(queue, rows.slice(0, 1));
      const transport = t.app.get<BullmqWebhookTransport>(WEBHOOKS_TRANSPORT);
      expect(await transport.process(again)).toBe('stale');
      expect(await effectsOf(t.dataSource, events)).toBe(5);
    } finally {
      await t.app.close();
    }
  });

  it('fails the job of a failed attempt through the WorkerHost, and completes the next attempt as a job of its own', async () => {
    const control = new HandlerControl();
    const t = await startBullApp(control);
    try {
      const events = freshEvents(1);
      control.scripts.set(events[0].id, { failTimes: 1 });
      await deliver(t.url, events);
      await eventually(allProcessed(t.dataSource, events));
      const rows = await inboxRows(t.dataSource, events);
      expect(rows[0].attempts).toBe(2);
      expect(await effectsOf(t.dataSource, events)).toBe(1);
      await eventually(async () => {
        const states = await Promise.all((await jobsOf(queue, rows)).map((job) => job.getState()));
        return states.sort().join() === 'completed,failed';
      });
      const [first, second] = (await jobsOf(queue, rows)).sort(
        (a, b) => a.data.attempt - b.data.attempt,
      );
      expect(first.failedReason).toMatch(
        new RegExp(
          `^Event ${rows[0].id} \\(stripe/${events[0].id}\\) attempt 1 failed: ` +
            '.*handler failure on attempt 1; retrying at \\d{4}-[^ ]+Z$',
        ),
      );
      expect([first.attemptsMade, second.attemptsMade]).toEqual([1, 1]);
      expect(second.returnvalue).toBe('processed');
    } finally {
      await t.app.close();
    }
  });

  it('runs the jobs that waited in Redis while no WorkerHost ran with its handlers, though another module initializes slowly', async () => {
    // NOTE: a relay-only process queues the jobs; the WorkerHost app boots afterwards, and its
    // BullMQ worker starts while the app's modules still initialize.
    const relay = await startRouterApp({
      database: 'postgres',
      databaseUrl: database.url,
      webhooks: processOptions(prefix, { transport: { worker: false } }),
    });
    const events = freshEvents(3);
    let rows: InboxRow[];
    try {
      await deliver(relay.url, events);
      await eventually(
        async () => (await jobsOf(queue, await inboxRows(relay.dataSource, events))).length === 3,
      );
      rows = await inboxRows(relay.dataSource, events);
      expect(rows.map((row) => row.status)).toEqual(Array(3).fill('processing'));
    } finally {
      await relay.stop();
    }
    const control = new HandlerControl();
    const t = await startBullApp(control, { warmUp: true });
    try {
      await eventually(allProcessed(t.dataSource, events));
      expect(await effectsOf(t.dataSource, events)).toBe(3);
      expect(control.calls.map((call) => call.eventId).sort()).toEqual(idsOf(events));
    } finally {
      await t.app.close();
    }
  });

  it('fails the jobs a WorkerHost gets in a process with dispatch off, and keeps their events', async () => {
    const control = new HandlerControl();
    const t = await startBullApp(control, { dispatchEnabled: false });
    try {
      const events = freshEvents(1);
      await deliver(t.url, events);
      const [row] = await inboxRows(t.dataSource, events);
      // NOTE: added as a relay of another process would; this one relays nothing.
      const job = await queue.add(
        WEBHOOK_JOB_NAME,
        { event: row.id, attempt: 1 },
        { jobId: webhookJobId(row.id, 1, null), attempts: 1 },
      );
      await eventually(async () => (await job.getState()) === 'failed');
      const failed = await Job.fromId(queue, job.id!);
      expect(failed?.failedReason).toMatch(/`dispatch.enabled: false`/);
      expect((await inboxRows(t.dataSource, events)).map((r) => r.status)).toEqual(['pending']);
      expect(await effectsOf(t.dataSource, events)).toBe(0);
      expect(control.calls).toEqual([]);
    } finally {
      await t.app.close();
    }
  });
});

/** A function handler that takes `delayMs` and records how many of its runs overlapped. */
function measuredHandler(delayMs: number) {
  const seen = { running: 0, maxRunning: 0, starts: [] as number[] };
  const handler: WebhookHandlerDefinition = {
    on: 'payment.succeeded',
    name: 'measured',
    handle: async () => {
      seen.starts.push(Date.now());
      seen.running += 1;
      seen.maxRunning = Math.max(seen.maxRunning, seen.running);
      await sleep(delayMs);
      seen.running -= 1;
    },
  };
  return { seen, handler };
}

describe('the worker options concurrency and limiter', () => {
  const prefix = redisPrefix();
  afterAll(() => dropRedisPrefix(redisUrl(), prefix));

  async function run(transport: ProcessOptions['transport'], count: number, delayMs: number) {
    const { seen, handler } = measuredHandler(delayMs);
    // NOTE: each case on a queue of its own, so no other case's worker takes its jobs.
    const queueName = `payment-webhooks-${Math.random().toString(36).slice(2, 8)}`;
    const t = await startRouterApp({
      database: 'postgres',
      handlers: [handler],
      webhooks: processOptions(prefix, {
        dispatch: { concurrency: 8 },
        transport: { queueName, ...transport },
      }),
    });
    try {
      const events = freshEvents(count);
      await deliver(t.url, events);
      await eventually(allProcessed(t.dataSource, events), 20_000);
      return seen;
    } finally {
      await t.close();
    }
  }

  it('runs one handler at a time with concurrency: 1, whatever dispatch.concurrency says', async () => {
    const one = await run({ concurrency: 1 }, 5, 100);
    expect(one.starts).toHaveLength(5);
    expect(one.maxRunning).toBe(1);
    // NOTE: the same handlers overlap with a wider worker, so the measure above can tell.
    const four = await run({ concurrency: 4 }, 5, 100);
    expect(four.maxRunning).toBeGreaterThan(1);
  });

  it('spreads 6 jobs over at least two seconds with limiter { max: 2, duration: 1000 }', async () => {
    const limited = await run({ limiter: { max: 2, duration: 1000 } }, 6, 10);
    const starts = [...limited.starts].sort((a, b) => a - b);
    expect(starts).toHaveLength(6);
    // NOTE: two per window of 1000 ms: the fifth and sixth start two windows after the first.
    // The window opens when BullMQ hands out the first job, a little before its handler starts.
    expect(starts[5] - starts[0]).toBeGreaterThanOrEqual(1800);
  });
});

describe('queue health and metrics', () => {
  const prefix = redisPrefix();
  afterAll(() => dropRedisPrefix(redisUrl(), prefix));

  it('reports the queue up with its counts, and scrapes the jobs and their wait', async () => {
    const t = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: processOptions(prefix, {
        observability: { metrics: { registry: new Registry() } },
      }),
    });
    const queue = new Queue(QUEUE, { connection: connection(), prefix });
    try {
      const events = freshEvents(3);
      await deliver(t.url, events);
      await eventually(allProcessed(t.dataSource, events));
      await eventually(async () => (await queue.getJobCounts('completed')).completed === 3);

      const health = await t.app.get(WebhooksHealthIndicator).checkHealth();
      expect(health.status).toBe('up');
      expect(health.transport).toEqual({
        kind: 'bullmq',
        queue: QUEUE,
        up: true,
        counts: { waiting: 0, active: 0, delayed: 0, failed: 0, completed: 3 },
      });

      const scrape = await t.app.get(WebhooksMetrics).metrics();
      expect(scrape).toContain(`payment_webhooks_queue_jobs{queue="${QUEUE}",state="completed"} 3`);
      expect(scrape).toContain(`payment_webhooks_queue_jobs{queue="${QUEUE}",state="failed"} 0`);
      expect(scrape).toContain(`payment_webhooks_queue_up{queue="${QUEUE}"} 1`);
      expect(scrape).toContain(`payment_webhooks_queue_wait_seconds_count{queue="${QUEUE}"} 3`);
    } finally {
      await queue.close();
      await t.close();
    }
  });

  it('starts, answers and stores while no Redis listens, reports the queue down, and shuts down', async () => {
    const port = await freePort();
    const t = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 50,
          shutdownTimeoutMs: 500,
          transport: bullmqTransport({
            connection: { host: '127.0.0.1', port, maxRetriesPerRequest: null },
          }),
        },
        observability: { metrics: { registry: new Registry() } },
      },
    });
    try {
      const events = freshEvents(2);
      await deliver(t.url, events);
      expect(await inboxRows(t.dataSource, events)).toHaveLength(2);
      expect(await effectsOf(t.dataSource, events)).toBe(0);

      const health = await t.app.get(WebhooksHealthIndicator).checkHealth();
      expect(health.status).toBe('down');
      expect(health.transport).toMatchObject({ kind: 'bullmq', queue: QUEUE, up: false });
      expect(health.problems).toEqual(
        expect.arrayContaining([
          expect.stringContaining(`The bullmq queue "${QUEUE}" cannot be reached`),
        ]),
      );
      const scrape = await t.app.get(WebhooksMetrics).metrics();
      expect(scrape).toContain(`payment_webhooks_queue_up{queue="${QUEUE}"} 0`);
    } finally {
      // NOTE: a deploy during a Redis outage must not hang; jest's timeout fails it if it does.
      await t.close();
    }
  });
});

describe('stopping a worker process', () => {
  const prefix = redisPrefix();
  afterAll(() => dropRedisPrefix(redisUrl(), prefix));

  it('stops within dispatch.shutdownTimeoutMs while a handler still runs, and gives its event back', async () => {
    const { seen, handler } = measuredHandler(3000);
    const t = await startRouterApp({
      database: 'postgres',
      handlers: [handler],
      webhooks: processOptions(prefix, { dispatch: { shutdownTimeoutMs: 300 } }),
    });
    try {
      const events = freshEvents(1);
      await deliver(t.url, events);
      await eventually(() => seen.running === 1);
      const stopping = Date.now();
      await t.router.stop();
      // NOTE: the handler needs 3 s; the deadline is 300 ms, and what is left of it goes back.
      expect(Date.now() - stopping).toBeLessThan(2000);
      const [row] = await inboxRows(t.dataSource, events);
      expect(row.status).not.toBe('processing');
    } finally {
      await t.close();
    }
  });
});

describe('bullmqTransport() options refused at startup', () => {
  /** Boots a Nest app whose forRootAsync factory builds these options; what startup threw. */
  async function startupError(factory: () => WebhooksModuleOptions): Promise<unknown> {
    const file = join(mkdtempSync(join(tmpdir(), 'pw-bullmq-options-')), 'inbox.sqlite');
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: file,
          autoLoadEntities: true,
          migrations: webhooksMigrations,
          migrationsRun: true,
        }),
        WebhooksModule.forRootAsync({ useFactory: factory }),
      ],
    })
    class OptionsModule {}
    try {
      const app = await NestFactory.create(OptionsModule, new ExpressAdapter(), {
        rawBody: true,
        logger: false,
        abortOnError: false,
      });
      await app.close();
      return undefined;
    } catch (error) {
      return error;
    }
  }

  const withTransport = (transport: () => WebhookTransport) => () => ({
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: { transport: transport() },
  });

  let queue: Queue;
  beforeAll(() => {
    queue = new Queue(QUEUE, { connection: connection(), prefix: redisPrefix() });
  });
  afterAll(() => queue?.close());

  it.each<[string, () => WebhookTransport, RegExp[]]>([
    [
      'neither connection nor queue',
      () => bullmqTransport({}),
      [/`connection`/, /`queue`/, /getQueueToken/],
    ],
    [
      'both connection and queue',
      () => bullmqTransport({ connection: connection(), queue }),
      [/`connection` or `queue`, not both/],
    ],
    [
      'a queue name with ":"',
      () => bullmqTransport({ connection: connection(), queueName: 'a:b' }),
      [/`queueName`/, /without ":"/, /"a:b"/],
    ],
    [
      'a limiter of max 0',
      () => bullmqTransport({ connection: connection(), limiter: { max: 0, duration: 1 } }),
      [/`limiter`/, /positive integers/],
    ],
    [
      'concurrency 0',
      () => bullmqTransport({ connection: connection(), concurrency: 0 }),
      [/`concurrency`/, /a positive integer/, /got 0/],
    ],
    [
      'a SQLite inbox',
      () => bullmqTransport({ connection: connection() }),
      [/PostgreSQL/, /leave `dispatch.transport` out/],
    ],
    [
      'a transport not made by a factory',
      () => ({}) as WebhookTransport,
      [/`dispatch.transport`/, /bullmqTransport\(\) from nestjs-payment-webhooks\/bullmq/],
    ],
  ])('refuses %s with a message naming the fix', async (_case, transport, words) => {
    const error = await startupError(withTransport(transport));
    expect(error).toBeInstanceOf(WebhookConfigurationError);
    for (const word of words) {
      expect((error as Error).message).toMatch(word);
    }
  });
});
