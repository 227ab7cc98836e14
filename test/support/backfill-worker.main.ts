/**
 * An instance of the app after a handler was added to it, for a spec to SIGKILL in the middle of
 * a backfill: the package's engine (its worker and its backfill runner, no HTTP) on the spec's
 * PostgreSQL inbox (DATABASE_URL) or SQLite file (SQLITE_FILE), with the handler the app always
 * had, `TestPaymentHandlers.onPayment` (a `payments` row in `test_effects`), and the one added
 * later, `AnalyticsSink.onEvent`. The latter writes an `analytics` row through `ctx.manager`,
 * which commits with its ledger row, and first appends the event's id to ATTEMPTS_FILE, outside
 * the transaction: a line without its row is a run the kill cut short. Backfills are leased for
 * LEASE_MS and looked for every POLL_MS, so that the process started again after the kill
 * carries the backfill on without waiting the default 30 s. Prints `ready` once started.
 * Compiled and started by `worker-process.ts`.
 *
 * Environment: DATABASE_URL or SQLITE_FILE, STRIPE_SECRET, ATTEMPTS_FILE, LEASE_MS, POLL_MS.
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  PaymentEvent,
  PaymentEventPattern,
  stripeEndpoint,
  WebhookContext,
  webhookEntities,
  WebhookHandlerDefinition,
} from 'nestjs-payment-webhooks/express';
import type { WebhooksEngine } from './internals';

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

/** A handler that writes a `test_effects` row named `effect` through `ctx.manager`. */
function effect(
  name: string,
  on: PaymentEventPattern[],
  effectName: string,
  before?: (event: PaymentEvent) => void,
): WebhookHandlerDefinition {
  return {
    on,
    name,
    async handle(event: PaymentEvent, ctx: WebhookContext) {
      before?.(event);
      await ctx.manager
        .createQueryBuilder()
        .insert()
        .into('test_effects', ['eventId', 'handler', 'merchantRef'])
        .values({ eventId: event.eventId, handler: effectName, merchantRef: event.merchantRef })
        .execute();
    },
  };
}

async function main(): Promise<void> {
  const attempts = setting('ATTEMPTS_FILE');
  const dataSource = process.env.DATABASE_URL
    ? new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, entities: webhookEntities })
    : new DataSource({
        type: 'better-sqlite3',
        database: setting('SQLITE_FILE'),
        entities: webhookEntities,
      });
  await dataSource.initialize();
  // NOTE: the engine is not public: it is the built package's own file, reached by its path (the
  // process runs in the package's root), for `backfillSettings`, which no option sets.
  const engines = (await import(join(process.cwd(), 'dist', 'engine', 'webhooks-engine.js'))) as {
    WebhooksEngine: typeof WebhooksEngine;
  };
  const engine = await engines.WebhooksEngine.create({
    options: {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: setting('STRIPE_SECRET') })],
      dispatch: { pollIntervalMs: 100 },
    },
    dataSource,
    backfillSettings: {
      leaseMs: Number(setting('LEASE_MS')),
      pollMs: Number(setting('POLL_MS')),
    },
  });
  engine.registry.register(
    effect(
      'TestPaymentHandlers.onPayment',
      ['payment.succeeded', 'payment.canceled', 'payment.failed'],
      'payments',
    ),
  );
  engine.registry.register(
    effect('AnalyticsSink.onEvent', ['payment.succeeded'], 'analytics', (event) =>
      // NOTE: synchronous: the line is in the file before the run's transaction can commit, and
      // stays there through a SIGKILL.
      appendFileSync(attempts, `${event.eventId}\n`),
    ),
  );
  await engine.start();
  process.once('SIGTERM', () => {
    void engine
      .stop()
      .then(() => engine.close())
      .then(() => dataSource.destroy())
      .finally(() => process.exit(0));
  });
  process.stdout.write('ready\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
