import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Injectable } from '@nestjs/common';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookAdmin,
  WebhookContext,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { stripeEventId, stripePaymentEvent } from '../support/stripe-event';
import {
  Database,
  eventually,
  sameDatabaseAs,
  startTestApp,
  TestApp,
  TestEffect,
  TestPaymentHandlers,
} from '../support/test-app';
import { WorkerProcess } from '../support/worker-process';

const SECRET = 'whsec_backfill_kill';
const NEW_HANDLER = 'AnalyticsSink.onEvent';
/**
 * The events of each inbox: 10,000 (2,000 on SQLite) as `.ci/run` runs it, or as
 * BACKFILL_KILL_EVENTS and BACKFILL_KILL_SQLITE say (`npm run test:crash`, 2,000 and 500 unless
 * set). NOTE: not part of `npm test`, which keeps under five minutes: filling the inbox over
 * HTTP and running the backfill in two processes take the machine's cores for minutes. On SQLite
 * a delivery and a run each cost a commit to the file (~25 ms and ~16 ms on a busy 2-core
 * machine), so 10,000 there take over 6 minutes.
 */
const EVENTS_OF: Record<Database, number> = {
  postgres: Number(process.env.BACKFILL_KILL_EVENTS ?? 2_000),
  sqlite: Number(process.env.BACKFILL_KILL_SQLITE ?? process.env.BACKFILL_KILL_EVENTS ?? 500),
};
/** Deliveries in flight at once while the inbox is filled. */
const SENDERS = 24;
/** The lease of the backfill in the worker processes: how soon a restart carries it on. */
const LEASE_MS = 2_000;

/**
 * The handler added later, as this process registers it: to start the backfill with, never run
 * here (dispatch is off). The worker processes register the same key (`backfill-worker.main.ts`).
 */
@Injectable()
class AnalyticsSink {
  @OnPaymentEvent('payment.succeeded')
  async onEvent(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await ctx.manager.insert(TestEffect, { eventId: event.eventId, handler: 'never' });
  }
}

/** Each provider event id's rows of `handler` in `test_effects`. */
async function effectsOf(app: TestApp, handler: string): Promise<Map<string, number>> {
  const rows = await app.dataSource.getRepository(TestEffect).findBy({ handler });
  const counts = new Map<string, number>();
  rows.forEach((row) => counts.set(row.eventId, (counts.get(row.eventId) ?? 0) + 1));
  return counts;
}

/** Delivers `count` signed Stripe payments, `SENDERS` at a time; their provider ids. */
async function deliver(url: string, count: number): Promise<string[]> {
  const ids: string[] = [];
  let next = 0;
  const sender = async () => {
    while (next < count) {
      const n = next;
      next += 1;
      const event = stripePaymentEvent(SECRET, { id: stripeEventId(), orderId: `order-${n}` });
      ids.push(event.id);
      const { status } = await post(url, event.body, event.headers());
      if (status !== 200) {
        throw new Error(`delivery ${n} answered ${status}`);
      }
    }
  };
  await Promise.all(Array.from({ length: SENDERS }, sender));
  return ids;
}

/**
 * A backfill over the stored events ({@link EVENTS_OF}) whose process is killed with SIGKILL in
 * the middle and started again: the new handler runs once per event, the other handler not at all.
 */
