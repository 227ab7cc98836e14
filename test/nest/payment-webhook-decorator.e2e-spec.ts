import 'reflect-metadata';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { Client } from 'pg';
import {
  CallHandler,
  Controller,
  Get,
  INestApplication,
  Injectable,
  Module,
  NestInterceptor,
  Post,
  Type,
} from '@nestjs/common';
import { APP_INTERCEPTOR, NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import { map, Observable } from 'rxjs';
import {
  adyenEndpoint,
  PaymentWebhook,
  stripeEndpoint,
  tbankEndpoint,
  WebhooksModule,
  WebhooksModuleOptions,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import {
  adyenNotificationItem,
  signTBankDelivery,
  tbankFixtures,
} from 'nestjs-payment-webhooks/testing';
import { signedAdyenBody } from '../support/adyen-delivery';
import { post } from '../support/http';
import { WebhookEventEntity, WebhookWorkEntity } from '../support/internals';
import { RecordingLogger } from '../support/recording-logger';
import { signedStripeEvent, stripePaymentEvent, stripeSignature } from '../support/stripe-event';
import {
  countEffects,
  Database,
  eventually,
  Platform,
  startTestApp,
  TestApp,
} from '../support/test-app';

/**
 * `@PaymentWebhook(endpoint)` on the app's own routes answers as the module's
 * `POST /webhooks/{endpoint}` does: same checks, same rows, same answers, on Express and
 * Fastify, SQLite and PostgreSQL.
 */

const STRIPE_SECRET = 'whsec_payment_webhook_decorator';
const TBANK_PASSWORD = 'payment-webhook-decorator-tbank';
const ADYEN_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';
const STORE_TIMEOUT_MS = 1000;
let sequence = 0;

/** How many times the decorated methods' own bodies ran. */
class MethodCalls {
  count = 0;
}

/** The app's routes, at the URLs its provider dashboards already point at. */
@Controller('api')
class ProviderHooks {
  constructor(private readonly calls: MethodCalls) {}

  @Post('stripe/hook')
  @PaymentWebhook('stripe')
  stripe(): string {
    this.calls.count += 1;
    return 'the method ran';
  }

  @Post('tbank/notify')
  @PaymentWebhook('tbank')
  tbank(): void {
    this.calls.count += 1;
  }

  @Post('adyen/notify')
  @PaymentWebhook('adyen')
  adyen(): void {
    this.calls.count += 1;
  }

  @Post('office/hook')
  @PaymentWebhook('office')
  office(): void {
    this.calls.count += 1;
  }

  @Post('small/hook')
  @PaymentWebhook('small')
  small(): void {
    this.calls.count += 1;
  }
}

/** An app-wide interceptor reshaping every result, as many APIs have. */
@Injectable()
class WrapResults implements NestInterceptor {
  intercept(_context: unknown, next: CallHandler): Observable<unknown> {
    return next.handle().pipe(map((data: unknown) => ({ data })));
  }
}

function webhookOptions(): WebhooksModuleOptions {
  return {
    endpoints: [
      stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET }),
      tbankEndpoint({ name: 'tbank', password: TBANK_PASSWORD }),
      adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_KEY }),
      stripeEndpoint({ name: 'office', secret: STRIPE_SECRET, allowedIps: ['10.0.0.0/8'] }),
      stripeEndpoint({ name: 'small', secret: STRIPE_SECRET, maxBodyBytes: 256 }),
    ],
    storeTimeoutMs: STORE_TIMEOUT_MS,
    dispatch: { pollIntervalMs: 100 },
  };
}

const matrix: [Platform, Database, boolean][] = [
  ['express', 'sqlite', false],
  ['express', 'postgres', true],
  ['fastify', 'sqlite', true],
  ['fastify', 'postgres', false],
];

