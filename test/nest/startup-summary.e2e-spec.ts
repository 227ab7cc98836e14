import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Controller, Get, Injectable, Module, Post } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { TypeOrmModule } from '@nestjs/typeorm';
import {
  OnPaymentEvent,
  PaymentWebhook,
  qvardEndpoint,
  sberEndpoint,
  stripeEndpoint,
  WebhooksModule,
  webhooksMigrations,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import type {
  WebhookHandlerDefinition,
  WebhooksRouterLogger,
} from 'nestjs-payment-webhooks/express';
import { RecordingLogger } from '../support/recording-logger';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { startRouterApp } from '../support/router-app';
import { startTestApp } from '../support/test-app';

@Injectable()
class ShopHandlers {
  @OnPaymentEvent('payment.succeeded', { endpoint: 'stripe' })
  async paid(): Promise<void> {}

  @OnPaymentEvent('stripe:charge.dispute.created')
  async dispute(): Promise<void> {}

  /** A Qvard native type, but only from the Stripe endpoint: it can never fire. */
  @OnPaymentEvent('qvard:completed', { endpoint: 'stripe' })
  async misrouted(): Promise<void> {}
}

@Injectable()
class BankHandlers {
  @OnPaymentEvent('sber:deposited')
  async deposited(): Promise<void> {}
}

/** Routes of the app's own, at the URLs its provider dashboards point at. */
@Controller('shop')
class ShopHooks {
  @Post('stripe/hook')
  @PaymentWebhook('stripe')
  stripe(): void {}

  @Get(['sber/callback', 'sber/notify'])
  @PaymentWebhook('sber')
  sber(): void {}
}

const webhooks: WebhooksModuleOptions = {
  endpoints: [
    stripeEndpoint({ name: 'stripe', secret: 'whsec_summary_secret' }),
    stripeEndpoint({ name: 'stripe-eu', secret: 'whsec_summary_eu_secret' }),
    sberEndpoint({ name: 'sber', callbackToken: 'sber-summary-token' }),
    qvardEndpoint({ name: 'qvard', secret: 'qvard-summary-secret' }),
  ],
  dispatch: { enabled: false },
};

describe.each([false, true])('the startup summary (forRootAsync: %s)', (async) => {
  const logger = new RecordingLogger();

  beforeAll(async () => {
    const t = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      async,
      logger,
      webhooks,
      handlers: [ShopHandlers, BankHandlers],
      controllers: [ShopHooks],
      extras: { path: 'hooks' },
      configure: (app) => app.setGlobalPrefix('api'),
    });
    await t.close();
  });

  it("names each endpoint once with its routes, the app's @PaymentWebhook ones too, and the handlers it runs", () => {
    expect(logger.of('WebhooksModule', 'log').map((line) => line.text)).toEqual([
      'Endpoint "stripe" (stripe) at POST /api/hooks/stripe and ' +
        'POST /api/shop/stripe/hook (@PaymentWebhook on ShopHooks.stripe) runs ' +
        'ShopHandlers.paid (payment.succeeded), ShopHandlers.dispute (stripe:charge.dispute.created)',
      'Endpoint "stripe-eu" (stripe) at POST /api/hooks/stripe-eu runs ' +
        'ShopHandlers.dispute (stripe:charge.dispute.created)',
      'Endpoint "sber" (sber) at GET|POST /api/hooks/sber and ' +
        'GET /api/shop/sber/callback (@PaymentWebhook on ShopHooks.sber) and ' +
        'GET /api/shop/sber/notify (@PaymentWebhook on ShopHooks.sber) runs ' +
        'BankHandlers.deposited (sber:deposited)',
      'Endpoint "qvard" (qvard) at POST /api/hooks/qvard runs no handler',
      'Handlers do not run in this instance (dispatch.enabled: false); another instance runs them',
    ]);
  });

  it('warns once about the endpoint no handler listens to, with the fix', () => {
    const warnings = logger.of('WebhooksModule', 'warn').map((line) => line.text);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('No @OnPaymentEvent handler listens to endpoint "qvard" (qvard)');
    expect(warnings[0]).toContain('stored as ignored');
    expect(warnings[0]).toContain("'qvard:<native type>'");
  });
});

