import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { stripeEndpoint, webhookEntities, webhooksMigrations } from 'nestjs-payment-webhooks';
import { idempotencyEntities, idempotencyMigrations } from 'nestjs-payment-webhooks/idempotency';
import { post } from '../support/http';
import { IDEMPOTENCY_TABLES, WEBHOOK_TABLES } from '../support/internals';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { SignedStripeEvent, signedStripeEvent } from '../support/stripe-event';
import {
  Database,
  eventually,
  startTestApp,
  TestAppOptions,
  TestEffect,
} from '../support/test-app';

const SECRET = 'whsec_schema_secret';
const TABLES = [...WEBHOOK_TABLES, ...IDEMPOTENCY_TABLES].map((shape) => shape.table);

/** A database of its own for one test, on either engine. */
interface Target {
  readonly options: Pick<TestAppOptions, 'database' | 'databaseUrl' | 'sqliteFile'>;
  dataSource(): Promise<DataSource>;
  drop(): Promise<void>;
}

async function target(database: Database): Promise<Target> {
  if (database === 'postgres') {
    const db: TestDatabase = await createTestDatabase();
    return {
      options: { database, databaseUrl: db.url },
      dataSource: () => new DataSource({ type: 'postgres', url: db.url }).initialize(),
      drop: () => db.drop(),
    };
  }
  const sqliteFile = join(mkdtempSync(join(tmpdir(), 'pw-schema-')), 'inbox.sqlite');
  return {
    options: { database, sqliteFile },
    dataSource: () => new DataSource({ type: 'better-sqlite3', database: sqliteFile }).initialize(),
    drop: async () => undefined,
  };
}

/** The package's tables as the catalog describes them: columns, indexes, constraints. */
async function catalog(database: Database, dataSource: DataSource): Promise<unknown[]> {
  if (database === 'sqlite') {
    return dataSource.query(
      `SELECT type, name, tbl_name, sql FROM sqlite_master WHERE tbl_name IN (${TABLES.map(() => '?').join(', ')}) ORDER BY name`,
      TABLES,
    );
  }
  const columns = await dataSource.query(
    'SELECT table_name, column_name, data_type, character_maximum_length, is_nullable, column_default ' +
      'FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ANY($1) ' +
      'ORDER BY table_name, column_name',
    [TABLES],
  );
  const indexes = await dataSource.query(
    'SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() ' +
      'AND tablename = ANY($1) ORDER BY indexname',
    [TABLES],
  );
  const constraints = await dataSource.query(
    'SELECT conrelid::regclass::text AS "table", conname, pg_get_constraintdef(oid) AS definition ' +
      'FROM pg_constraint WHERE conrelid::regclass::text = ANY($1) ORDER BY conname',
    [TABLES],
  );
  return [columns, indexes, constraints];
}

/** `pg_dump -s` of the package's tables, or null when this machine's pg_dump cannot dump the server. */
async function pgDump(url: string, dataSource: DataSource): Promise<string | null> {
  let client: number;
  try {
    client = Number(/(\d+)/.exec(execFileSync('pg_dump', ['--version']).toString())![1]);
  } catch {
    return null;
  }
  const [{ server_version_num }] = await dataSource.query('SHOW server_version_num');
  if (client < Math.floor(Number(server_version_num) / 10000)) return null;
  const args = ['-s', '--no-owner', '--no-privileges', ...TABLES.flatMap((t) => ['-t', t]), url];
  // NOTE: newer pg_dump releases fence the dump with a random \restrict key; it is not schema.
  return execFileSync('pg_dump', args)
    .toString()
    .replace(/^\\(un)?restrict .*$/gm, '');
}

async function snapshot(
  database: Database,
  t: Target,
): Promise<{ catalog: unknown; dump: string | null }> {
  const dataSource = await t.dataSource();
  try {
    const dump = database === 'postgres' ? await pgDump(t.options.databaseUrl!, dataSource) : null;
    return { catalog: await catalog(database, dataSource), dump };
  } finally {
    await dataSource.destroy();
  }
}

function stripeDelivery(): SignedStripeEvent {
  return signedStripeEvent(SECRET, { paymentId: 'pi_schema', amount: 500, currency: 'eur' });
}

async function boot(t: Target, extra: Partial<TestAppOptions> = {}) {
  return startTestApp({
    platform: 'express',
    ...t.options,
    webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
    idempotency: true,
    ...extra,
  });
}

