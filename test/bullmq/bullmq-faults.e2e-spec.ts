import { Queue } from 'bullmq';
import {
  stripeEndpoint,
  WebhookDispatchOptions,
  WebhookHandlerDefinition,
  WebhooksRouterLogger,
} from 'nestjs-payment-webhooks/express';
import { bullmqTransport, BullmqTransportOptions } from 'nestjs-payment-webhooks/bullmq';
import { startBullmqWorker } from '../support/worker-process';
import { post } from '../support/http';
import { redisPrefix, startThrowawayRedis, ThrowawayRedis } from '../support/redis';
import { RouterTestApp, startMatrixApp, startRouterApp } from '../support/router-app';
import { SignedStripeEvent, signedStripeEvent } from '../support/stripe-event';
import { eventually, HandlerControl } from '../support/test-app';

const SECRET = 'whsec_bullmq_faults_secret';
const QUEUE = 'payment-webhooks';
const HOLDER = `bullmq:${QUEUE}`;

/** What a test reads of an event's inbox row. */
interface InboxRow {
  id: string;
  event_id: string;
  status: string;
  attempts: number;
  locked_by: string | null;
  processed_at: Date | null;
}

/** What the specs read an app's database through. */
type Inbox = Pick<RouterTestApp, 'dataSource'>;

