import { Queue } from 'bullmq';
import { stripeEndpoint, WebhookAdmin, WebhooksModuleOptions } from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import { post } from '../support/http';
import { signedStripeEvent } from '../support/stripe-event';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { MatrixApp, MatrixPlatform, startMatrixApp } from '../support/router-app';
import { eventually, TestEffect } from '../support/test-app';

const SECRET = 'whsec_bullmq_transport_secret';
const QUEUE = 'payment-webhooks';

function connection() {
  const url = new URL(redisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}

function signedEvent(orderId = 'order-1') {
  return signedStripeEvent(SECRET, { orderId });
}

describe.each<MatrixPlatform>(['express', 'router'])(
  'the BullMQ transport under %s on PostgreSQL',
  (platform) => {
    const prefix = redisPrefix();
    let t: MatrixApp;
    let queue: Queue;
    const url = () => `${t.url}/webhooks/stripe`;
    const row = async (eventId: string) =>
      (
        (await t.dataSource.query(
          'SELECT e.id, COALESCE(w.status, e.status) AS status, ' +
            'COALESCE(w.attempts, e.attempts) AS attempts, w.locked_by FROM webhook_events e ' +
            'LEFT JOIN webhook_work w ON w.event_id = e.id WHERE e.event_id = $1',
          [eventId],
        )) as { id: string; status: string; attempts: number; locked_by: string | null }[]
      )[0];
    const jobsOf = async (inboxId: string) =>
      (await queue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed'])).filter(
        (job) => job.data.event === inboxId,
      );
    const effects = (eventId: string) =>
      t.dataSource.getRepository(TestEffect).countBy({ eventId });

    function options(): WebhooksModuleOptions {
      return {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: {
          pollIntervalMs: 100,
          retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
          transport: bullmqTransport({ connection: connection(), prefix, concurrency: 4 }),
        },
      };
    }

    beforeAll(async () => {
      t = await startMatrixApp({ platform, database: 'postgres', webhooks: options() });
      queue = new Queue(QUEUE, { connection: connection(), prefix });
    });
    afterAll(async () => {
      await t?.close();
      await queue?.close();
      await dropRedisPrefix(redisUrl(), prefix);
    });

    it('answers 200, hands the event to a job carrying ids only, and runs the handler once', async () => {
      const { id, body, headers } = signedEvent();
      const response = await post(url(), body, headers);
      expect(response.status).toBe(200);
      await eventually(async () => (await row(id))?.status === 'processed');
      expect(await effects(id)).toBe(1);
      const stored = await row(id);
      const jobs = await jobsOf(stored.id);
      expect(jobs.map((job) => job.data)).toEqual([{ event: stored.id, attempt: 1 }]);
      expect(jobs[0].id).toMatch(new RegExp(`^${stored.id}-1-\\d+$`));
      expect(await jobs[0].getState()).toBe('completed');
    });

    it('keeps 20 concurrent identical deliveries to one row, one job and one effect', async () => {
      const { id, body, headers } = signedEvent();
      const responses = await Promise.all(
        Array.from({ length: 20 }, () => post(url(), body, headers)),
      );
      expect(responses.map((r) => r.status)).toEqual(Array(20).fill(200));
      await eventually(async () => (await row(id))?.status === 'processed');
      expect(await effects(id)).toBe(1);
    });

    it('retries from the inbox with one job per attempt, then processes', async () => {
      const { id, body, headers } = signedEvent();
      t.control.scripts.set(id, { failTimes: 2 });
      expect((await post(url(), body, headers)).status).toBe(200);
      await eventually(async () => (await row(id))?.status === 'processed');
      const stored = await row(id);
      expect(stored.attempts).toBe(3);
      // NOTE: each failed attempt rolled its effect back; the third committed one.
      expect(await effects(id)).toBe(1);
      const jobs = await jobsOf(stored.id);
      expect(jobs.map((job) => job.data.attempt).sort()).toEqual([1, 2, 3]);
    });

    it('moves an event that always fails to dead after maxAttempts, and a replay runs it again', async () => {
      const order = `order-dead-${platform}`;
      const { id, body, headers } = signedEvent(order);
      t.control.scripts.set(id, { alwaysFail: true });
      expect((await post(url(), body, headers)).status).toBe(200);
      await eventually(async () => (await row(id))?.status === 'dead');
      expect((await row(id)).attempts).toBe(3);
      expect(await effects(id)).toBe(0);
      t.control.scripts.delete(id);
      const admin =
        platform === 'router'
          ? (t as unknown as { router: { admin: WebhookAdmin } }).router.admin
          : (t as unknown as { app: { get(token: unknown): WebhookAdmin } }).app.get(WebhookAdmin);
      await admin.replay({ status: 'dead', merchantRef: order });
      await eventually(async () => (await row(id))?.status === 'processed');
      expect(await effects(id)).toBe(1);
    });
  },
);