describe('the startup summary of a process that serves no HTTP (an application context)', () => {
  it('says where its endpoints are received instead of naming routes it does not serve', async () => {
    const logger = new RecordingLogger();
    @Module({
      imports: [
        TypeOrmModule.forRoot({
          type: 'better-sqlite3',
          database: join(mkdtempSync(join(tmpdir(), 'pw-summary-')), 'inbox.sqlite'),
          autoLoadEntities: true,
          migrations: webhooksMigrations,
          migrationsRun: true,
        }),
        WebhooksModule.forRoot(webhooks),
      ],
      providers: [ShopHandlers, BankHandlers],
    })
    class WorkerModule {}

    const app = await NestFactory.createApplicationContext(WorkerModule, { logger });
    await app.close();

    const lines = logger.of('WebhooksModule', 'log').map((line) => line.text);
    expect(lines[0]).toBe(
      'Endpoint "stripe" (stripe) received by another process (this one serves no HTTP) runs ' +
        'ShopHandlers.paid (payment.succeeded), ShopHandlers.dispute (stripe:charge.dispute.created)',
    );
    expect(lines.filter((line) => /\b(GET|POST) \//.test(line))).toEqual([]);
  });
});

describe.each([
  [{}, 'Handlers run in this process, up to 4 events at a time'],
  [
    { transport: 'relay and worker' },
    'Handlers run on BullMQ queue "payment-webhooks"; this process relays due events to it and runs its jobs',
  ],
  [
    { transport: 'relay only' },
    'Handlers run on BullMQ queue "payment-webhooks"; this process relays due events to it',
  ],
])('the startup summary of where handlers run (%j)', (setting, line) => {
  it(`says: ${line}`, async () => {
    const logger = new RecordingLogger();
    const prefix = redisPrefix();
    const url = new URL(redisUrl());
    const transport =
      'transport' in setting
        ? bullmqTransport({
            connection: { host: url.hostname, port: Number(url.port || 6379) },
            prefix,
            worker: setting.transport === 'relay and worker',
          })
        : undefined;
    const t = await startTestApp({
      platform: 'express',
      database: transport ? 'postgres' : 'sqlite',
      logger,
      webhooks: {
        endpoints: [stripeEndpoint({ name: 'stripe', secret: 'whsec_summary_secret' })],
        dispatch: { transport },
      },
      handlers: [ShopHandlers],
    });
    await t.close();
    await dropRedisPrefix(redisUrl(), prefix);
    expect(logger.of('WebhooksModule', 'log').map((entry) => entry.text)).toContain(line);
  });
});

/** A router `logger` that keeps the router's own lines (context `WebhooksRouter`). */
function routerLogger(): {
  logger: WebhooksRouterLogger;
  lines: { level: string; text: string }[];
} {
  const lines: { level: string; text: string }[] = [];
  const keep = (level: string) => (message: unknown) => {
    const text = String(message);
    if (text.startsWith('[WebhooksRouter] ')) {
      lines.push({ level, text: text.slice('[WebhooksRouter] '.length) });
    }
  };
  return { logger: { log: keep('log'), warn: keep('warn'), error: keep('error') }, lines };
}

const ROUTER_HANDLERS: WebhookHandlerDefinition[] = [
  { on: 'payment.succeeded', name: 'ship', endpoint: 'stripe', handle: () => undefined },
  {
    on: ['stripe:charge.dispute.created', 'refund.succeeded'],
    name: 'disputes',
    handle: () => undefined,
  },
];

const ROUTER_ENDPOINTS = [
  stripeEndpoint({ name: 'stripe', secret: 'whsec_summary_secret' }),
  sberEndpoint({ name: 'sber', callbackToken: 'sber-summary-token' }),
];

/** The endpoint lines the router logs for ROUTER_ENDPOINTS and ROUTER_HANDLERS. */
const ROUTER_ENDPOINT_LINES = [
  "Routes below start at <mount>, the path the app mounts this router on (app.use('/webhooks', " +
    'router) makes <mount> /webhooks): the router is not told it',
  'Endpoint "stripe" (stripe) at POST <mount>/stripe runs ship (payment.succeeded), ' +
    'disputes (stripe:charge.dispute.created, refund.succeeded)',
  'Endpoint "sber" (sber) at GET|POST <mount>/sber runs disputes (stripe:charge.dispute.created, refund.succeeded)',
];

describe('the startup summary of the Express router', () => {
  it('names each endpoint with its route under the mount path, its handlers, and where they run', async () => {
    const { logger, lines } = routerLogger();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: { endpoints: ROUTER_ENDPOINTS, logger },
      handlers: ROUTER_HANDLERS,
    });
    await t.close();
    expect(lines).toEqual([
      ...ROUTER_ENDPOINT_LINES.map((text) => ({ level: 'log', text })),
      { level: 'log', text: 'Handlers run in this process, up to 4 events at a time' },
    ]);
  });

  it('warns about an endpoint no handler listens to, naming the handlers option', async () => {
    const { logger, lines } = routerLogger();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: { endpoints: ROUTER_ENDPOINTS, logger },
      handlers: [ROUTER_HANDLERS[0]],
    });
    await t.close();
    expect(lines.filter((line) => line.level === 'log').map((line) => line.text)).toContain(
      'Endpoint "sber" (sber) at GET|POST <mount>/sber runs no handler',
    );
    const warnings = lines.filter((line) => line.level === 'warn').map((line) => line.text);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('No handler listens to endpoint "sber" (sber)');
    expect(warnings[0]).toContain('stored as ignored');
    expect(warnings[0]).toContain('in `handlers`');
  });

  it('says handlers do not run in an instance with dispatch.enabled: false', async () => {
    const { logger, lines } = routerLogger();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: { endpoints: ROUTER_ENDPOINTS, logger, dispatch: { enabled: false } },
      handlers: ROUTER_HANDLERS,
    });
    await t.close();
    expect(lines.at(-1)).toEqual({
      level: 'log',
      text: 'Handlers do not run in this instance (dispatch.enabled: false); another instance runs them',
    });
  });

  it('says nothing runs before router.start() with autoStart: false, and logs the summary again when it starts', async () => {
    const { logger, lines } = routerLogger();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: { endpoints: ROUTER_ENDPOINTS, logger, autoStart: false },
      handlers: [ROUTER_HANDLERS[0]],
    });
    try {
      expect(lines).toEqual([
        ...[
          ROUTER_ENDPOINT_LINES[0],
          'Endpoint "stripe" (stripe) at POST <mount>/stripe runs ship (payment.succeeded)',
          'Endpoint "sber" (sber) at GET|POST <mount>/sber runs no handler',
          'Handlers do not run yet: the router was created with autoStart: false, and nothing runs ' +
            'in the background (worker, schedules) until router.start()',
        ].map((text) => ({ level: 'log', text })),
      ]);
      lines.length = 0;
      t.router.register(ROUTER_HANDLERS[1]);
      await t.router.start();
      await t.router.start();
      expect(lines).toEqual([
        ...ROUTER_ENDPOINT_LINES.map((text) => ({ level: 'log', text })),
        { level: 'log', text: 'Handlers run in this process, up to 4 events at a time' },
      ]);
    } finally {
      await t.close();
    }
  });

  it('says where handlers run on the BullMQ transport', async () => {
    const { logger, lines } = routerLogger();
    const prefix = redisPrefix();
    const url = new URL(redisUrl());
    const t = await startRouterApp({
      database: 'postgres',
      webhooks: {
        endpoints: ROUTER_ENDPOINTS,
        logger,
        dispatch: {
          transport: bullmqTransport({
            connection: { host: url.hostname, port: Number(url.port || 6379) },
            prefix,
          }),
        },
      },
      handlers: ROUTER_HANDLERS,
    });
    await t.close();
    await dropRedisPrefix(redisUrl(), prefix);
    expect(lines.at(-1)).toEqual({
      level: 'log',
      text: 'Handlers run on BullMQ queue "payment-webhooks"; this process relays due events to it and runs its jobs',
    });
  });
});
