import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { TypeOrmModule, TypeOrmModuleOptions, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  stripeEndpoint,
  WebhookAdmin,
  webhookEntities,
  WebhookConfigurationError,
  WebhooksModule,
  webhooksMigrations,
  WebhookStore,
} from 'nestjs-payment-webhooks';
import { createWebhooksRouter } from 'nestjs-payment-webhooks/express';
import { post } from '../support/http';
import { TypeOrmWebhookStore, WebhooksEngine } from '../support/internals';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { signedStripeEvent } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  HandlerControl,
  TestEffect,
  TestPaymentHandlers,
} from '../support/test-app';

const SECRET = 'whsec_replaced_store_secret';

/** A store that hands every call on to `inner` and counts them by method. */
function countingStore(inner: WebhookStore, calls: Map<string, number>): WebhookStore {
  return new Proxy(inner, {
    get(target, name) {
      const value: unknown = Reflect.get(target, name, target);
      if (typeof value !== 'function') {
        return value;
      }
      return (...args: unknown[]) => {
        calls.set(String(name), (calls.get(String(name)) ?? 0) + 1);
        return (value as (...given: unknown[]) => unknown).apply(target, args);
      };
    },
  });
}

async function typeormOptions(
  database: Database,
  pg?: TestDatabase,
): Promise<TypeOrmModuleOptions> {
  const common = {
    entities: [...webhookEntities, TestEffect],
    migrations: webhooksMigrations,
    migrationsRun: true,
    synchronize: false,
  };
  return database === 'postgres'
    ? { type: 'postgres', url: pg!.url, ...common }
    : {
        type: 'better-sqlite3',
        database: join(mkdtempSync(join(tmpdir(), 'pw-store-')), 'inbox.sqlite'),
        ...common,
      };
}

const EFFECTS_TABLE = {
  postgres:
    'CREATE TABLE test_effects (id serial PRIMARY KEY, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)',
  sqlite:
    'CREATE TABLE test_effects (id integer PRIMARY KEY AUTOINCREMENT, "eventId" varchar NOT NULL, handler varchar NOT NULL, "merchantRef" varchar)',
};

describe.each<Database>(['sqlite', 'postgres'])('a store of the app’s own (%s)', (database) => {
  let pg: TestDatabase | undefined;
  let app: INestApplication;
  let url: string;
  const calls = new Map<string, number>();

  beforeAll(async () => {
    pg = database === 'postgres' ? await createTestDatabase() : undefined;
    const moduleRef = await Test.createTestingModule({
      imports: [
        TypeOrmModule.forRoot(await typeormOptions(database, pg)),
        WebhooksModule.forRoot({
          endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
          dispatch: { pollIntervalMs: 50 },
        }),
      ],
      providers: [HandlerControl, TestPaymentHandlers],
    })
      .overrideProvider(WebhookStore)
      .useFactory({
        factory: (dataSource: DataSource) =>
          countingStore(new TypeOrmWebhookStore(dataSource), calls),
        inject: [getDataSourceToken()],
      })
      .compile();
    app = moduleRef.createNestApplication({ rawBody: true, logger: false });
    await app.get<DataSource>(getDataSourceToken()).query(EFFECTS_TABLE[database]);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    await pg?.drop();
  });

  it('is the one the module stores, runs and answers through, under the WebhookStore token', async () => {
    const event = signedStripeEvent(SECRET);
    const first = await post(`${url}/webhooks/stripe`, event.body, event.headers);
    const second = await post(`${url}/webhooks/stripe`, event.body, event.headers);
    expect([first.status, second.status]).toEqual([200, 200]);
    const dataSource = app.get<DataSource>(getDataSourceToken());
    await eventually(async () => {
      const [stored] = await app.get(WebhookAdmin).list({ endpoint: 'stripe' });
      return stored?.status === 'processed';
    });
    expect(await countEffects({ dataSource }, event.id)).toBe(1);
    expect(calls.get('initialize')).toBe(1);
    expect(calls.get('record')).toBe(2);
    expect(calls.get('runHandler')).toBe(1);
    expect(calls.get('claim')).toBeGreaterThanOrEqual(1);
    expect(app.get(WebhookStore)).toBe(app.get(WebhookStore));
  });

  it('is closed with the app', async () => {
    const before = calls.get('close') ?? 0;
    await app.close();
    expect(calls.get('close')).toBe(before + 1);
  });
});

describe('createWebhooksRouter({ store })', () => {
  it('stores and runs through the given store, without a data source, and closes it on stop', async () => {
    const dataSource = await sqliteInbox();
    const calls = new Map<string, number>();
    const handled: string[] = [];
    const router = await createWebhooksRouter({
      store: countingStore(new TypeOrmWebhookStore(dataSource), calls),
      endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
      dispatch: { pollIntervalMs: 50 },
      handlers: [
        { on: 'payment.succeeded', name: 'fulfil', handle: (e) => void handled.push(e.eventId) },
      ],
      logger: { log() {}, warn() {}, error() {} },
    });
    const server = createServer((request, response) =>
      router(request, response, () => response.writeHead(404).end()),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const event = signedStripeEvent(SECRET);
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/stripe`;
      expect((await post(url, event.body, event.headers)).status).toBe(200);
      await eventually(() => handled.length === 1);
      expect(handled).toEqual([event.id]);
      expect(calls.get('record')).toBe(1);
      expect(calls.get('runHandler')).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await router.stop();
      await dataSource.destroy();
    }
    expect(calls.get('close')).toBe(1);
  });
});

/** A new SQLite inbox, migrated, on a data source of its own. */
async function sqliteInbox(): Promise<DataSource> {
  const dataSource = new DataSource({
    type: 'better-sqlite3',
    database: join(mkdtempSync(join(tmpdir(), 'pw-engine-')), 'inbox.sqlite'),
    entities: webhookEntities,
    migrations: webhooksMigrations,
    migrationsRun: true,
  });
  return dataSource.initialize();
}

describe('WebhooksEngine.create({ store })', () => {
  const options = { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] };

  it('builds on the given store without a data source', async () => {
    const dataSource = await sqliteInbox();
    const calls = new Map<string, number>();
    const engine = await WebhooksEngine.create({
      options,
      store: countingStore(new TypeOrmWebhookStore(dataSource), calls),
    });
    try {
      const event = signedStripeEvent(SECRET);
      const answer = await engine.ingest({
        endpoint: 'stripe',
        method: 'POST',
        rawBody: Buffer.from(event.body),
        headers: event.headers,
        sourceIp: '127.0.0.1',
        receivedAt: new Date(),
      });
      expect(answer.status).toBe(200);
      expect(calls.get('record')).toBe(1);
      const [row] = await dataSource.query('SELECT event_id FROM webhook_events');
      expect(row).toEqual({ event_id: event.id });
    } finally {
      await engine.close();
      await dataSource.destroy();
    }
    expect(calls.get('close')).toBe(1);
  });

  it('refuses to start with neither a data source nor a store, naming both', async () => {
    const started = WebhooksEngine.create({ options });
    await expect(started).rejects.toThrow(WebhookConfigurationError);
    await expect(WebhooksEngine.create({ options })).rejects.toThrow(/`dataSource`.*`store`/);
  });
});
