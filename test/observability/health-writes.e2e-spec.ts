import { randomBytes } from 'node:crypto';
import BetterSqlite3 from 'better-sqlite3';
import { Client } from 'pg';
import {
  stripeEndpoint,
  WebhooksHealthIndicator,
  WebhooksHealthReport,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { stripePaymentEvent } from '../support/stripe-event';
import { createTestDatabase, postgresAdminUrl, TestDatabase } from '../support/postgres';
import { countEffects, eventually, Platform, startTestApp, TestApp } from '../support/test-app';

const SECRET = 'whsec_health_writes';
const STORE_TIMEOUT_MS = 1000;

const webhooks: WebhooksModuleOptions = {
  endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
  storeTimeoutMs: STORE_TIMEOUT_MS,
  observability: { sampleCacheMs: 0 },
};

/** Sends a new payment event as Stripe signs it; resolves to its id and the answer's status. */
async function deliver(app: TestApp): Promise<{ id: string; status: number }> {
  const event = stripePaymentEvent(SECRET);
  const answer = await post(`${app.url}/webhooks/stripe`, event.body, event.headers());
  return { id: event.id, status: answer.status };
}

function health(app: TestApp): Promise<WebhooksHealthReport> {
  return app.app.get(WebhooksHealthIndicator).checkHealth();
}

/** Waits until the report says deliveries can be stored again, then checks one is. */
async function expectWritesBack(app: TestApp): Promise<void> {
  await eventually(async () => (await health(app)).status === 'up');
  const report = await health(app);
  expect(report.writes).toEqual({ ok: true });
  expect(report.problems).toEqual([]);
  const stored = await deliver(app);
  expect(stored.status).toBe(200);
  await eventually(async () => (await countEffects(app, stored.id)) === 1);
}

function expectWritesDown(report: WebhooksHealthReport, cause: RegExp): void {
  expect(report.status).toBe('down');
  expect(report.database.up).toBe(true);
  expect(report.writes.ok).toBe(false);
  expect(report.writes.error).toMatch(cause);
  expect(report.problems).toEqual([
    expect.stringMatching(/^Deliveries cannot be stored and are answered 503: /),
  ]);
  expect(report.problems[0]).toMatch(cause);
}

describe.each<Platform>(['express', 'fastify'])(
  'health of a PostgreSQL store that cannot write, over %s',
  (platform) => {
    let database: TestDatabase;
    let admin: Client;
    let role: string;
    let app: TestApp;

    // NOTE: one database, role and app for both tests: each gives the role back what it took.
    beforeAll(async () => {
      database = await createTestDatabase();
      role = `pw_writer_${randomBytes(5).toString('hex')}`;
      admin = new Client({ connectionString: database.url });
      await admin.connect();
      await admin.query(`CREATE ROLE ${role} LOGIN`);
      // NOTE: the app's role owns the database, so the migrations it runs create the tables.
      await admin.query(
        `ALTER DATABASE ${new URL(database.url).pathname.slice(1)} OWNER TO ${role}`,
      );
      const url = new URL(database.url);
      url.username = role;
      app = await startTestApp({
        platform,
        database: 'postgres',
        webhooks,
        databaseUrl: url.toString(),
      });
    });

    afterAll(async () => {
      await app?.close();
      await admin?.end();
      await database?.drop();
      const server = new Client({ connectionString: postgresAdminUrl() });
      await server.connect();
      try {
        await server.query(`DROP ROLE IF EXISTS ${role}`);
      } finally {
        await server.end();
      }
    });

    /** Ends the app's sessions, so its pool connects again with the role's new settings. */
    async function reconnect(): Promise<void> {
      await admin.query(
        'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = $1',
        [role],
      );
      // The server's notice that it ended them reaches the client a moment later.
      await new Promise((resolve) => setTimeout(resolve, 200));
    }

    it('is down naming the missing privilege once the role loses INSERT on webhook_events, and up once it has it again', async () => {
      expect(await health(app)).toMatchObject({ status: 'up', writes: { ok: true } });

      await admin.query(`REVOKE INSERT ON webhook_events FROM ${role}`);
      expectWritesDown(
        await health(app),
        new RegExp(`role "${role}" may not write .*GRANT INSERT ON webhook_events TO "${role}"`),
      );
      expect((await deliver(app)).status).toBe(503);

      await admin.query(`GRANT INSERT ON webhook_events TO ${role}`);
      await expectWritesBack(app);
    });

    it('is down naming the read-only session when the role connects read-only, and up once it connects read-write', async () => {
      await admin.query(`ALTER ROLE ${role} SET default_transaction_read_only = on`);
      await reconnect();
      await eventually(async () => (await health(app)).writes.error !== undefined);
      expectWritesDown(await health(app), /the database session is read-only/);
      expect((await deliver(app)).status).toBe(503);

      await admin.query(`ALTER ROLE ${role} RESET default_transaction_read_only`);
      await reconnect();
      await expectWritesBack(app);
    });
  },
);

describe('health of a SQLite store while another connection holds the write lock', () => {
  let app: TestApp;
  let other: BetterSqlite3.Database;

  beforeAll(async () => {
    app = await startTestApp({ platform: 'express', database: 'sqlite', webhooks });
    other = new BetterSqlite3(app.sqliteFile!);
  });

  afterAll(async () => {
    other?.close();
    await app?.close();
  });

  it('is down while deliveries cannot be stored, and up once the lock is gone without a delivery', async () => {
    expect(await health(app)).toMatchObject({ status: 'up', writes: { ok: true } });
    other.exec('BEGIN IMMEDIATE');
    expect((await deliver(app)).status).toBe(503);
    expectWritesDown(await health(app), /database is locked|held back by a lock/);

    other.exec('ROLLBACK');
    await expectWritesBack(app);
  });
});

describe('health between two samples of the inbox', () => {
  let app: TestApp;
  let other: BetterSqlite3.Database;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'fastify',
      database: 'sqlite',
      webhooks: { ...webhooks, observability: { sampleCacheMs: 60_000 } },
    });
    other = new BetterSqlite3(app.sqliteFile!);
  });

  afterAll(async () => {
    other?.close();
    await app?.close();
  });

  it('is down as soon as a delivery cannot be stored, and up as soon as one is', async () => {
    expect(await health(app)).toMatchObject({ status: 'up', writes: { ok: true } });
    other.exec('BEGIN IMMEDIATE');
    expect((await deliver(app)).status).toBe(503);
    // The sample taken before the failure is still the one in use.
    const report = await health(app);
    expectWritesDown(
      report,
      /the last one failed at .*: (database is locked|The delivery was not stored within 1000 ms)/,
    );

    other.exec('ROLLBACK');
    const stored = await deliver(app);
    expect(stored.status).toBe(200);
    expect(await health(app)).toMatchObject({ status: 'up', writes: { ok: true } });
    expect((await health(app)).sampledAt).toEqual(report.sampledAt);
  });
});
