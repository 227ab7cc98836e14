/**
 * A worker process whose handler runs are committed in batches (`dispatch.batch`): a plain
 * Express router that is never mounted (its dispatcher runs all the same) on the spec's
 * PostgreSQL inbox. Its two handlers on `payment.succeeded` (`first`, then `second`) each write
 * a `test_effects` row through `ctx.manager`. With `FREEZE` set to `before-commit` or
 * `after-commit`, at that point of the first batch that ran the handler named by
 * `FREEZE_HANDLER` it prints `froze <when> <handler> <runs in the batch>` and stops dead, so the
 * spec can SIGKILL it there. Compiled and started by `worker-process.ts`.
 *
 * Environment: DATABASE_URL, STRIPE_SECRET, LEASE_MS, FREEZE (`before-commit`, `after-commit`
 * or `none`), FREEZE_HANDLER.
 */
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

function setting(name: string): string {
  const value = process.env[name];
  if (!value) {
    throw new Error(`${name} is not set`);
  }
  return value;
}

const freeze = setting('FREEZE');
const freezeHandler = process.env.FREEZE_HANDLER ?? '';
/** The batch transaction's connection, and how many runs of the handler it holds so far. */
let batch: { connection: unknown; runs: number } | undefined;

/** The `pg` client a query runner sends its statements on. */
function clientOf(runner: QueryRunner): unknown {
  return (runner as unknown as { databaseConnection: unknown }).databaseConnection;
}

/** Freezes the process at the commit of the batch that ran FREEZE_HANDLER. */
class FreezeAtBatchCommit implements EntitySubscriberInterface {
  beforeTransactionCommit(event: TransactionCommitEvent): void {
    this.maybeFreeze('before-commit', event);
  }

  afterTransactionCommit(event: TransactionCommitEvent): void {
    this.maybeFreeze('after-commit', event);
  }

  private maybeFreeze(when: string, event: TransactionCommitEvent): void {
    if (freeze !== when || !batch || batch.connection !== clientOf(event.queryRunner)) {
      return;
    }
    const { runs } = batch;
    batch = undefined;
    // NOTE: a write to a pipe is synchronous on Linux, and Atomics.wait blocks the event loop:
    // nothing after this point of the commit runs before the kill.
    process.stdout.write(`froze ${when} ${freezeHandler} ${runs}\n`);
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, FREEZE_MS);
  }
}

function effect(handler: string): WebhookHandlerDefinition {
  return {
    on: 'payment.succeeded',
    name: handler,
    async handle(event: PaymentEvent, ctx: WebhookContext) {
      await ctx.manager.query(
        'INSERT INTO test_effects ("eventId", handler, "merchantRef") VALUES ($1, $2, $3)',
        [event.eventId, handler, event.merchantRef],
      );
      if (handler === freezeHandler) {
        // NOTE: the driver's client the batch's transaction runs on, as its commit reports it.
        const connection = clientOf(ctx.manager.queryRunner!);
        batch = { connection, runs: (batch?.runs ?? 0) + 1 };
      }
    },
  };
}

async function main(): Promise<void> {
  const dataSource = new DataSource({
    type: 'postgres',
    url: setting('DATABASE_URL'),
    entities: webhookEntities,
  });
  await dataSource.initialize();
  // NOTE: an instance, not a class in `subscribers`: TypeORM takes classes only with @EventSubscriber.
  dataSource.subscribers.push(new FreezeAtBatchCommit());
  const router = await createWebhooksRouter({
    dataSource,
    logger: process.env.TEST_LOGS
      ? { log: console.error, warn: console.error, error: console.error, debug: console.error }
      : { log: () => undefined, warn: console.error, error: console.error },
    endpoints: [stripeEndpoint({ name: 'stripe', secret: setting('STRIPE_SECRET') })],
    dispatch: {
      pollIntervalMs: 100,
      concurrency: 16,
      leaseMs: Number(setting('LEASE_MS')),
      batch: { size: 32, waitMs: 50 },
    },
    handlers: [effect('first'), effect('second')],
  });
  process.once('SIGTERM', () => {
    void router
      .stop()
      .then(() => dataSource.destroy())
      .finally(() => process.exit(0));
  });
  process.stdout.write('ready\n');
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
