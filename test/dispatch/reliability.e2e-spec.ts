import {
  CanActivate,
  Controller,
  ExecutionContext,
  Get,
  Injectable,
  Module,
  SetMetadata,
} from '@nestjs/common';
import { APP_GUARD, NestFactory, Reflector } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import {
  stripeEndpoint,
  WebhooksModule,
  WebhooksModuleOptions,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import { createTestDatabase, TestDatabase } from '../support/postgres';
import { MatrixPlatform, startMatrixApp } from '../support/router-app';
import { post } from '../support/http';
import { heldByCrashedWorker, liveEvent } from '../support/inbox-state';
import { SignedStripeEvent, signedStripeEvent, stripeSignature } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  sameDatabaseAs,
  HandlerControl,
  Platform,
  startTestApp,
  TestApp,
  TestAppOptions,
} from '../support/test-app';

const SECRET = 'whsec_reliability_secret';

function signedEvent(type = 'payment_intent.succeeded'): SignedStripeEvent {
  return signedStripeEvent(SECRET, { type, amount: 500, currency: 'eur' });
}

function options(dispatch: WebhooksModuleOptions['dispatch'] = {}): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: {
      pollIntervalMs: 100,
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
      ...dispatch,
    },
  };
}

async function eventRow(t: Pick<TestApp, 'dataSource'>, _database: Database, eventId: string) {
  const row = await liveEvent(t.dataSource, eventId);
  return (
    row && {
      id: row.id,
      status: row.status,
      attempts: row.attempts,
      locked_by: row.lockedBy,
      delivery_count: row.deliveryCount,
      last_error: row.lastError,
    }
  );
}

