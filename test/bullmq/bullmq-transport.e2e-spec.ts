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
const ISO = '\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{3}Z';

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
    /** Each job of the event once BullMQ has ended it, by attempt: its state, runs and reason. */
    const endedJobs = async (inboxId: string, count: number) => {
      let ended: { attempt: number; state: string; runs: number; reason?: string }[] = [];
      await eventually(async () => {
        const jobs = await jobsOf(inboxId);
        ended = await Promise.all(
          jobs.map(async (job) => ({
            attempt: job.data.attempt as number,
            state: await job.getState(),
            runs: job.attemptsMade,
            ...(job.failedReason ? { reason: job.failedReason } : {}),
          })),
        );
        return (
          ended.length === count &&
          ended.every(({ state }) => state === 'completed' || state === 'failed')
        );
      });
      return ended.sort((a, b) => a.attempt - b.attempt);
    };
    const effects = (eventId: string) =>
      t.dataSource.getRepository(TestEffect).countBy({ eventId });
    const adminOf = () =>
      platform === 'router'
        ? (t as unknown as { router: { admin: WebhookAdmin } }).router.admin
        : (t as unknown as { app: { get(token: unknown): WebhookAdmin } }).app.get(WebhookAdmin);

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
      // NOTE: a failed attempt's job fails once the inbox has its retry, and BullMQ never runs
      // it again (one run each): the next attempt is a job of its own.
      const label = `Event ${stored.id} \\(stripe/${id}\\)`;
      expect(await endedJobs(stored.id, 3)).toEqual([
        {
          attempt: 1,
          state: 'failed',
          runs: 1,
          reason: expect.stringMatching(
            new RegExp(
              `^${label} attempt 1 failed: .*handler failure on attempt 1; retrying at ${ISO}$`,
            ),
          ),
        },
        {
          attempt: 2,
          state: 'failed',
          runs: 1,
          reason: expect.stringMatching(
            new RegExp(
              `^${label} attempt 2 failed: .*handler failure on attempt 2; retrying at ${ISO}$`,
            ),
          ),
        },
        { attempt: 3, state: 'completed', runs: 1 },
      ]);
    });

    it('moves an event that always fails to dead after maxAttempts, and a replay runs it again', async () => {
      const order = `order-dead-${platform}`;
      const { id, body, headers } = signedEvent(order);
      t.control.scripts.set(id, { alwaysFail: true });
      expect((await post(url(), body, headers)).status).toBe(200);
      await eventually(async () => (await row(id))?.status === 'dead');
      const stored = await row(id);
      expect(stored.attempts).toBe(3);
      expect(await effects(id)).toBe(0);
      const ended = await endedJobs(stored.id, 3);
      expect(ended.map(({ state, runs }) => [state, runs])).toEqual(Array(3).fill(['failed', 1]));
      expect(ended[2].reason).toMatch(
        new RegExp(
          `^Event ${stored.id} \\(stripe/${id}\\) attempt 3 failed: .*handler failure on attempt 3; the event is dead$`,
        ),
      );
      t.control.scripts.delete(id);
      const admin = adminOf();
      // Each failed attempt is in the event's history, with the worker that ran it.
      const { history } = (await admin.show(stored.id))!;
      expect(history.map((entry) => [entry.kind, entry.attempt, entry.outcome])).toEqual([
        ['attempt', 1, 'retrying'],
        ['attempt', 2, 'retrying'],
        ['attempt', 3, 'dead'],
      ]);
      expect(history.every((entry) => typeof entry.worker === 'string')).toBe(true);
      expect(await admin.failureGroups({ fingerprint: history[2].fingerprint! })).toEqual([
        expect.objectContaining({ count: 1, dead: 1, handlerKey: history[2].handlerKey }),
      ]);
      await admin.replay({ status: 'dead', merchantRef: order });
      await eventually(async () => (await row(id))?.status === 'processed');
      expect(await effects(id)).toBe(1);
      // NOTE: the replay's attempt 1 has a job of its own beside the failed one Redis keeps.
      const replayed = await endedJobs(stored.id, 4);
      expect(replayed.map(({ attempt, state }) => `${attempt}:${state}`).sort()).toEqual([
        '1:completed',
        '1:failed',
        '2:failed',
        '3:failed',
      ]);
    });

    it('holds the events of a paused endpoint on the workers without spending attempts, and runs them once resumed', async () => {
      const admin = adminOf();
      expect(await admin.pause({ endpoint: 'stripe' }, { actor: 'ops', reason: 'ERP down' })).toBe(
        true,
      );
      // NOTE: the pause was made by this process, whose workers read the pauses again at once.
      const { id, body, headers } = signedEvent(`order-paused-${platform}`);
      expect((await post(url(), body, headers)).status).toBe(200);
      // A worker took the event's job and gave the event back to the inbox unrun.
      const inboxId = (await row(id)).id;
      await eventually(async () => {
        const jobs = await jobsOf(inboxId);
        return jobs.length === 1 && (await jobs[0].getState()) === 'completed';
      });
      expect((await jobsOf(inboxId)).map((job) => job.returnvalue)).toEqual(['released']);
      const held = await row(id);
      expect(held.status).toBe('pending');
      expect(Number(held.attempts)).toBe(0);
      expect(await effects(id)).toBe(0);

      expect(await admin.resume({ endpoint: 'stripe' })).toBe(1);
      await eventually(async () => (await row(id))?.status === 'processed');
      expect(await effects(id)).toBe(1);
      expect(Number((await row(id)).attempts)).toBe(1);
    });
  },
);
