import 'reflect-metadata';
import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Headers, INestApplication, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  stripeEndpoint,
  WebhooksModuleOptions,
  webhooksMigrations,
  WebhookTransactions,
} from 'nestjs-payment-webhooks';
import {
  Idempotent,
  IdempotencyModule,
  IdempotentCall,
  idempotencyKeyFor,
  idempotencyMigrations,
} from 'nestjs-payment-webhooks/idempotency';
import { ensureBuiltCli } from '../support/cli';
import { post } from '../support/http';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { signedStripeEvent } from '../support/stripe-event';
import { countEffects, Database, eventually, startTestApp, TestApp } from '../support/test-app';

/**
 * `IdempotencyModule` is optional: an app without it needs none of its tables, an app with it
 * works with or without `WebhooksModule`, and a database made by the earlier single migration
 * list upgrades without losing a row.
 */

const SECRET = 'whsec_idempotency_module_e2e';
const WEBHOOKS: WebhooksModuleOptions = {
  endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
};
const ROOT = join(__dirname, '..', '..');

/** Counts the requests each Idempotency-Key ran. */
class Runs {
  private readonly byKey = new Map<string, number>();

  record(key: string | undefined): number {
    const label = key ?? 'none';
    const count = (this.byKey.get(label) ?? 0) + 1;
    this.byKey.set(label, count);
    return count;
  }

  of(key: string): number {
    return this.byKey.get(key) ?? 0;
  }
}

const runs = new Runs();

@Controller('charges')
class ChargesController {
  @Post()
  @Idempotent({ scope: 'charge' })
  async create(@Headers('idempotency-key') key: string | undefined) {
    runs.record(key);
    await new Promise((resolve) => setTimeout(resolve, 50));
    return { charge: randomUUID() };
  }
}

function sendCharge(
  url: string,
  key: string,
): Promise<{ status: number; body: string; replayed: boolean }> {
  return fetch(`${url}/charges`, {
    method: 'POST',
    body: '{}',
    headers: { 'content-type': 'application/json', 'idempotency-key': key },
  }).then(async (response) => ({
    status: response.status,
    body: await response.text(),
    replayed: response.headers.get('idempotent-replayed') === 'true',
  }));
}

async function tableExists(dataSource: DataSource, table: string): Promise<boolean> {
  if (dataSource.options.type === 'postgres') {
    const [row] = (await dataSource.query('SELECT to_regclass($1) IS NOT NULL AS found', [
      table,
    ])) as { found: boolean }[];
    return row.found;
  }
  const rows = (await dataSource.query(
    "SELECT name FROM sqlite_master WHERE type = 'table' AND name = ?",
    [table],
  )) as unknown[];
  return rows.length > 0;
}

