import BetterSqlite3 from 'better-sqlite3';
import { Client } from 'pg';
import { stripeEndpoint, WebhookTelemetry } from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import { post } from '../support/http';
import { WebhookEventEntity } from '../support/internals';
import { stripePaymentEvent, StripeTestEvent } from '../support/stripe-event';
import { countEffects, eventually, Platform, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_store_timeout';
const STORE_TIMEOUT_MS = 1000;
/** Time allowed on top of the timeout for the answer to travel and the event loop to turn. */
const MARGIN_MS = 500;

const stripeEvent = () => stripePaymentEvent(SECRET);

/** Starts an app whose answer path may wait `STORE_TIMEOUT_MS`, and records its journal. */
async function startApp(
  platform: Platform,
  database: 'postgres' | 'sqlite',
): Promise<{ app: TestApp; journal: DeliveryRecord[] }> {
  const app = await startTestApp({
    platform,
    database,
    webhooks: {
      endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
      storeTimeoutMs: STORE_TIMEOUT_MS,
    },
  });
  const journal: DeliveryRecord[] = [];
  app.app.get(WebhookTelemetry).subscribe({ delivery: (record) => journal.push(record) });
  return { app, journal };
}

/** Sends each event at once; resolves to the statuses and how long the slowest answer took. */
async function deliverAll(
  app: TestApp,
  events: StripeTestEvent[],
): Promise<{ statuses: number[]; slowestMs: number }> {
  const startedAt = Date.now();
  const answers = await Promise.all(
    events.map((event) => post(`${app.url}/webhooks/stripe`, event.body, event.headers())),
  );
  return { statuses: answers.map((answer) => answer.status), slowestMs: Date.now() - startedAt };
}

/** After the store is free again: each provider's retry is acknowledged, stored once, run once. */
async function expectRetriesStoredOnce(app: TestApp, events: StripeTestEvent[]): Promise<void> {
  const { statuses } = await deliverAll(app, events);
  expect(statuses).toEqual(events.map(() => 200));
  for (const event of events) {
    await eventually(async () => (await countEffects(app, event.id)) === 1, 15_000);
  }
  for (const event of events) {
    expect(
      await app.dataSource.getRepository(WebhookEventEntity).countBy({ eventId: event.id }),
    ).toBe(1);
  }
  // A moment more: a late duplicate effect would show up here.
  await new Promise((resolve) => setTimeout(resolve, 300));
  for (const event of events) {
    expect(await countEffects(app, event.id)).toBe(1);
  }
}

function expectJournaledTimeouts(journal: DeliveryRecord[], count: number): void {
  const failed = journal.filter((record) => record.decision === 'store_failed');
  expect(failed).toHaveLength(count);
  for (const record of failed) {
    expect(record.status).toBe(503);
    expect(record.reason).toMatch(
      /not stored within 1000 ms \(storeTimeoutMs\)|statement timeout|lock timeout|database is locked/,
    );
  }
}

// NOTE: the answer's time is bounded by the store, whichever platform writes it: PostgreSQL is
// tried over Express and SQLite over Fastify, so each platform answers a 503 and each database
// gives up its write.
describe('a delivery while webhook_events is locked on postgres over express', () => {
  const platform: Platform = 'express';
  let app: TestApp;
  let journal: DeliveryRecord[];
  let locker: Client;
  let watcher: Client;

  beforeEach(async () => {
    ({ app, journal } = await startApp(platform, 'postgres'));
    locker = new Client({ connectionString: app.databaseUrl });
    watcher = new Client({ connectionString: app.databaseUrl });
    await Promise.all([locker.connect(), watcher.connect()]);
  });

  afterEach(async () => {
    await locker?.end();
    await watcher?.end();
    await app?.close();
  });

  /** The app's inserts into webhook_events the server is still running. */
  async function runningInserts(): Promise<number> {
    // NOTE: asked outside the locking transaction, which would see one snapshot of the activity.
    const { rows } = await watcher.query<{ running: number }>(
      // NOTE: the answer path's upsert is one statement that also writes the work row
      // (`WITH recorded AS (INSERT INTO webhook_events …`): matched anywhere in the text, this
      // query's own text aside.
      "SELECT count(*)::int AS running FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid() AND query LIKE '%INSERT INTO webhook_events%'",
    );
    return rows[0].running;
  }

  it('is answered 503 within storeTimeoutMs, and the retry after the lock is gone gets 200, one row and one effect', async () => {
    const events = Array.from({ length: 3 }, stripeEvent);
    await locker.query('BEGIN');
    await locker.query('LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE');

    const { statuses, slowestMs } = await deliverAll(app, events);
    expect(statuses).toEqual([503, 503, 503]);
    expect(slowestMs).toBeLessThan(STORE_TIMEOUT_MS + MARGIN_MS);
    expectJournaledTimeouts(journal, 3);
    // The server gave up on the writes too, so nothing commits once the lock is gone.
    // NOTE: the answers' time is bounded above; how soon the server notices the cancelled
    // statements is not what is measured, and on a loaded machine it can take over 500 ms.
    await eventually(async () => (await runningInserts()) === 0, 5_000);
    await new Promise((resolve) => setTimeout(resolve, 100));

    // The connections the answer path gave back carry none of its limits: the pool hands the
    // most recently returned first, to handlers and to the application alike.
    const runners = Array.from({ length: 6 }, () => app.dataSource.createQueryRunner());
    try {
      const limits = await Promise.all(
        runners.map(async (runner) => {
          const [row] = (await runner.query(
            "SELECT current_setting('statement_timeout') AS statement, current_setting('lock_timeout') AS lock",
          )) as { statement: string; lock: string }[];
          return row;
        }),
      );
      expect(limits).toEqual(runners.map(() => ({ statement: '0', lock: '0' })));
    } finally {
      await Promise.all(runners.map((runner) => runner.release()));
    }

    await locker.query('ROLLBACK');
    expect(
      await app.dataSource.getRepository(WebhookEventEntity).countBy({ endpoint: 'stripe' }),
    ).toBe(0);
    await expectRetriesStoredOnce(app, events);
  }, 30_000);
});

describe("a delivery while another connection holds SQLite's write lock over fastify", () => {
  const platform: Platform = 'fastify';
  let app: TestApp;
  let journal: DeliveryRecord[];
  let other: BetterSqlite3.Database;

  beforeEach(async () => {
    ({ app, journal } = await startApp(platform, 'sqlite'));
    other = new BetterSqlite3(app.sqliteFile!);
  });

  afterEach(async () => {
    other?.close();
    await app?.close();
  });

  it('is answered 503 within storeTimeoutMs, and the retry after the lock is gone gets 200, one row and one effect', async () => {
    const events = Array.from({ length: 3 }, stripeEvent);
    other.exec('BEGIN IMMEDIATE');

    // Three at once, then one more: the dispatcher polls meanwhile, and stalls nothing.
    const { statuses, slowestMs } = await deliverAll(app, events);
    expect(statuses).toEqual([503, 503, 503]);
    expect(slowestMs).toBeLessThan(STORE_TIMEOUT_MS + MARGIN_MS);
    const late = stripeEvent();
    const { statuses: lateStatus, slowestMs: lateMs } = await deliverAll(app, [late]);
    expect(lateStatus).toEqual([503]);
    expect(lateMs).toBeLessThan(STORE_TIMEOUT_MS + MARGIN_MS);
    expectJournaledTimeouts(journal, 4);

    other.exec('ROLLBACK');
    await expectRetriesStoredOnce(app, [...events, late]);
  }, 30_000);

  it('waits for a write lock held for less than storeTimeoutMs, and answers 200', async () => {
    const event = stripeEvent();
    other.exec('BEGIN IMMEDIATE');
    const released = new Promise<void>((resolve) =>
      setTimeout(() => {
        other.exec('ROLLBACK');
        resolve();
      }, STORE_TIMEOUT_MS / 2),
    );
    const { statuses, slowestMs } = await deliverAll(app, [event]);
    await released;
    expect(statuses).toEqual([200]);
    expect(slowestMs).toBeGreaterThanOrEqual(STORE_TIMEOUT_MS / 2 - 50);
    await eventually(async () => (await countEffects(app, event.id)) === 1);
  });
});