describe.each<[MatrixPlatform, Database]>([
  ['express', 'sqlite'],
  ['fastify', 'postgres'],
  ['router', 'sqlite'],
  ['router', 'postgres'],
])('reliability over %s on %s', (platform, database) => {
  // NOTE: the tests share one database, each with events of its own and its own instances
  // (stopped before the next test starts), rather than making and migrating one each.
  let shared: TestDatabase | undefined;
  let onShared: Pick<TestAppOptions, 'databaseUrl' | 'sqliteFile'>;

  beforeAll(async () => {
    if (database === 'postgres') {
      shared = await createTestDatabase();
      onShared = { databaseUrl: shared.url };
    } else {
      onShared = {
        sqliteFile: join(mkdtempSync(join(tmpdir(), 'pw-reliability-')), 'inbox.sqlite'),
      };
    }
  });

  afterAll(() => shared?.drop());

  it('answers 503 while the store cannot write, acknowledges nothing, and recovers', async () => {
    const t = await startMatrixApp({ platform, database, webhooks: options(), ...onShared });
    try {
      const event = signedEvent();
      await t.dataSource.query('ALTER TABLE webhook_events RENAME TO webhook_events_away');
      const failed = await post(`${t.url}/webhooks/stripe`, event.body, event.headers);
      expect(failed.status).toBe(503);
      await t.dataSource.query('ALTER TABLE webhook_events_away RENAME TO webhook_events');
      expect(await eventRow(t, database, event.id)).toBeUndefined();
      // The provider's retry (same event, re-signed) succeeds once the store is back.
      const again = await post(
        `${t.url}/webhooks/stripe`,
        event.body,
        stripeSignature(event.body, SECRET),
      );
      expect(again.status).toBe(200);
      await eventually(async () => (await eventRow(t, database, event.id))?.status === 'processed');
      expect(await countEffects(t, event.id)).toBe(1);
    } finally {
      await t.close();
    }
  });

  it('reclaims an event whose worker died holding it, once the lease has expired', async () => {
    const ingressOnly = await startMatrixApp({
      platform,
      database,
      webhooks: options({ enabled: false }),
      ...onShared,
    });
    const event = signedEvent();
    try {
      expect(
        (await post(`${ingressOnly.url}/webhooks/stripe`, event.body, event.headers)).status,
      ).toBe(200);
      // A worker claimed it (attempt 1) and died: its lease ran out a second ago.
      const past = new Date(Date.now() - 1000);
      await heldByCrashedWorker(ingressOnly.dataSource, event.id, 1, past);
    } finally {
      await ingressOnly.stop();
    }
    const worker = await startMatrixApp({
      platform,
      database,
      webhooks: options(),
      ...sameDatabaseAs(ingressOnly),
    });
    try {
      await eventually(
        async () => (await eventRow(worker, database, event.id))?.status === 'processed',
      );
      expect(await eventRow(worker, database, event.id)).toMatchObject({
        attempts: 2,
        locked_by: null,
      });
      expect(await countEffects(worker, event.id)).toBe(1);
    } finally {
      await ingressOnly.close();
      await worker.close();
    }
  });

  it('moves an event to dead when its worker died holding it on every allowed attempt', async () => {
    const ingressOnly = await startMatrixApp({
      platform,
      database,
      webhooks: options({ enabled: false }),
      ...onShared,
    });
    const exhausted = signedEvent();
    const lastChance = signedEvent();
    try {
      for (const event of [exhausted, lastChance]) {
        expect(
          (await post(`${ingressOnly.url}/webhooks/stripe`, event.body, event.headers)).status,
        ).toBe(200);
      }
      // Claimed and lost 3 times (maxAttempts) and 2 times: each worker died holding it.
      const past = new Date(Date.now() - 1000);
      for (const [event, attempts] of [
        [exhausted, 3],
        [lastChance, 2],
      ] as const) {
        await heldByCrashedWorker(ingressOnly.dataSource, event.id, attempts, past);
      }
    } finally {
      await ingressOnly.stop();
    }
    const worker = await startMatrixApp({
      platform,
      database,
      webhooks: options(),
      ...sameDatabaseAs(ingressOnly),
    });
    try {
      await eventually(async () => {
        const rows = await Promise.all(
          [exhausted, lastChance].map((event) => eventRow(worker, database, event.id)),
        );
        return rows.every((row) => row?.status !== 'processing' && row?.status !== 'pending');
      });
      expect(await eventRow(worker, database, exhausted.id)).toMatchObject({
        status: 'dead',
        locked_by: null,
        last_error: expect.stringMatching(/^Gave up after 3 attempts; .*lost its lease/),
      });
      expect(await countEffects(worker, exhausted.id)).toBe(0);
      expect(await eventRow(worker, database, lastChance.id)).toMatchObject({
        status: 'processed',
        attempts: 3,
      });
      expect(await countEffects(worker, lastChance.id)).toBe(1);
    } finally {
      await ingressOnly.close();
      await worker.close();
    }
  });

  it('gives a held event back on shutdown and another instance applies it once', async () => {
    const control = new HandlerControl();
    const first = await startMatrixApp({
      platform,
      database,
      control,
      webhooks: options({ shutdownTimeoutMs: 100 }),
      ...onShared,
    });
    const event = signedEvent();
    // NOTE: still running when the stop's 100 ms for running handlers are over.
    control.scripts.set(event.id, { delayMs: 800 });
    expect((await post(`${first.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
      200,
    );
    await eventually(() => control.calls.some((c) => c.eventId === event.id));
    await first.stop();
    control.scripts.delete(event.id);
    const second = await startMatrixApp({
      platform,
      database,
      control,
      webhooks: options(),
      ...sameDatabaseAs(first),
    });
    try {
      await eventually(
        async () => (await eventRow(second, database, event.id))?.status === 'processed',
      );
      expect(await countEffects(second, event.id)).toBe(1);
    } finally {
      await first.close();
      await second.close();
    }
  });
});

describe.each<[Platform, Database]>([
  ['express', 'sqlite'],
  ['fastify', 'postgres'],
])('the Nest app without rawBody over %s on %s', (platform, database) => {
  it('fails the request with a 500 that names the fix when the app was created without rawBody', async () => {
    const t = await startTestApp({ platform, database, webhooks: options(), rawBody: false });
    try {
      const event = signedEvent();
      const response = await post(`${t.url}/webhooks/stripe`, event.body, event.headers);
      expect(response.status).toBe(500);
      expect(response.body).toContain('rawBody: true');
      expect(await eventRow(t, database, event.id)).toBeUndefined();
    } finally {
      await t.close();
    }
  });
});

describe('two instances on one PostgreSQL', () => {
  // NOTE: the tests share one database, each with events of its own.
  let shared: TestDatabase;

  beforeAll(async () => {
    shared = await createTestDatabase();
  });

  afterAll(() => shared?.drop());

  it('apply every event exactly once while both receive and dispatch', async () => {
    const control = new HandlerControl();
    const a = await startTestApp({
      platform: 'express',
      database: 'postgres',
      control,
      webhooks: options(),
      databaseUrl: shared.url,
    });
    const b = await startTestApp({
      platform: 'fastify',
      database: 'postgres',
      control,
      webhooks: options(),
      ...sameDatabaseAs(a),
    });
    try {
      const events = Array.from({ length: 150 }, () => signedEvent());
      // Every event goes to both instances at once, and a third time to one of them.
      const responses = await Promise.all(
        events.flatMap((e, i) => [
          post(`${a.url}/webhooks/stripe`, e.body, e.headers),
          post(`${b.url}/webhooks/stripe`, e.body, e.headers),
          post(`${(i % 2 ? a : b).url}/webhooks/stripe`, e.body, e.headers),
        ]),
      );
      expect(responses.filter((r) => r.status !== 200)).toHaveLength(0);
      const ids = events.map((event) => event.id);
      await eventually(async () => {
        const [{ count }] = (await a.dataSource.query(
          "SELECT count(*)::int AS count FROM webhook_events WHERE status = 'processed' AND event_id = ANY($1)",
          [ids],
        )) as { count: number }[];
        return count === events.length;
      }, 30_000);
      const [{ rows, deliveries }] = (await a.dataSource.query(
        'SELECT count(*)::int AS rows, sum(delivery_count)::int AS deliveries FROM webhook_events WHERE event_id = ANY($1)',
        [ids],
      )) as { rows: number; deliveries: number }[];
      expect(rows).toBe(150);
      expect(deliveries).toBe(450);
      const [{ effects, distinct }] = (await a.dataSource.query(
        'SELECT count(*)::int AS effects, count(DISTINCT "eventId")::int AS distinct FROM test_effects WHERE "eventId" = ANY($1)',
        [ids],
      )) as { effects: number; distinct: number }[];
      expect(effects).toBe(150);
      expect(distinct).toBe(150);
      expect(control.calls).toHaveLength(150);
    } finally {
      await b.close();
      await a.close();
    }
  });

  it('wakes a worker at once when another instance stores an event (LISTEN/NOTIFY)', async () => {
    const ingress = await startTestApp({
      platform: 'fastify',
      database: 'postgres',
      webhooks: options({ enabled: false }),
      databaseUrl: shared.url,
    });
    // NOTE: this worker polls only once a minute: only a notification can wake it in time.
    const worker = await startTestApp({
      platform: 'express',
      database: 'postgres',
      webhooks: options({ pollIntervalMs: 60_000 }),
      ...sameDatabaseAs(ingress),
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const event = signedEvent();
      const started = Date.now();
      expect((await post(`${ingress.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
      await eventually(
        async () => (await eventRow(worker, 'postgres', event.id))?.status === 'processed',
        5_000,
      );
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(worker.control.calls.map((c) => c.eventId)).toEqual([event.id]);
    } finally {
      await worker.close();
      await ingress.close();
    }
  });

  it('keeps a slow handler to one run: the lease is renewed while it works', async () => {
    const control = new HandlerControl();
    const dispatch = { leaseMs: 300, pollIntervalMs: 50 };
    const a = await startTestApp({
      platform: 'express',
      database: 'postgres',
      control,
      webhooks: options(dispatch),
      databaseUrl: shared.url,
    });
    const b = await startTestApp({
      platform: 'express',
      database: 'postgres',
      control,
      webhooks: options(dispatch),
      ...sameDatabaseAs(a),
    });
    try {
      const event = signedEvent();
      // NOTE: more than three leases long: without the renewals, b would claim it.
      control.scripts.set(event.id, { delayMs: 1000 });
      expect((await post(`${a.url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
      await eventually(
        async () => (await eventRow(a, 'postgres', event.id))?.status === 'processed',
      );
      expect(control.calls.filter((c) => c.eventId === event.id)).toHaveLength(1);
      expect((await eventRow(a, 'postgres', event.id))?.attempts).toBe(1);
    } finally {
      await b.close();
      await a.close();
    }
  });
});

describe('module configuration', () => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database.drop();
  });

  async function boot(
    webhooks: () => WebhooksModuleOptions,
    migrations = true,
    url = database.url,
  ): Promise<void> {
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'postgres',
          url,
          autoLoadEntities: true,
          migrations: migrations ? webhooksMigrations : [],
          migrationsRun: true,
          retryAttempts: 0,
        }),
        WebhooksModule.forRootAsync({ useFactory: webhooks }),
      ],
    })
    class AppModule {}
    const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
    await app.close();
  }

  it('fails at startup naming the fix for duplicate names, bad secrets and missing tables', async () => {
    await expect(
      boot(() => ({
        endpoints: [
          stripeEndpoint({ name: 'stripe', secret: SECRET }),
          stripeEndpoint({ name: 'stripe', secret: 'whsec_other' }),
        ],
      })),
    ).rejects.toThrow(/unique `name`/);
    await expect(
      boot(() => ({ endpoints: [stripeEndpoint({ name: 'stripe', secret: 'sk_live_oops' })] })),
    ).rejects.toThrow(/whsec_/);
    await expect(boot(() => ({ endpoints: [] }))).rejects.toThrow(/at least one endpoint/);
    const empty = await createTestDatabase();
    try {
      await expect(boot(() => options(), false, empty.url)).rejects.toThrow(/webhooksMigrations/);
    } finally {
      await empty.drop();
    }
  });

  it('keeps the inbox in a named data source given as the dataSource extra', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'pw-named-')), 'inbox.sqlite');
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          name: 'inbox',
          type: 'better-sqlite3',
          database: file,
          autoLoadEntities: true,
          migrations: webhooksMigrations,
          migrationsRun: true,
        }),
        WebhooksModule.forRoot({ dataSource: 'inbox', isGlobal: true, ...options() }),
      ],
    })
    class NamedModule {}
    const app = await NestFactory.create(NamedModule, { rawBody: true, logger: false });
    try {
      await app.listen(0, '127.0.0.1');
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const event = signedEvent('customer.created');
      expect((await post(`${url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);
      const inbox = app.get<DataSource>(getDataSourceToken('inbox'));
      const rows = (await inbox.query('SELECT status FROM webhook_events WHERE event_id = ?', [
        event.id,
      ])) as { status: string }[];
      expect(rows).toEqual([{ status: 'ignored' }]);
    } finally {
      await app.close();
    }
  });

  it('answers 403 to a source outside the endpoint allowlist and stores nothing', async () => {
    const t = await startTestApp({
      platform: 'fastify',
      database: 'sqlite',
      webhooks: {
        endpoints: [
          stripeEndpoint({ name: 'office', secret: SECRET, allowedIps: ['10.0.0.0/8'] }),
          stripeEndpoint({ name: 'local', secret: SECRET, allowedIps: ['127.0.0.1', '::1'] }),
        ],
      },
    });
    try {
      const event = signedEvent();
      const refused = await post(`${t.url}/webhooks/office`, event.body, event.headers);
      expect(refused.status).toBe(403);
      expect(await eventRow(t, 'sqlite', event.id)).toBeUndefined();
      expect((await post(`${t.url}/webhooks/local`, event.body, event.headers)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('applies controllerDecorators so a global guard can let webhooks through', async () => {
    const IS_PUBLIC = 'isPublic';
    @Injectable()
    class DenyUnlessPublic implements CanActivate {
      constructor(private readonly reflector: Reflector) {}
      canActivate(context: ExecutionContext): boolean {
        return (
          this.reflector.getAllAndOverride<boolean>(IS_PUBLIC, [
            context.getHandler(),
            context.getClass(),
          ]) === true
        );
      }
    }
    @Controller('private')
    class PrivateController {
      @Get()
      get() {
        return 'secret';
      }
    }
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: options(),
      extras: { path: 'hooks/payments', controllerDecorators: [SetMetadata(IS_PUBLIC, true)] },
      providers: [{ provide: APP_GUARD, useClass: DenyUnlessPublic }],
      controllers: [PrivateController],
    });
    try {
      const event = signedEvent();
      expect((await post(`${t.url}/hooks/payments/stripe`, event.body, event.headers)).status).toBe(
        200,
      );
      expect((await fetch(`${t.url}/private`)).status).toBe(403);
    } finally {
      await t.close();
    }
  });
});
