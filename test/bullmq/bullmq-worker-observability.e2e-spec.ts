import 'reflect-metadata';
import { createServer, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import { INestApplicationContext, Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import express from 'express';
import { Queue } from 'bullmq';
import { Registry } from 'prom-client';
import { DataSource } from 'typeorm';
import {
  stripeEndpoint,
  WebhooksHealthIndicator,
  WebhooksHealthReport,
  WebhooksMetrics,
  WebhooksModule,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import { createWebhooksRouter, webhookEntities } from 'nestjs-payment-webhooks/express';
import { post } from '../support/http';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { testHandlerDefinitions } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import {
  eventually,
  HandlerControl,
  startTestApp,
  TestApp,
  TestEffect,
  TestPaymentHandlers,
} from '../support/test-app';

const SECRET = 'whsec_bullmq_worker_observability';
const QUEUE = 'payment-webhooks';
const silent = { log: () => undefined, warn: () => undefined, error: () => undefined };

function connection() {
  const url = new URL(redisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}

/** One process of the deployment: Stripe, three attempts a few ms apart, the suite's queue. */
function processOptions(prefix: string, enabled: boolean): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: {
      enabled,
      pollIntervalMs: 50,
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
      transport: bullmqTransport({ connection: connection(), prefix }),
    },
    ...(enabled ? { observability: { metrics: { registry: new Registry() } } } : {}),
  };
}

/** A worker process with its observability server on `listen(0)`. */
interface ObservedWorker {
  readonly control: HandlerControl;
  readonly url: string;
  close(): Promise<void>;
}

function listening(server: Server): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    });
  });
}

function closed(server: Server): Promise<void> {
  return new Promise((resolve, reject) =>
    server.close((error) => (error ? reject(error) : resolve())),
  );
}

/**
 * The recipe of docs/bullmq.md ("Watching the workers"), Nest: `/health` and `/metrics` of an
 * application context, on a `node:http` server of their own.
 */
function observabilityServer(app: INestApplicationContext): Server {
  const health = app.get(WebhooksHealthIndicator);
  const metrics = app.get(WebhooksMetrics);
  return createServer((request, response) => {
    const answer = async () => {
      if (request.url === '/health') {
        const report = await health.checkHealth();
        response.writeHead(report.status === 'up' ? 200 : 503, {
          'content-type': 'application/json',
        });
        response.end(JSON.stringify(report));
      } else if (request.url === '/metrics') {
        const text = await metrics.metrics();
        response.writeHead(200, { 'content-type': metrics.contentType });
        response.end(text);
      } else {
        response.writeHead(404).end();
      }
    };
    answer().catch(() => response.writeHead(500).end());
  });
}

/** A worker-only Nest process: an application context on the shared inbox, no delivery route. */
async function nestWorker(databaseUrl: string, prefix: string): Promise<ObservedWorker> {
  const control = new HandlerControl();
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'postgres',
        url: databaseUrl,
        autoLoadEntities: true,
        entities: [TestEffect],
      }),
      WebhooksModule.forRoot(processOptions(prefix, true)),
    ],
    providers: [{ provide: HandlerControl, useValue: control }, TestPaymentHandlers],
  })
  class WorkerModule {}
  const app = await NestFactory.createApplicationContext(WorkerModule, {
    logger: process.env.TEST_LOGS ? undefined : false,
    abortOnError: false,
  });
  const server = observabilityServer(app);
  const url = await listening(server);
  return {
    control,
    url,
    async close() {
      await closed(server);
      await app.close();
    },
  };
}

/**
 * A worker-only plain Express process: a `createWebhooksRouter()` that is never mounted, its
 * `healthHandler` and `metricsHandler` on an app of their own.
 */
async function expressWorker(databaseUrl: string, prefix: string): Promise<ObservedWorker> {
  const control = new HandlerControl();
  const dataSource = new DataSource({
    type: 'postgres',
    url: databaseUrl,
    entities: [TestEffect, ...webhookEntities],
  });
  await dataSource.initialize();
  const webhooks = await createWebhooksRouter({
    ...processOptions(prefix, true),
    dataSource,
    handlers: testHandlerDefinitions(control),
    logger: silent,
  });
  const server = express()
    .get('/health', webhooks.healthHandler)
    .get('/metrics', webhooks.metricsHandler)
    .listen(0, '127.0.0.1');
  const url = await listening(server);
  return {
    control,
    url,
    async close() {
      await closed(server);
      await webhooks.stop();
      await dataSource.destroy();
    },
  };
}

