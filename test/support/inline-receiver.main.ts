/**
 * A receiver that settles fresh events on the answer path (`dispatch.inline`): the Express
 * router on PORT, on the spec's PostgreSQL inbox (DATABASE_URL) or SQLite file (SQLITE_FILE).
 * Its two handlers on `payment.succeeded` (`first`, then `second`) each write a `test_effects`
 * row through `ctx.manager`. With FREEZE set, it prints `froze <when>` and stops dead at that
 * point of the first delivery's transaction, for the spec to SIGKILL it there: `in-handler`
 * (inside `second`, after its write), `before-commit` or `after-commit` (of that transaction).
 * Compiled and started by `worker-process.ts`.
 *
 * Environment: PORT, DATABASE_URL or SQLITE_FILE, STRIPE_SECRET, FREEZE (`in-handler`,
 * `before-commit`, `after-commit` or `none`).
 */
import express from 'express';
import {
  DataSource,
  EntitySubscriberInterface,
  QueryRunner,
  TransactionCommitEvent,
} from 'typeorm';
import {
  createWebhooksRouter,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
  webhookEntities,
  WebhookHandlerDefinition,
} from 'nestjs-payment-webhooks/express';

/** Longest the process stays frozen when nobody kills it. */
const FREEZE_MS = 60_000;

const freeze = process.env.FREEZE ?? 'none';
/** The driver's connection of the transaction the handlers ran in, once they did. */
let handled: unknown;

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

/**
 * What a query runner sends its statements on: PostgreSQL's pooled client, or on SQLite the
 * data source (the package's own connection to the file has one of its own).
 */
function connectionOf(runner: QueryRunner): unknown {
  return (
    (runner as unknown as { databaseConnection?: unknown }).databaseConnection ?? runner.connection
  );
}

/** Prints where it stops, then blocks the event loop: nothing after this point runs before the kill. */
function stopDead(when: string): void {
  // NOTE: a write to a pipe is synchronous on Linux.
  process.stdout.write(`froze ${when}\n`);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FREEZE_MS);
}

class FreezeAtCommit implements EntitySubscriberInterface {
  beforeTransactionCommit(event: TransactionCommitEvent): void {
    this.maybeFreeze('before-commit', event);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    this.maybeFreeze('after-commit', event);
  }

  private maybeFreeze(when: string, event: TransactionCommitEvent): void {
    if (freeze === when && handled !== undefined && handled === connectionOf(event.queryRunner)) {
      handled = undefined;
      stopDead(when);
    }
  }
}

function effect(handler: string): WebhookHandlerDefinition {
  return {
    on: 'payment.succeeded',
    name: handler,
    async handle(event: PaymentEvent, ctx: WebhookContext) {
      await ctx.manager
        .createQueryBuilder()
        .insert()
        .into('test_effects', ['eventId', 'handler', 'merchantRef'])
        .values({ eventId: event.eventId, handler, merchantRef: event.merchantRef })
        .execute();
      if (handler === 'second') {
        handled = connectionOf(ctx.manager.queryRunner!);
        if (freeze === 'in-handler') {
          stopDead('in-handler');
        }
      }
    },
  };
}

async function main(): Promise<void> {
  const dataSource = process.env.DATABASE_URL
    ? new DataSource({ type: 'postgres', url: process.env.DATABASE_URL, entities: webhookEntities })
    : new DataSource({
        type: 'better-sqlite3',
        database: setting('SQLITE_FILE'),
        entities: webhookEntities,
      });
  await dataSource.initialize();
  // NOTE: an instance, not a class in `subscribers`: TypeORM takes classes only with @EventSubscriber.
  dataSource.subscribers.push(new FreezeAtCommit());
  const router = await createWebhooksRouter({
    dataSource,
    logger: process.env.TEST_LOGS
      ? { log: console.error, warn: console.error, error: console.error, debug: console.error }
      : { log: () => undefined, warn: console.error, error: console.error },
    endpoints: [stripeEndpoint({ name: 'stripe', secret: setting('STRIPE_SECRET') })],
    dispatch: { inline: { boundMs: 5_000 }, pollIntervalMs: 100, leaseMs: 1_500 },
    handlers: [effect('first'), effect('second')],
  });
  const app = express();
  app.use('/webhooks', router);
  const server = app.listen(Number(setting('PORT')), '127.0.0.1', () => {
    process.stdout.write('ready\n');
  });
  process.once('SIGTERM', () => {
    server.close();
    void router
      .stop()
      .then(() => dataSource.destroy())
      .finally(() => process.exit(0));
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
