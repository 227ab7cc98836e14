'use strict';
/**
 * What the workers benchmark (`bench/workers.js`) runs through the built package (`dist/`):
 * the inbox's data source, one function handler writing one effect row through `ctx.manager`
 * (optionally sleeping inside its transaction), and the router options of an ingress-only
 * filler and of a worker process on the in-process or the BullMQ transport. The filler and the
 * workers build their handlers here, so events are stored `pending` for exactly the handler
 * that later runs them.
 */
const { join } = require('node:path');
const { DataSource } = require('typeorm');
const { BENCH_STRIPE_SECRET } = require('./events');

const ROOT = join(__dirname, '..', '..');

/** The built package's entries, loaded on first use (after the runner built `dist/`). */
const express = () => require(join(ROOT, 'dist', 'express'));
const bullmq = () => require(join(ROOT, 'dist', 'bullmq'));

/** The handler's own table: one row per handler run that committed. */
const EFFECTS_TABLE_SQL =
  'CREATE TABLE IF NOT EXISTS bench_effects (id bigserial PRIMARY KEY, event_id varchar(36) NOT NULL)';

/** The BullMQ queue every worker process of a run shares (under the run's own prefix). */
const QUEUE_NAME = 'payment-webhooks';

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The inbox's TypeORM data source on PostgreSQL, initialized.
 * @param {{ url: string, poolSize: number, migrate?: boolean }} options `migrate` runs the
 * package's migrations and creates the effects table (once per database, before any worker).
 */
async function openInbox({ url, poolSize, migrate = false }) {
  const { webhookEntities, webhooksMigrations } = express();
  const dataSource = new DataSource({
    type: 'postgres',
    url,
    poolSize,
    entities: webhookEntities,
    migrations: webhooksMigrations,
    synchronize: false,
  });
  await dataSource.initialize();
  if (migrate) {
    await dataSource.runMigrations();
    await dataSource.query(EFFECTS_TABLE_SQL);
  }
  return dataSource;
}

/**
 * The one handler: an effect row through the transaction's manager, then `handlerMs` of sleep
 * inside the same transaction (a slow downstream call holding its connection).
 * @param {number} handlerMs
 */
function drainHandlers(handlerMs) {
  return [
    {
      on: 'payment.failed',
      name: 'bench-effect',
      handle: async (event, ctx) => {
        await ctx.manager.query('INSERT INTO bench_effects (event_id) VALUES ($1)', [event.id]);
        if (handlerMs > 0) await sleep(handlerMs);
      },
    },
  ];
}

/** Warnings and errors to stderr (the process's log file); routine lines dropped. */
const quietLogger = {
  log: () => undefined,
  warn: (message) => console.error(message),
  error: (message) => console.error(message),
};

/**
 * Options of `createWebhooksRouter()` for the benchmark.
 * @param {{ dataSource: object, handlerMs: number, dispatch: object, autoStart?: boolean }} options
 */
function routerOptions({ dataSource, handlerMs, dispatch, autoStart = false }) {
  const { stripeEndpoint } = express();
  return {
    dataSource,
    endpoints: [stripeEndpoint({ name: 'stripe', secret: BENCH_STRIPE_SECRET })],
    handlers: drainHandlers(handlerMs),
    logger: quietLogger,
    dispatch,
    autoStart,
  };
}

/**
 * The `dispatch` options of a worker process.
 * @param {{ transport: 'in-process' | 'bullmq', concurrency: number, redisUrl?: string, prefix?: string }} options
 */
function workerDispatch({ transport, concurrency, redisUrl, prefix }) {
  if (transport === 'in-process') return { concurrency };
  const url = new URL(redisUrl);
  return {
    concurrency,
    transport: bullmq().bullmqTransport({
      connection: { host: url.hostname, port: Number(url.port || 6379) },
      prefix,
      queueName: QUEUE_NAME,
    }),
  };
}

module.exports = {
  ROOT,
  QUEUE_NAME,
  express,
  openInbox,
  drainHandlers,
  routerOptions,
  workerDispatch,
};
