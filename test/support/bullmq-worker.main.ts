/**
 * A worker-only process of the BullMQ transport, as a deploy runs one: a plain Express router
 * that is never mounted (its worker starts all the same) on the spec's PostgreSQL inbox. Its
 * two handlers on `payment.succeeded` (`first`, then `second`) each write a `test_effects` row
 * through `ctx.manager`. Right after the commit of the handler named by `FREEZE_AFTER` it
 * prints `committed <event id> <handler>` and stops dead, so the spec can SIGKILL it between
 * that commit and the job's completion. Compiled and started by `worker-process.ts`.
 *
 * Environment: DATABASE_URL, REDIS_PORT, REDIS_PREFIX, STRIPE_SECRET, LEASE_MS, FREEZE_AFTER.
 */
import { DataSource, EntitySubscriberInterface } from 'typeorm';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
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

const freezeAfter = setting('FREEZE_AFTER');
let committing: { eventId: string; handler: string } | undefined;

/** Freezes the process once the transaction of the handler named by FREEZE_AFTER committed. */
class FreezeAfterCommit implements EntitySubscriberInterface {
  afterTransactionCommit(): void {
    const done = committing;
    committing = undefined;
    if (done?.handler !== freezeAfter) {
      return;
    }
    // NOTE: a write to a pipe is synchronous on Linux, and Atomics.wait blocks the event loop:
    // nothing after the commit (the next handler, the job's completion) runs before the kill.
    process.stdout.write(`committed ${done.eventId} ${done.handler}\n`);
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
      committing = { eventId: event.eventId, handler };
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
  dataSource.subscribers.push(new FreezeAfterCommit());
  const router = await createWebhooksRouter({
    dataSource,
    logger: process.env.TEST_LOGS
      ? { log: console.error, warn: console.error, error: console.error, debug: console.error }
      : { log: () => undefined, warn: console.error, error: console.error },
    endpoints: [stripeEndpoint({ name: 'stripe', secret: setting('STRIPE_SECRET') })],
    dispatch: {
      pollIntervalMs: 100,
      leaseMs: Number(setting('LEASE_MS')),
      transport: bullmqTransport({
        connection: { host: '127.0.0.1', port: Number(setting('REDIS_PORT')) },
        prefix: setting('REDIS_PREFIX'),
        relay: false,
        concurrency: 1,
      }),
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