describe.each(matrix)(
  '@PaymentWebhook routes over %s on %s (forRootAsync: %s)',
  (platform, database, async) => {
    let t: TestApp;
    const calls = new MethodCalls();
    const logger = new RecordingLogger();
    const rows = (endpoint: string) =>
      t.dataSource.getRepository(WebhookEventEntity).findBy({ endpoint });

    beforeAll(async () => {
      t = await startTestApp({
        platform,
        database,
        async,
        logger,
        webhooks: webhookOptions(),
        controllers: [ProviderHooks],
        providers: [
          { provide: MethodCalls, useValue: calls },
          { provide: APP_INTERCEPTOR, useClass: WrapResults },
        ],
      });
    });
    afterAll(async () => {
      await t?.close();
    });

    it('answers a signed Stripe delivery 200 with an empty body, twice, and runs the handler once', async () => {
      const event = stripePaymentEvent(STRIPE_SECRET);
      const first = await post(`${t.url}/api/stripe/hook`, event.body, event.headers());
      const again = await post(`${t.url}/api/stripe/hook`, event.body, event.headers());
      expect([first.status, first.body]).toEqual([200, '']);
      expect([again.status, again.body]).toEqual([200, '']);
      expect(first.headers.get('cache-control')).toBe('no-store');
      const events = t.dataSource.getRepository(WebhookEventEntity);
      const stored = await events.findBy({ eventId: event.id });
      expect(stored).toHaveLength(1);
      expect(stored[0].endpoint).toBe('stripe');
      expect(Number(stored[0].deliveryCount)).toBe(2);
      // Settled, with no work row left that could run the handler again: handled once for good.
      await eventually(
        async () => (await events.findOneByOrFail({ id: stored[0].id })).status === 'processed',
      );
      expect(
        await t.dataSource.getRepository(WebhookWorkEntity).countBy({ eventId: stored[0].id }),
      ).toBe(0);
      expect(await countEffects(t, event.id)).toBe(1);
    });

    it("answers exactly as the module's route, and a delivery to either URL is one event", async () => {
      const event = stripePaymentEvent(STRIPE_SECRET);
      const own = await post(`${t.url}/api/stripe/hook`, event.body, event.headers());
      const module = await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      expect([own.status, own.body]).toEqual([module.status, module.body]);
      expect(own.headers.get('content-type')).toBe(module.headers.get('content-type'));
      await eventually(async () => (await countEffects(t, event.id)) === 1);
      expect(
        await t.dataSource.getRepository(WebhookEventEntity).countBy({ eventId: event.id }),
      ).toBe(1);
    });

    it('answers a bad, missing or stale signature and a signed broken body 400, and stores nothing', async () => {
      const { id, body } = signedStripeEvent(STRIPE_SECRET);
      const now = Math.floor(Date.now() / 1000);
      const broken = '{"id": "evt_broken", ';
      const url = `${t.url}/api/stripe/hook`;
      const answers = await Promise.all([
        post(url, body, stripeSignature(body, 'whsec_wrong')),
        post(url, body),
        post(url, body.replace('1999', '1'), stripeSignature(body, STRIPE_SECRET)),
        post(url, body, stripeSignature(body, STRIPE_SECRET, { timestamp: now - 330 })),
        post(url, body, stripeSignature(body, STRIPE_SECRET, { timestamp: now + 330 })),
        post(url, broken, stripeSignature(broken, STRIPE_SECRET)),
      ]);
      expect(answers.map((answer) => answer.status)).toEqual([400, 400, 400, 400, 400, 400]);
      expect(await t.dataSource.getRepository(WebhookEventEntity).countBy({ eventId: id })).toBe(0);
    });

    it('answers T-Bank with the body OK, also for the duplicate', async () => {
      const orderId = `order-tbank-${database}-${platform}-${sequence++}`;
      const delivery = signTBankDelivery({
        password: TBANK_PASSWORD,
        payload: tbankFixtures.confirmed({ orderId, amount: 19200 }),
      });
      const first = await post(`${t.url}/api/tbank/notify`, delivery.body, delivery.headers);
      const again = await post(`${t.url}/api/tbank/notify`, delivery.body, delivery.headers);
      expect([first.status, first.body]).toEqual([200, 'OK']);
      expect([again.status, again.body]).toEqual([200, 'OK']);
      expect(first.headers.get('content-type')).toMatch(/^text\/plain/);
      const stored = (await rows('tbank')).filter((row) => row.merchantRef === orderId);
      expect(stored).toHaveLength(1);
      expect(Number(stored[0].deliveryCount)).toBe(2);
    });

    it('answers Adyen with the body [accepted], also for the duplicate', async () => {
      const pspReference = `PSP${sequence++}${Date.now()}`;
      const body = signedAdyenBody(ADYEN_KEY, [
        adyenNotificationItem('AUTHORISATION', { pspReference }),
      ]);
      const first = await post(`${t.url}/api/adyen/notify`, body);
      const again = await post(`${t.url}/api/adyen/notify`, body);
      expect([first.status, first.body]).toEqual([200, '[accepted]']);
      expect([again.status, again.body]).toEqual([200, '[accepted]']);
      const stored = (await rows('adyen')).filter((row) => row.paymentRef === pspReference);
      expect(stored).toHaveLength(1);
    });

    it('answers 403 to a source outside allowedIps and 413 over maxBodyBytes, and stores nothing', async () => {
      const event = signedStripeEvent(STRIPE_SECRET);
      const refused = await post(`${t.url}/api/office/hook`, event.body, event.headers);
      expect(refused.status).toBe(403);
      expect(refused.body).toContain('Source address not allowed');
      expect(event.body.length).toBeGreaterThan(256);
      const large = await post(`${t.url}/api/small/hook`, event.body, event.headers);
      expect(large.status).toBe(413);
      expect(await rows('office')).toHaveLength(0);
      expect(await rows('small')).toHaveLength(0);
    });

    it('answers 503 within storeTimeoutMs while the inbox is locked, and 200 to the retry', async () => {
      const event = stripePaymentEvent(STRIPE_SECRET);
      const release = await lockInbox(t, database);
      let answer;
      const startedAt = Date.now();
      try {
        answer = await post(`${t.url}/api/stripe/hook`, event.body, event.headers());
      } finally {
        await release();
      }
      expect(answer.status).toBe(503);
      expect(Date.now() - startedAt).toBeLessThan(STORE_TIMEOUT_MS + 500);
      const retry = await post(`${t.url}/api/stripe/hook`, event.body, event.headers());
      expect(retry.status).toBe(200);
      await eventually(async () => (await countEffects(t, event.id)) === 1);
    }, 20_000);

    it('never calls the decorated method, nor answers a second time after the app interceptor', () => {
      expect(calls.count).toBe(0);
      // Nest's exception handler logs a second answer on a sent response; there is none.
      expect(logger.of('ExceptionsHandler')).toEqual([]);
    });
  },
);