/** The sum of the samples of `name` whose labels include `labels`, in a Prometheus text scrape. */
function sampleSum(scrape: string, name: string, labels: Record<string, string>): number {
  let sum = 0;
  let seen = false;
  for (const line of scrape.split('\n')) {
    const match = /^([a-z_]+)\{(.*)\} (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const has = Object.entries(labels).every(([key, value]) =>
      match[2].split(',').includes(`${key}="${value}"`),
    );
    if (has) {
      sum += Number(match[3]);
      seen = true;
    }
  }
  return seen ? sum : Number.NaN;
}

const WORKERS = {
  'a Nest application context': nestWorker,
  'an unmounted createWebhooksRouter()': expressWorker,
};

describe.each(Object.entries(WORKERS))(
  'a worker-only process (%s) serving /health and /metrics over BullMQ',
  (_, startWorker) => {
    const prefix = redisPrefix();
    let ingress: TestApp;
    let worker: ObservedWorker;
    let queue: Queue;

    beforeAll(async () => {
      ingress = await startTestApp({
        platform: 'express',
        database: 'postgres',
        webhooks: processOptions(prefix, false),
      });
      worker = await startWorker(ingress.databaseUrl!, prefix);
      queue = new Queue(QUEUE, { connection: connection(), prefix });
    });
    afterAll(async () => {
      await worker?.close();
      await ingress?.close();
      await queue?.close();
      await dropRedisPrefix(redisUrl(), prefix);
    });

    const statusOf = async (eventId: string) => {
      const rows = (await ingress.dataSource.query(
        'SELECT COALESCE(w.status, e.status) AS status FROM webhook_events e ' +
          'LEFT JOIN webhook_work w ON w.event_id = e.id WHERE e.event_id = $1',
        [eventId],
      )) as { status: string }[];
      return rows[0]?.status;
    };

    it('shows a handler failing three times as three failed jobs and three failed attempts; a failed job retried by hand runs nothing', async () => {
      const failing = signedStripeEvent(SECRET);
      const passing = signedStripeEvent(SECRET);
      worker.control.scripts.set(failing.id, { alwaysFail: true });
      for (const event of [failing, passing]) {
        expect(
          (await post(`${ingress.url}/webhooks/stripe`, event.body, event.headers)).status,
        ).toBe(200);
      }
      await eventually(async () => (await statusOf(failing.id)) === 'dead');
      await eventually(async () => (await statusOf(passing.id)) === 'processed');
      await eventually(async () => {
        const counts = await queue.getJobCounts('failed', 'completed');
        return counts.failed === 3 && counts.completed === 1;
      });

      let report: WebhooksHealthReport | undefined;
      await eventually(async () => {
        const answer = await fetch(`${worker.url}/health`);
        expect(answer.status).toBe(200);
        report = (await answer.json()) as WebhooksHealthReport;
        return report.transport?.counts?.failed === 3;
      });
      expect(report!.status).toBe('up');
      expect(report!.transport).toEqual({
        kind: 'bullmq',
        queue: QUEUE,
        up: true,
        counts: { waiting: 0, active: 0, delayed: 0, failed: 3, completed: 1 },
      });

      const answer = await fetch(`${worker.url}/metrics`);
      expect(answer.status).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
      const scrape = await answer.text();
      const metric = (name: string, labels: Record<string, string> = {}) =>
        sampleSum(scrape, `payment_webhooks_${name}`, labels);
      const stripe = { endpoint: 'stripe', provider: 'stripe' };
      expect(metric('queue_jobs', { queue: QUEUE, state: 'failed' })).toBe(3);
      expect(metric('queue_jobs', { queue: QUEUE, state: 'completed' })).toBe(1);
      expect(metric('queue_up', { queue: QUEUE })).toBe(1);
      expect(metric('events_settled_total', { ...stripe, status: 'retrying' })).toBe(2);
      expect(metric('events_settled_total', { ...stripe, status: 'dead' })).toBe(1);
      expect(metric('events_settled_total', { ...stripe, status: 'processed' })).toBe(1);
      expect(metric('handler_failures_total', stripe)).toBe(3);
      expect(metric('retries_total', stripe)).toBe(2);
      expect(metric('dead_letters_total', stripe)).toBe(1);
      expect(metric('queue_wait_seconds_count', { queue: QUEUE })).toBe(4);

      // NOTE: retried by hand from a dashboard, a failed job finds its event dead and runs nothing.
      const [failed] = await queue.getFailed();
      await failed.retry('failed');
      await eventually(async () => (await failed.getState()) === 'completed');
      expect((await queue.getJob(failed.id!))?.returnvalue).toBe('stale');
      expect(worker.control.calls.filter((call) => call.eventId === failing.id)).toHaveLength(3);
      expect(await statusOf(failing.id)).toBe('dead');
    });
  },
);