describe('the BullMQ transport when Redis fails and jobs run twice (PostgreSQL)', () => {
  let redis: ThrowawayRedis;
  const cleanups: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    redis = await startThrowawayRedis();
  });
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      await cleanup().catch(() => undefined);
    }
  });
  afterAll(async () => {
    await redis?.stop();
  });

  const connection = () => ({ host: '127.0.0.1', port: redis.port });

  /** A queue of the test's own, to look at and add to the jobs as an operator would. */
  function inspect(prefix: string): Queue {
    const queue = new Queue(QUEUE, { connection: connection(), prefix });
    queue.on('error', () => undefined);
    cleanups.push(() => queue.close());
    return queue;
  }

  /** The module options of one process, quick to recover: sweeps every 100 ms, 500 ms holds. */
  function webhooks(
    prefix: string,
    transport: Partial<BullmqTransportOptions> = {},
    dispatch: Partial<WebhookDispatchOptions> = {},
  ) {
    return {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
      dispatch: {
        pollIntervalMs: 100,
        ...dispatch,
        transport: bullmqTransport({
          connection: connection(),
          prefix,
          redeliverAfterMs: 500,
          concurrency: 4,
          ...transport,
        }),
      },
    };
  }

  /** Collects the warnings a router logs, as an app's logger would. */
  function warnings(): { lines: string[]; logger: WebhooksRouterLogger } {
    const lines: string[] = [];
    return {
      lines,
      logger: {
        log: () => undefined,
        warn: (message: unknown) => lines.push(String(message)),
        error: (message: unknown) => lines.push(String(message)),
      },
    };
  }

  async function deliver(t: { url: string }, count: number): Promise<SignedStripeEvent[]> {
    const events = Array.from({ length: count }, () => signedStripeEvent(SECRET));
    const answers = await Promise.all(
      events.map((event) => post(`${t.url}/webhooks/stripe`, event.body, event.headers)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(count).fill(200));
    return events;
  }

  async function rowsOf(t: Inbox, events: readonly SignedStripeEvent[]): Promise<InboxRow[]> {
    const rows = (await t.dataSource.query(
      'SELECT e.id, e.event_id, COALESCE(w.status, e.status) AS status, ' +
        'COALESCE(w.attempts, e.attempts) AS attempts, w.locked_by, e.processed_at ' +
        'FROM webhook_events e LEFT JOIN webhook_work w ON w.event_id = e.id ' +
        'WHERE e.event_id = ANY($1) ORDER BY e.id',
      [events.map((event) => event.id)],
    )) as InboxRow[];
    return rows.map((row) => ({ ...row, attempts: Number(row.attempts) }));
  }

  const statuses = async (t: Inbox, events: readonly SignedStripeEvent[]) =>
    (await rowsOf(t, events)).map((row) => row.status);

  const allProcessed = async (t: Inbox, events: readonly SignedStripeEvent[]) => {
    const now = await statuses(t, events);
    return now.length === events.length && now.every((status) => status === 'processed');
  };

  /** Effect rows per event (in the order given), per handler when `handler` is set. */
  async function effectsOf(
    t: Inbox,
    events: readonly SignedStripeEvent[],
    handler?: string,
  ): Promise<number[]> {
    const counted = (await t.dataSource.query(
      'SELECT "eventId" AS event, count(*)::int AS n FROM test_effects ' +
        'WHERE "eventId" = ANY($1) AND ($2::varchar IS NULL OR handler = $2) GROUP BY "eventId"',
      [events.map((event) => event.id), handler ?? null],
    )) as { event: string; n: number }[];
    const byEvent = new Map(counted.map((row) => [row.event, row.n]));
    return events.map((event) => byEvent.get(event.id) ?? 0);
  }

  const ones = (count: number) => Array(count).fill(1);

  /** A router app on a new database (or on `databaseUrl`), closed after the case. */
  async function routerApp(options: {
    prefix: string;
    transport?: Partial<BullmqTransportOptions>;
    dispatch?: Partial<WebhookDispatchOptions>;
    databaseUrl?: string;
    control?: HandlerControl;
    handlers?: WebhookHandlerDefinition[];
    logger?: WebhooksRouterLogger;
  }): Promise<RouterTestApp> {
    const t = await startRouterApp({
      database: 'postgres',
      databaseUrl: options.databaseUrl,
      control: options.control,
      handlers: options.handlers,
      webhooks: {
        ...webhooks(options.prefix, options.transport, options.dispatch),
        ...(options.logger ? { logger: options.logger } : {}),
      },
    });
    cleanups.push(() => t.close());
    return t;
  }

  async function jobsOf(queue: Queue, row: InboxRow) {
    return (await queue.getJobs(['completed', 'failed', 'waiting', 'active', 'delayed'])).filter(
      (job) => job.data.event === row.id,
    );
  }

  async function finishedJob(queue: Queue, jobId: string) {
    await eventually(async () => (await queue.getJobState(jobId)) === 'completed');
    return (await queue.getJob(jobId))!;
  }

  it('adds the jobs a FLUSHALL took again, and a worker started later processes each event once', async () => {
    const prefix = redisPrefix();
    const queue = inspect(prefix);
    const relayLog = warnings();
    const relay = await routerApp({
      prefix,
      transport: { worker: false },
      logger: relayLog.logger,
    });
    const events = await deliver(relay, 30);
    await eventually(async () => (await queue.getJobCounts('waiting')).waiting === 30);
    const held = await rowsOf(relay, events);
    expect(held.map((row) => [row.status, row.locked_by, row.attempts])).toEqual(
      Array(30).fill(['processing', HOLDER, 1]),
    );
    const handedOut = (await queue.getWaiting(0, -1)).map((job) => job.id).sort();
    expect(handedOut).toHaveLength(30);

    await redis.flushAll();
    expect((await queue.getJobCounts('waiting')).waiting).toBe(0);

    // NOTE: a sweep logs once it looked at every expired lease, after adding the jobs.
    const readded = () =>
      relayLog.lines
        .map((line) => /added (\d+) vanished job\(s\) again/.exec(line)?.[1])
        .reduce((sum, count) => sum + Number(count ?? 0), 0);
    await eventually(() => readded() >= 30);
    expect(readded()).toBe(30);
    expect((await queue.getWaiting(0, -1)).map((job) => job.id).sort()).toEqual(handedOut);
    expect(await statuses(relay, events)).toEqual(Array(30).fill('processing'));
    expect(await effectsOf(relay, events)).toEqual(Array(30).fill(0));

    await routerApp({
      prefix,
      databaseUrl: relay.databaseUrl,
      transport: { relay: false },
    });
    await eventually(() => allProcessed(relay, events));
    expect(await effectsOf(relay, events)).toEqual(ones(30));
    expect((await rowsOf(relay, events)).map((row) => row.attempts)).toEqual(ones(30));
    expect((await queue.getJobCounts('completed')).completed).toBe(30);
  });

  it('answers and stores deliveries while Redis is down, reports the queue down, and processes them once it is back', async () => {
    const prefix = redisPrefix();
    const t = await routerApp({ prefix });
    const before = await deliver(t, 1);
    await eventually(() => allProcessed(t, before));

    await redis.kill();
    const timed = Array.from({ length: 20 }, () => signedStripeEvent(SECRET));
    const answers = await Promise.all(
      timed.map(async (event) => {
        const started = Date.now();
        const answer = await post(`${t.url}/webhooks/stripe`, event.body, event.headers);
        return { status: answer.status, ms: Date.now() - started };
      }),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    // NOTE: the answer waits for the commit only; a Redis that does not answer would show as
    // the relay's 5 s timeout here. Below it, the bound leaves room for a busy machine.
    expect(Math.max(...answers.map((answer) => answer.ms))).toBeLessThan(4000);
    const stored = await statuses(t, timed);
    expect(stored).toHaveLength(20);
    expect(stored.filter((status) => status === 'processed')).toEqual([]);

    const health = await t.router.health();
    expect(health.status).toBe('down');
    expect(health.transport).toMatchObject({ kind: 'bullmq', queue: QUEUE, up: false });
    expect(health.problems.join('\n')).toContain(`The bullmq queue "${QUEUE}" cannot be reached`);

    await redis.restart();
    await eventually(() => allProcessed(t, timed), 20_000);
    expect(await effectsOf(t, [...before, ...timed])).toEqual(ones(21));
    await eventually(async () => (await t.router.health()).transport?.up === true);
  });

  it('processes a 100-event backlog once each when Redis restarts (and forgets every job) mid-run', async () => {
    const prefix = redisPrefix();
    const control = new HandlerControl();
    const t = await startMatrixApp({
      platform: 'express',
      database: 'postgres',
      control,
      webhooks: webhooks(prefix, { concurrency: 2 }),
    });
    cleanups.push(() => t.close());
    const events = Array.from({ length: 100 }, () => signedStripeEvent(SECRET));
    events.forEach((event) => control.scripts.set(event.id, { delayMs: 20 }));
    const answers = await Promise.all(
      events.map((event) => post(`${t.url}/webhooks/stripe`, event.body, event.headers)),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(100).fill(200));
    await eventually(
      async () => (await statuses(t, events)).filter((s) => s === 'processed').length >= 20,
    );

    await redis.restart();
    const atRestart = (await statuses(t, events)).filter((s) => s === 'processed').length;
    expect(atRestart).toBeLessThan(100);

    await eventually(() => allProcessed(t, events), 30_000);
    expect(await effectsOf(t, events)).toEqual(ones(100));
    const calls = new Map<string, number>();
    control.calls.forEach((call) => calls.set(call.eventId, (calls.get(call.eventId) ?? 0) + 1));
    expect(events.map((event) => calls.get(event.id))).toEqual(ones(100));
  });

  it('completes a completed job run again under a fresh id without a second effect', async () => {
    const prefix = redisPrefix();
    const queue = inspect(prefix);
    const control = new HandlerControl();
    const t = await routerApp({ prefix, control });
    const events = await deliver(t, 1);
    await eventually(() => allProcessed(t, events));
    const [settled] = await rowsOf(t, events);
    const [job] = await jobsOf(queue, settled);
    expect(await job.getState()).toBe('completed');

    await queue.add('payment-webhook', job.data, { jobId: 'x-dup' });
    const dup = await finishedJob(queue, 'x-dup');
    expect(dup.returnvalue).toBe('stale');
    expect(await effectsOf(t, events)).toEqual([1]);
    expect(control.calls).toHaveLength(1);
    expect(await rowsOf(t, events)).toEqual([settled]);
  });

  it('runs one effect when two copies of a pending event’s job are added at once', async () => {
    const prefix = redisPrefix();
    const queue = inspect(prefix);
    const relay = await routerApp({ prefix, transport: { worker: false } });
    const events = await deliver(relay, 1);
    await eventually(async () => (await queue.getJobCounts('waiting')).waiting === 1);
    const [held] = await rowsOf(relay, events);
    const [original] = await jobsOf(queue, held);
    await queue.addBulk(
      ['x-copy-1', 'x-copy-2'].map((jobId) => ({
        name: 'payment-webhook',
        data: original.data,
        opts: { jobId },
      })),
    );
    expect((await queue.getJobCounts('waiting')).waiting).toBe(3);

    const control = new HandlerControl();
    // NOTE: a slow handler keeps the three jobs running at once on the worker's 4 slots.
    control.scripts.set(events[0].id, { delayMs: 300 });
    await routerApp({
      prefix,
      databaseUrl: relay.databaseUrl,
      control,
      transport: { relay: false },
    });
    await eventually(() => allProcessed(relay, events));
    const results = await Promise.all(
      [original.id!, 'x-copy-1', 'x-copy-2'].map(
        async (jobId) => (await finishedJob(queue, jobId)).returnvalue as string,
      ),
    );
    expect(results.sort()).toEqual(['processed', 'stale', 'stale']);
    expect(await effectsOf(relay, events)).toEqual([1]);
    expect(control.calls).toHaveLength(1);
    expect((await rowsOf(relay, events))[0].attempts).toBe(1);
  });

  describe('a worker process SIGKILLed after a handler committed, before its job completed', () => {
    /** The handlers of `bullmq-worker.main.ts`, so the ledger keys match across processes. */
    const handlers = ['first', 'second'].map((name): WebhookHandlerDefinition => ({
      on: 'payment.succeeded',
      name,
      handle: async (event, ctx) => {
        await ctx.manager.query(
          'INSERT INTO test_effects ("eventId", handler, "merchantRef") VALUES ($1, $2, $3)',
          [event.eventId, name, event.merchantRef],
        );
      },
    }));

    async function killedAfter(freezeAfter: 'first' | 'second') {
      const prefix = redisPrefix();
      const queue = inspect(prefix);
      const relayLog = warnings();
      const relay = await routerApp({
        prefix,
        handlers,
        transport: { worker: false },
        logger: relayLog.logger,
      });
      const child = await startBullmqWorker({
        databaseUrl: relay.databaseUrl!,
        redisPort: redis.port,
        redisPrefix: prefix,
        stripeSecret: SECRET,
        leaseMs: 1000,
        freezeAfter,
      });
      cleanups.push(() => child.kill());
      const events = await deliver(relay, 1);
      expect(await child.committed()).toEqual({ eventId: events[0].id, handler: freezeAfter });
      await child.kill();
      const [row] = await rowsOf(relay, events);
      const [job] = await jobsOf(queue, row);
      return { prefix, queue, relay, relayLog, events, row, job };
    }

    it('hands the event out again once its lease ran out; the next worker runs only the handler not in the ledger', async () => {
      const { prefix, relay, relayLog, events, row, job } = await killedAfter('first');
      expect(row).toMatchObject({ status: 'processing', attempts: 1 });
      expect(row.locked_by).not.toBe(HOLDER);
      expect(await job.getState()).toBe('active');
      expect(await effectsOf(relay, events, 'first')).toEqual([1]);
      expect(await effectsOf(relay, events, 'second')).toEqual([0]);

      await routerApp({
        prefix,
        handlers,
        databaseUrl: relay.databaseUrl,
        transport: { relay: false },
        // NOTE: the package's logger is one per process (the last router's), so the relay's
        // lines land here too.
        logger: relayLog.logger,
      });
      await eventually(() => allProcessed(relay, events));
      expect((await rowsOf(relay, events))[0].attempts).toBe(2);
      expect(await effectsOf(relay, events, 'first')).toEqual([1]);
      expect(await effectsOf(relay, events, 'second')).toEqual([1]);
      expect(relayLog.lines.join('\n')).toContain(
        'handed out 1 event(s) whose worker stopped holding them',
      );
    });

    it('leaves an event the last handler’s commit settled as it is: nothing runs again', async () => {
      const { prefix, relay, events, row, job } = await killedAfter('second');
      expect(row).toMatchObject({ status: 'processed', attempts: 1 });
      // NOTE: the job stays active until BullMQ's stalled check (30 s lock) moves it back to
      // wait; run again, it finds the event settled (see the fresh-id case above).
      expect(await job.getState()).toBe('active');

      await routerApp({
        prefix,
        handlers,
        databaseUrl: relay.databaseUrl,
        transport: { relay: false },
      });
      // NOTE: past the worker's 1 s lease and many sweeps of the relay.
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await rowsOf(relay, events)).toEqual([row]);
      expect(await effectsOf(relay, events, 'first')).toEqual([1]);
      expect(await effectsOf(relay, events, 'second')).toEqual([1]);
    });
  });

  it('completes jobs for a lower attempt, or for an event not handed out, without running a handler', async () => {
    const prefix = redisPrefix();
    const queue = inspect(prefix);
    const control = new HandlerControl();
    const t = await routerApp({
      prefix,
      control,
      // NOTE: at least 30 s before the retry (equal jitter), to add jobs while it waits; the
      // test then makes it due.
      dispatch: { retry: { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 60_000 } },
    });
    const events = [signedStripeEvent(SECRET)];
    control.scripts.set(events[0].id, { failTimes: 1 });
    expect((await post(`${t.url}/webhooks/stripe`, events[0].body, events[0].headers)).status).toBe(
      200,
    );
    await eventually(async () => (await statuses(t, events))[0] === 'retrying');
    const [waiting] = await rowsOf(t, events);
    expect(waiting.attempts).toBe(1);

    const add = async (jobId: string, attempt: number) => {
      await queue.add('payment-webhook', { event: waiting.id, attempt }, { jobId });
      return (await finishedJob(queue, jobId)).returnvalue as string;
    };
    expect(await add('x-retrying-1', 1)).toBe('stale');
    expect(await add('x-retrying-2', 2)).toBe('stale');
    expect(control.calls).toHaveLength(1);
    expect(await rowsOf(t, events)).toEqual([waiting]);

    // Its retry falls due, as it would have a while later.
    await t.dataSource.query(
      'UPDATE webhook_work SET next_attempt_at = now() WHERE event_id = $1',
      [waiting.id],
    );
    await eventually(() => allProcessed(t, events));
    const [processed] = await rowsOf(t, events);
    expect(processed.attempts).toBe(2);
    expect(await add('x-processed-1', 1)).toBe('stale');
    expect(await add('x-processed-2', 2)).toBe('stale');
    expect(control.calls.map((call) => call.attempt)).toEqual([1, 2]);
    expect(await effectsOf(t, events)).toEqual([1]);
    expect(await rowsOf(t, events)).toEqual([processed]);
  });
});