/** Holds the write lock on the inbox from another connection until the returned call. */
async function lockInbox(t: TestApp, database: Database): Promise<() => Promise<void>> {
  if (database === 'sqlite') {
    const other = new BetterSqlite3(t.sqliteFile!);
    other.exec('BEGIN IMMEDIATE');
    return async () => {
      other.exec('ROLLBACK');
      other.close();
    };
  }
  const locker = new Client({ connectionString: t.databaseUrl });
  await locker.connect();
  await locker.query('BEGIN');
  await locker.query('LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE');
  return async () => {
    await locker.query('ROLLBACK');
    await locker.end();
  };
}

describe.each<Platform>(['express', 'fastify'])(
  '@PaymentWebhook routes in an app created without rawBody: true over %s',
  (platform) => {
    it('answer 500 with the fix, in the body and the log, and store nothing', async () => {
      const logger = new RecordingLogger();
      const t = await startTestApp({
        platform,
        database: 'sqlite',
        rawBody: false,
        logger,
        webhooks: webhookOptions(),
        controllers: [ProviderHooks],
        providers: [{ provide: MethodCalls, useValue: new MethodCalls() }],
      });
      try {
        const event = signedStripeEvent(STRIPE_SECRET);
        const answer = await post(`${t.url}/api/stripe/hook`, event.body, event.headers);
        expect(answer.status).toBe(500);
        const { message } = JSON.parse(answer.body) as { message: string };
        expect(message).toContain('`NestFactory.create(AppModule, { rawBody: true })`');
        expect(logger.of('WebhookIngress', 'error').map((line) => line.text)).toContain(message);
        expect(await t.dataSource.getRepository(WebhookEventEntity).count()).toBe(0);
      } finally {
        await t.close();
      }
    });
  },
);

/** Boots an app on SQLite with `controllers` in a feature module of their own. */
async function bootFeatureApp(
  controllers: Type<unknown>[],
  options: { isGlobal?: boolean } = {},
): Promise<INestApplication> {
  const webhooks = WebhooksModule.forRoot({
    isGlobal: options.isGlobal,
    ...webhookOptions(),
    dispatch: { enabled: false },
  });
  @Module({ controllers, providers: [MethodCalls] })
  class FeatureModule {}
  @Module({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: join(mkdtempSync(join(tmpdir(), 'pw-decorator-')), 'inbox.sqlite'),
        autoLoadEntities: true,
        migrations: webhooksMigrations,
        migrationsRun: true,
      }),
      webhooks,
      FeatureModule,
    ],
  })
  class AppModule {}
  const app = await NestFactory.create(AppModule, {
    rawBody: true,
    logger: false,
    abortOnError: false,
  });
  try {
    await app.listen(0, '127.0.0.1');
  } catch (error) {
    await app.close().catch(() => undefined);
    throw error;
  }
  return app;
}

describe('@PaymentWebhook at startup', () => {
  it('fails when the endpoint name is not configured, naming the configured ones', async () => {
    @Controller('api')
    class Misspelt {
      @Post('stripe/hook')
      @PaymentWebhook('strpie')
      receive(): void {}
    }
    await expect(bootFeatureApp([Misspelt], { isGlobal: true })).rejects.toThrow(
      '@PaymentWebhook("strpie") on Misspelt.receive names an endpoint that is not configured ' +
        '(configured: "stripe", "tbank", "adyen", "office", "small")',
    );
  });

  it('fails when the route takes a method the endpoint is never delivered with', async () => {
    @Controller('api')
    class ByQuery {
      @Get('stripe/hook')
      @PaymentWebhook('stripe')
      receive(): void {}
    }
    await expect(bootFeatureApp([ByQuery], { isGlobal: true })).rejects.toThrow(
      'is on a GET route, and endpoint "stripe" takes deliveries by POST only: declare the route with @Post()',
    );
  });

  it('fails with the fix when the controller is in a module that does not see WebhooksModule', async () => {
    await expect(bootFeatureApp([ProviderHooks])).rejects.toThrow(
      'WebhooksModule.forRoot({ isGlobal: true, ... })',
    );
  });

  it('serves a route in any module of the app when WebhooksModule is registered with isGlobal', async () => {
    const app = await bootFeatureApp([ProviderHooks], { isGlobal: true });
    try {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const event = signedStripeEvent(STRIPE_SECRET);
      const answer = await post(`${url}/api/stripe/hook`, event.body, event.headers);
      expect([answer.status, answer.body]).toEqual([200, '']);
    } finally {
      await app.close();
    }
  });
});