/** A database of the test's own, SQLite or PostgreSQL, and the TypeORM options to reach it. */
async function testDatabase(
  kind: Database,
): Promise<{ typeorm: (migrations: unknown[]) => TypeOrmModuleOptions; drop(): Promise<void> }> {
  if (kind === 'postgres') {
    const pg: TestDatabase = await createTestDatabase();
    return {
      typeorm: (migrations) =>
        ({
          type: 'postgres',
          url: pg.url,
          autoLoadEntities: true,
          migrations,
          migrationsRun: true,
        }) as TypeOrmModuleOptions,
      drop: () => pg.drop(),
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pw-idem-module-'));
  return {
    typeorm: (migrations) =>
      ({
        type: 'better-sqlite3',
        database: join(dir, 'app.sqlite'),
        autoLoadEntities: true,
        migrations,
        migrationsRun: true,
      }) as TypeOrmModuleOptions,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function listen(app: INestApplication): Promise<string> {
  await app.listen(0, '127.0.0.1');
  return (await app.getUrl()).replace('[::1]', '127.0.0.1');
}

describe.each<Database>(['sqlite', 'postgres'])(
  'an app without IdempotencyModule on %s',
  (database) => {
    let app: TestApp | undefined;
    afterEach(async () => {
      await app?.close();
      app = undefined;
    });

    it('starts without the idempotency tables and stores a signed delivery once', async () => {
      app = await startTestApp({ platform: 'express', database, webhooks: WEBHOOKS });
      expect(await tableExists(app.dataSource, 'webhook_events')).toBe(true);
      expect(await tableExists(app.dataSource, 'idempotency_keys')).toBe(false);
      expect(await tableExists(app.dataSource, 'idempotent_calls')).toBe(false);
      const event = signedStripeEvent(SECRET);
      expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
      expect((await post(`${app.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
      await eventually(async () => (await countEffects(app!, event.id)) === 1);
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(await countEffects(app, event.id)).toBe(1);
    });

    it('fails at startup naming IdempotencyModule when a route uses @Idempotent()', async () => {
      await expect(
        startTestApp({
          platform: 'express',
          database,
          webhooks: WEBHOOKS,
          controllers: [ChargesController],
        }),
      ).rejects.toThrow(
        /need IdempotencyModule in the application: add IdempotencyModule\.forRoot/,
      );
    });
  },
);

describe.each<Database>(['sqlite', 'postgres'])('IdempotencyModule on %s', (database) => {
  let cleanup: () => Promise<void> = async () => undefined;
  afterEach(async () => {
    await cleanup();
    cleanup = async () => undefined;
  });

  it('fails at startup naming idempotencyMigrations when its tables are missing', async () => {
    const db = await testDatabase(database);
    cleanup = () => db.drop();
    @Module({
      imports: [TypeOrmModule.forRoot(db.typeorm(webhooksMigrations)), IdempotencyModule.forRoot()],
    })
    class MissingTablesModule {}
    await expect(
      NestFactory.create(MissingTablesModule, { logger: false, abortOnError: false }).then((app) =>
        app.init(),
      ),
    ).rejects.toThrow(/idempotency tables do not exist: add `\.\.\.idempotencyMigrations`/);
  });

  it('works without WebhooksModule: one run for 20 concurrent requests, one call per key', async () => {
    const db = await testDatabase(database);
    @Module({
      imports: [
        TypeOrmModule.forRoot(db.typeorm(idempotencyMigrations)),
        IdempotencyModule.forRoot(),
      ],
      controllers: [ChargesController],
    })
    class IdempotencyOnlyModule {}
    const app = await NestFactory.create(IdempotencyOnlyModule, {
      logger: false,
      abortOnError: false,
    });
    cleanup = async () => {
      await app.close();
      await db.drop();
    };
    const url = await listen(app);
    const key = randomUUID();
    const answers = await Promise.all(Array.from({ length: 20 }, () => sendCharge(url, key)));
    expect(runs.of(key)).toBe(1);
    expect(answers.every((a) => a.status === 201 || a.status === 409)).toBe(true);
    const replay = await sendCharge(url, key);
    expect(replay).toMatchObject({ status: 201, replayed: true });

    const calls = app.get(IdempotentCall);
    let made = 0;
    const refund = (order: string) =>
      calls.run(idempotencyKeyFor('refund', order), async () => ({ refund: ++made, order }));
    const results = await Promise.all(['a', 'b', 'c', 'd'].map((order) => refund(order)));
    expect(made).toBe(4);
    expect(await refund('b')).toEqual(results[1]);
    expect(made).toBe(4);
  });
});

describe('IdempotencyModule registrations', () => {
  it('serves a feature module from forRootAsync() with isGlobal: false', async () => {
    const db = await testDatabase('sqlite');
    @Module({ controllers: [ChargesController] })
    class ChargesModule {}
    @Module({
      imports: [
        TypeOrmModule.forRoot(db.typeorm(idempotencyMigrations)),
        IdempotencyModule.forRootAsync({ isGlobal: false, useFactory: async () => ({}) }),
        ChargesModule,
      ],
    })
    class NotGlobalModule {}
    const app = await NestFactory.create(NotGlobalModule, { logger: false, abortOnError: false });
    try {
      const url = await listen(app);
      const key = randomUUID();
      expect((await sendCharge(url, key)).status).toBe(201);
      expect(await sendCharge(url, key)).toMatchObject({ status: 201, replayed: true });
      expect(runs.of(key)).toBe(1);
    } finally {
      await app.close();
      await db.drop();
    }
  });

  it('shares the webhook store on SQLite: a call from inside a package transaction fails at once, saying so', async () => {
    const app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { ...WEBHOOKS, dispatch: { enabled: false } },
      idempotency: true,
    });
    try {
      const calls = app.app.get(IdempotentCall);
      let made = 0;
      const started = Date.now();
      await expect(
        app.app
          .get(WebhookTransactions)
          .run(() => calls.run(idempotencyKeyFor('refund', randomUUID()), async () => ++made)),
      ).rejects.toThrow(/one transaction at a time on its connection/);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(made).toBe(0);
      // Outside the transaction the same call runs, once.
      const key = idempotencyKeyFor('refund', randomUUID());
      expect(await calls.run(key, async () => ++made)).toBe(1);
      expect(await calls.run(key, async () => ++made)).toBe(1);
    } finally {
      await app.close();
    }
  });
});

describe.each<Database>(['sqlite', 'postgres'])('upgrading a database on %s', (database) => {
  it('keeps the idempotency tables and their rows without idempotencyMigrations, and runs nothing again with them', async () => {
    // NOTE: the earlier webhooksMigrations were these same classes, AddWebhookTransmissions aside.
    const earlier = [...webhooksMigrations, ...idempotencyMigrations];
    const pg = database === 'postgres' ? await createTestDatabase() : undefined;
    const dir = mkdtempSync(join(tmpdir(), 'pw-idem-upgrade-'));
    const place = pg ? { databaseUrl: pg.url } : { sqliteFile: join(dir, 'app.sqlite') };
    const first = await startTestApp({
      platform: 'express',
      database,
      webhooks: WEBHOOKS,
      controllers: [ChargesController],
      idempotency: true,
      ...place,
    });
    const key = randomUUID();
    const original = await sendCharge(first.url, key);
    expect(original.status).toBe(201);
    await first.close();
    expect(earlier.map((m) => m.name)).toEqual([
      'CreateWebhooksTables1764400000000',
      'AddEventOutcomes1764500000000',
      'AddWebhookTransmissions1764600000000',
      'SplitEventWork1764700000000',
      'AddEventTenants1764800000000',
      'AddEventHistory1764900000000',
      'AddRecoveryJobs1765000000000',
      'AddEventCopies1765100000000',
      'CreateIdempotencyTables1764560000000',
    ]);

    const withoutModule = await startTestApp({
      platform: 'express',
      database,
      webhooks: WEBHOOKS,
      ...place,
    });
    const event = signedStripeEvent(SECRET);
    expect(
      (await post(`${withoutModule.url}/webhooks/stripe`, event.body, event.headers)).status,
    ).toBe(200);
    const kept = (await withoutModule.dataSource.query(
      `SELECT state FROM idempotency_keys WHERE idempotency_key = ${database === 'postgres' ? '$1' : '?'}`,
      [key],
    )) as { state: string }[];
    expect(kept).toEqual([{ state: 'completed' }]);
    await withoutModule.app.close();

    const withModule = await startTestApp({
      platform: 'express',
      database,
      webhooks: WEBHOOKS,
      controllers: [ChargesController],
      idempotency: true,
      ...place,
    });
    try {
      const ran = (await withModule.dataSource.query('SELECT name FROM migrations')) as {
        name: string;
      }[];
      expect(ran.map((row) => row.name).sort()).toEqual(earlier.map((m) => m.name).sort());
      const replay = await sendCharge(withModule.url, key);
      expect(replay).toMatchObject({ status: 201, replayed: true, body: original.body });
      expect(runs.of(key)).toBe(1);
    } finally {
      await withModule.close();
      await pg?.drop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('the built package', () => {
  beforeAll(() => ensureBuiltCli(), 300_000);

  it('serves idempotency from nestjs-payment-webhooks/idempotency alone, and the webhook migrations without it', () => {
    const script = `
      const sub = require('nestjs-payment-webhooks/idempotency');
      const root = require('nestjs-payment-webhooks');
      console.log(JSON.stringify({
        module: typeof sub.IdempotencyModule.forRoot,
        migrations: sub.idempotencyMigrations.map((m) => m.name),
        entities: sub.idempotencyEntities.map((e) => e.name),
        rootHas: ['IdempotencyModule', 'IdempotentCall', 'Idempotent'].filter((name) => name in root),
        webhookMigrations: root.webhooksMigrations.map((m) => m.name),
      }));`;
    const output = execFileSync(process.execPath, ['-e', script], { cwd: ROOT, encoding: 'utf8' });
    expect(JSON.parse(output)).toEqual({
      module: 'function',
      migrations: ['CreateIdempotencyTables1764560000000'],
      entities: ['IdempotencyKeyEntity', 'IdempotentCallEntity'],
      rootHas: [],
      webhookMigrations: [
        'CreateWebhooksTables1764400000000',
        'AddEventOutcomes1764500000000',
        'AddWebhookTransmissions1764600000000',
        'SplitEventWork1764700000000',
        'AddEventTenants1764800000000',
        'AddEventHistory1764900000000',
        'AddRecoveryJobs1765000000000',
        'AddEventCopies1765100000000',
      ],
    });
  });
});