describe.each<[Database, number]>([
  ['postgres', EVENTS_OF.postgres],
  ['sqlite', EVENTS_OF.sqlite],
])('a backfill killed in the middle (%s, %i events)', (database) => {
  const EVENTS = EVENTS_OF[database];
  let app: TestApp;
  let ids: string[];
  let paymentsBefore: Map<string, number>;
  /** How long each part took, in ms, for the report line. */
  const took: Record<string, number> = {};
  const children: WorkerProcess[] = [];
  const attemptsFile = join(mkdtempSync(join(tmpdir(), 'pw-backfill-kill-')), 'attempts');
  const start = new Date(Date.now() - 60_000);

  beforeAll(async () => {
    // The app as it was: the payments handler only, which handles every event as it comes.
    const before = await startTestApp({
      platform: 'express',
      database,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        // NOTE: on SQLite the handler's runs committed many to a transaction: a commit is a
        // sync of the file there.
        dispatch:
          database === 'sqlite'
            ? { batch: { size: 100, waitMs: 20 }, pollIntervalMs: 100 }
            : { pollIntervalMs: 100 },
      },
    });
    let at = Date.now();
    ids = await deliver(`${before.url}/webhooks/stripe`, EVENTS);
    const admin = before.app.get(WebhookAdmin);
    await eventually(async () => (await admin.count({ status: 'processed' })) === EVENTS, 180_000);
    took.seed = Date.now() - at;
    at = Date.now();
    await before.stop();
    // NOTE: this process only starts the backfill and reads the inbox; the workers run it.
    app = await startTestApp({
      platform: 'express',
      database,
      handlers: [TestPaymentHandlers, AnalyticsSink],
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
        dispatch: { enabled: false },
      },
      ...sameDatabaseAs(before),
    });
    paymentsBefore = await effectsOf(app, 'payments');
    writeFileSync(attemptsFile, '');
    took.restart = Date.now() - at;
  }, 300_000);

  afterAll(async () => {
    for (const child of children.splice(0)) {
      await child.kill();
    }
    await app?.close();
  });

  function worker(): Promise<WorkerProcess> {
    const started = WorkerProcess.start('backfill-worker.main.ts', {
      ...(database === 'postgres'
        ? { DATABASE_URL: app.databaseUrl! }
        : { SQLITE_FILE: app.sqliteFile! }),
      STRIPE_SECRET: SECRET,
      ATTEMPTS_FILE: attemptsFile,
      LEASE_MS: String(LEASE_MS),
      POLL_MS: '200',
    });
    return started.then((child) => {
      children.push(child);
      return child;
    });
  }

  it('runs the new handler once per event and no other handler, after a restart', async () => {
    const backfills = app.app.get(WebhookAdmin).backfills;
    const admin = app.app.get(WebhookAdmin);
    expect(paymentsBefore.size).toBe(EVENTS);
    const job = await backfills.start({ handler: NEW_HANDLER, since: start, actor: 'ops' });
    expect(job).toMatchObject({ status: 'running', total: EVENTS });

    let at = Date.now();
    const first = await worker();
    took.firstStart = Date.now() - at;
    await eventually(async () => (await backfills.backfill(job.id))!.passed >= EVENTS / 2, 150_000);
    await first.kill();
    took.firstHalf = Date.now() - at;
    // Killed in the middle: the backfill is under way, held by the dead process's lease.
    const cut = (await backfills.backfill(job.id))!;
    expect(cut).toMatchObject({ status: 'running' });
    expect(cut.passed).toBeLessThan(EVENTS);

    at = Date.now();
    await worker();
    const resumed = (await backfills.backfill(job.id))!.passed;
    await eventually(async () => (await backfills.backfill(job.id))!.passed > resumed, 30_000);
    took.takeOver = Date.now() - at;
    await eventually(async () => (await backfills.backfill(job.id))!.status !== 'running', 150_000);
    took.secondHalf = Date.now() - at;
    expect(await backfills.backfill(job.id)).toMatchObject({
      status: 'done',
      total: EVENTS,
      passed: EVENTS,
      ran: EVENTS,
      failed: 0,
      error: null,
    });

    // The new handler's committed effect: once for each event.
    const analytics = await effectsOf(app, 'analytics');
    expect(analytics.size).toBe(EVENTS);
    expect(ids.every((id) => analytics.get(id) === 1)).toBe(true);
    // No other handler ran: the payments handler's effects are as they were.
    expect(await effectsOf(app, 'payments')).toEqual(paymentsBefore);
    expect(await effectsOf(app, 'never')).toEqual(new Map());
    // Each event has one `backfill` row in its history, a run; none changed status.
    const history: { event_id: string; outcome: string; handler_key: string }[] =
      await app.dataSource.query(
        "SELECT event_id, outcome, handler_key FROM webhook_history WHERE kind = 'backfill'",
      );
    expect(history).toHaveLength(EVENTS);
    expect(new Set(history.map((row) => row.event_id)).size).toBe(EVENTS);
    expect(history.every((row) => row.outcome === 'ran' && row.handler_key === NEW_HANDLER)).toBe(
      true,
    );
    expect(await admin.count({ status: 'processed' })).toBe(EVENTS);
    expect(await admin.count({})).toBe(EVENTS);

    // The runs the kill cut short: begun (a line in the file), rolled back (no row). The runner
    // runs one event at a time, so at most the one in flight.
    const attempts = readFileSync(attemptsFile, 'utf8').split('\n').filter(Boolean);
    const rolledBack = attempts.length - EVENTS;
    expect(rolledBack).toBeGreaterThanOrEqual(0);
    expect(rolledBack).toBeLessThanOrEqual(1);
    expect(new Set(attempts).size).toBe(EVENTS);
    if (process.env.TEST_LOGS || process.env.BACKFILL_KILL_REPORT) {
      process.stderr.write(
        `${database}: killed at passed=${cut.passed}, runs cut by the kill: ${rolledBack}, ` +
          `took (ms) ${JSON.stringify(took)}\n`,
      );
    }
  }, 360_000);
});