async function startupError(t: Target, extra: Partial<TestAppOptions> = {}): Promise<string> {
  try {
    const app = await boot(t, extra);
    await app.app.close();
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error('the app started');
}

describe.each<Database>(['sqlite', 'postgres'])('the package tables on %s', (database) => {
  let t: Target;
  beforeEach(async () => {
    t = await target(database);
  });
  afterEach(() => t.drop());

  it('keeps them as the migrations made them when the app runs with synchronize: true', async () => {
    const first = await boot(t);
    const delivery = stripeDelivery();
    expect(
      (await post(`${first.url}/webhooks/stripe`, delivery.body, delivery.headers)).status,
    ).toBe(200);
    await eventually(async () => (await first.dataSource.getRepository(TestEffect).count()) === 1);
    await first.app.close();
    const before = await snapshot(database, t);

    const synced = await boot(t, { synchronize: true });
    const again = await post(`${synced.url}/webhooks/stripe`, delivery.body, delivery.headers);
    const next = stripeDelivery();
    const fresh = await post(`${synced.url}/webhooks/stripe`, next.body, next.headers);
    await eventually(async () => (await synced.dataSource.getRepository(TestEffect).count()) === 2);
    const rows = await synced.dataSource.query('SELECT count(*) AS n FROM webhook_events');
    await synced.app.close();
    const after = await snapshot(database, t);

    expect([again.status, fresh.status]).toEqual([200, 200]);
    expect(Number(rows[0].n)).toBe(2);
    expect(after.catalog).toEqual(before.catalog);
    expect(after.dump).toEqual(before.dump);
    if (database === 'postgres' && before.dump !== null) {
      expect(before.dump).toContain('timestamp with time zone');
      expect(before.dump).toContain('ix_webhook_work_due');
    }
  });

  it('names exactly the indexes the migrations create', async () => {
    const dataSource = await new DataSource({
      ...(database === 'postgres'
        ? { type: 'postgres' as const, url: t.options.databaseUrl }
        : { type: 'better-sqlite3' as const, database: t.options.sqliteFile! }),
      entities: [...webhookEntities, ...idempotencyEntities],
      migrations: [...webhooksMigrations, ...idempotencyMigrations],
    }).initialize();
    try {
      await dataSource.runMigrations();
      for (const shape of [...WEBHOOK_TABLES, ...IDEMPOTENCY_TABLES]) {
        const indexes: { name: string }[] =
          database === 'postgres'
            ? await dataSource.query(
                "SELECT indexname AS name FROM pg_indexes WHERE tablename = $1 AND indexname NOT LIKE '%_pkey'",
                [shape.table],
              )
            : await dataSource.query("SELECT name FROM pragma_index_list(?) WHERE origin = 'c'", [
                shape.table,
              ]);
        expect(indexes.map((i) => i.name).sort()).toEqual([...shape.indexes].sort());
      }
    } finally {
      await dataSource.destroy();
    }
  });

  it('refuses to start on a database without them, naming the migrations, even with synchronize: true', async () => {
    const message = await startupError(t, { migrations: false, synchronize: true });
    expect(message).toContain('The webhook tables do not exist');
    expect(message).toContain('webhooksMigrations');
    expect(message).toContain('`synchronize` does not create them');
  });

  const breakages: [string, string, string][] = [
    [
      'a missing index',
      'DROP INDEX ix_webhook_work_due',
      '"webhook_work": index "ix_webhook_work_due" is missing',
    ],
    [
      'a missing column',
      'ALTER TABLE webhook_events DROP COLUMN provider_status',
      '"webhook_events": column "provider_status" is missing',
    ],
    [
      'a missing idempotency index',
      'DROP INDEX ix_idempotency_keys_expires_at',
      '"idempotency_keys": index "ix_idempotency_keys_expires_at" is missing',
    ],
  ];
  if (database === 'postgres') {
    breakages.push(
      [
        'a date column without its time zone',
        'ALTER TABLE webhook_events ALTER COLUMN received_at TYPE timestamp',
        '"webhook_events": column "received_at" is timestamp without time zone, not timestamp with time zone',
      ],
      [
        'a dropped CHECK constraint',
        "DO $$ DECLARE c text; BEGIN SELECT conname INTO c FROM pg_constraint WHERE conrelid = 'webhook_events'::regclass AND contype = 'c'; EXECUTE format('ALTER TABLE webhook_events DROP CONSTRAINT %I', c); END $$",
        '"webhook_events": 1 of its 1 CHECK constraints are missing',
      ],
      [
        "the work rows' CHECK constraint dropped",
        "DO $$ DECLARE c text; BEGIN SELECT conname INTO c FROM pg_constraint WHERE conrelid = 'webhook_work'::regclass AND contype = 'c'; EXECUTE format('ALTER TABLE webhook_work DROP CONSTRAINT %I', c); END $$",
        '"webhook_work": 1 of its 1 CHECK constraints are missing',
      ],
    );
  }

  it.each(breakages)(
    'refuses to start with %s, naming it and the fix',
    async (_, change, phrase) => {
      const app = await boot(t);
      await app.app.close();
      const dataSource = await t.dataSource();
      await dataSource.query(change);
      await dataSource.destroy();

      const message = await startupError(t);
      expect(message).toContain(phrase);
      expect(message).toContain(
        phrase.startsWith('"idempotency_keys"') ? 'idempotencyMigrations' : 'webhooksMigrations',
      );
      expect(message).toContain('run the migrations again');
    },
  );
});
