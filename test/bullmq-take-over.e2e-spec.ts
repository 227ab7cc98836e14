import { Queue } from 'bullmq';
import { stripeEndpoint } from 'nestjs-payment-webhooks/express';
import { bullmqTransport, BullmqTransportOptions } from 'nestjs-payment-webhooks/bullmq';
import { post } from './support/http';
import { dropRedisPrefix, redisPrefix, redisUrl } from './support/redis';
import { RouterTestApp, startRouterApp } from './support/router-app';
import { signedStripeEvent } from './support/stripe-event';
import { eventually, HandlerControl, TestEffect } from './support/test-app';

/**
 * A second job for an event a live worker is running (an operator's copy, a redelivery) finds
 * the event held and runs nothing: the handler does not start a second time, the first worker
 * keeps the event, and one effect is applied. PostgreSQL inbox, real Redis.
 */

const SECRET = 'whsec_bullmq_take_over';
const QUEUE = 'payment-webhooks';
/** How long the first worker's handler runs: long enough to send the copy in the meantime. */
const HANDLER_MS = 4000;

function connection() {
  const url = new URL(redisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}

interface Row {
  status: string;
  attempts: number;
  locked_by: string | null;
}

describe('a job for an event a live worker holds', () => {
  const prefix = redisPrefix();
  const apps: RouterTestApp[] = [];
  let queue: Queue;

  beforeAll(() => {
    queue = new Queue(QUEUE, { connection: connection(), prefix });
    queue.on('error', () => undefined);
  });
  afterAll(async () => {
    for (const app of apps.reverse()) await app.close();
    await queue.close();
    await dropRedisPrefix(redisUrl(), prefix);
  });

  async function app(
    transport: Partial<BullmqTransportOptions>,
    control = new HandlerControl(),
    databaseUrl?: string,
  ): Promise<RouterTestApp> {
    const started = await startRouterApp({
      database: 'postgres',
      databaseUrl,
      control,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 100,
          transport: bullmqTransport({ connection: connection(), prefix, ...transport }),
        },
      },
    });
    apps.push(started);
    return started;
  }

  it('runs nothing: one handler run, the first worker keeps the event, one effect', async () => {
    const relay = await app({ worker: false });
    const event = signedStripeEvent(SECRET);
    expect((await post(`${relay.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
      200,
    );
    const row = async () =>
      (
        (await relay.dataSource.query(
          'SELECT status, attempts, locked_by FROM webhook_events WHERE event_id = $1',
          [event.id],
        )) as Row[]
      )[0];
    await eventually(async () => (await queue.getJobCounts('waiting')).waiting === 1);
    const [original] = await queue.getWaiting(0, -1);

    // NOTE: one slot, busy with the slow handler, so the copy goes to the second worker.
    const first = new HandlerControl();
    first.scripts.set(event.id, { delayMs: HANDLER_MS });
    await app({ relay: false, concurrency: 1 }, first, relay.databaseUrl);
    await eventually(() => first.calls.length === 1);
    const held = await row();
    expect(held.status).toBe('processing');
    expect(held.locked_by).not.toMatch(/^bullmq:/);

    const second = new HandlerControl();
    await app({ relay: false, concurrency: 4 }, second, relay.databaseUrl);
    await queue.add(original.name, original.data, { jobId: 'take-over-copy' });
    await eventually(async () => (await queue.getJobState('take-over-copy')) === 'completed');

    expect(first.calls.length + second.calls.length).toBe(1);
    expect(second.calls).toEqual([]);
    expect(await row()).toEqual(held);
    expect((await queue.getJob('take-over-copy'))?.returnvalue).toBe('stale');

    await eventually(async () => (await row()).status === 'processed', HANDLER_MS + 10_000);
    expect(first.calls).toHaveLength(1);
    expect(second.calls).toEqual([]);
    expect(await relay.dataSource.getRepository(TestEffect).countBy({ eventId: event.id })).toBe(1);
  });
});
