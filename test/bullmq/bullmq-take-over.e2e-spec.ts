import { Queue } from 'bullmq';
import { stripeEndpoint, WebhooksRouterLogger } from 'nestjs-payment-webhooks/express';
import { bullmqTransport, BullmqTransportOptions } from 'nestjs-payment-webhooks/bullmq';
import { Gate } from '../../lib/spec-support/gate';
import { post } from '../support/http';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { RouterTestApp, startRouterApp } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually, HandlerControl, TestEffect } from '../support/test-app';

/**
 * Jobs that reach the queue besides the relay's: a second job for an event a live worker is
 * running (an operator's copy, a redelivery) finds the event held and runs nothing, and a forged
 * job of any size is refused in a log line of bounded length.
 */

const SECRET = 'whsec_bullmq_take_over';
const QUEUE = 'payment-webhooks';
const MEGABYTE = 1 << 20;

function connection() {
  const url = new URL(redisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}

interface Row {
  status: string;
  attempts: number;
  locked_by: string | null;
}

describe('BullMQ jobs the relay did not hand out (PostgreSQL, real Redis)', () => {
  const apps: RouterTestApp[] = [];
  let prefix: string;
  let queue: Queue;

  // NOTE: a queue of each case's own, so no worker of another case takes its jobs.
  beforeEach(() => {
    prefix = redisPrefix();
    queue = new Queue(QUEUE, { connection: connection(), prefix });
    queue.on('error', () => undefined);
  });
  afterEach(async () => {
    for (const app of apps.splice(0).reverse()) await app.close();
    await queue.close();
    await dropRedisPrefix(redisUrl(), prefix);
  });

  async function app(
    transport: Partial<BullmqTransportOptions>,
    control = new HandlerControl(),
    databaseUrl?: string,
    logger?: WebhooksRouterLogger,
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
        ...(logger ? { logger } : {}),
      },
    });
    apps.push(started);
    return started;
  }

  it('a copy of the job of an event a live worker runs takes nothing: one handler run, the first worker keeps the event, one effect', async () => {
    const relay = await app({ worker: false });
    const event = signedStripeEvent(SECRET);
    expect((await post(`${relay.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
      200,
    );
    const row = async () =>
      (
        (await relay.dataSource.query(
          'SELECT COALESCE(w.status, e.status) AS status, ' +
            'COALESCE(w.attempts, e.attempts) AS attempts, w.locked_by FROM webhook_events e ' +
            'LEFT JOIN webhook_work w ON w.event_id = e.id WHERE e.event_id = $1',
          [event.id],
        )) as Row[]
      )[0];
    await eventually(async () => (await queue.getJobCounts('waiting')).waiting === 1);
    const [original] = await queue.getWaiting(0, -1);

    // NOTE: one slot, busy with the handler held until the copy has run, so the copy goes to
    // the second worker.
    const first = new HandlerControl();
    const handlerHeld = new Gate();
    first.scripts.set(event.id, { until: handlerHeld.opened });
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

    handlerHeld.open();
    await eventually(async () => (await row()).status === 'processed');
    expect(first.calls).toHaveLength(1);
    expect(second.calls).toEqual([]);
    expect(await relay.dataSource.getRepository(TestEffect).countBy({ eventId: event.id })).toBe(1);
  });

  it('logs a forged job with a 1 MB id and data in a bounded line, and keeps working', async () => {
    const lines: string[] = [];
    const record = (message: unknown) => lines.push(String(message));
    const worker = await app({}, new HandlerControl(), undefined, {
      log: () => undefined,
      warn: record,
      error: record,
    });
    const forgedId = `forged-${'9'.repeat(MEGABYTE)}`;
    await queue.add(
      'payment-webhook',
      { event: 'e'.repeat(MEGABYTE), attempt: 1 },
      { jobId: forgedId },
    );
    await eventually(async () => (await queue.getJobState(forgedId)) === 'failed');
    await eventually(() => lines.some((line) => line.includes('is not a webhook job')));

    expect(Math.max(...lines.map((line) => line.length))).toBeLessThan(2_000);
    const [logged] = lines.filter((line) => line.includes('is not a webhook job'));
    expect(logged).toContain(`Job forged-999`);
    expect(logged).toContain(`(${forgedId.length} characters)`);
    expect(logged).toContain(
      `(${JSON.stringify({ event: 'e'.repeat(MEGABYTE), attempt: 1 }).length} characters)`,
    );
    expect((await queue.getJob(forgedId))!.failedReason.length).toBeLessThan(2_000);

    const event = signedStripeEvent(SECRET);
    expect((await post(`${worker.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
      200,
    );
    await eventually(
      async () =>
        (await worker.dataSource.getRepository(TestEffect).countBy({ eventId: event.id })) === 1,
    );
  });
});
