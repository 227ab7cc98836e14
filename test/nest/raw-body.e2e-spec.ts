import { mkdtempSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Test } from '@nestjs/testing';
import { TypeOrmModule } from '@nestjs/typeorm';
import { stripeEndpoint, WebhooksModule, webhooksMigrations } from 'nestjs-payment-webhooks';
import { post } from '../support/http';
import { RecordingLogger } from '../support/recording-logger';
import { signedStripeEvent } from '../support/stripe-event';
import { Platform, startTestApp, TestApp, TestAppOptions } from '../support/test-app';

const SECRET = 'whsec_raw_body_secret';

type Middleware = (request: unknown, response: unknown, next: () => void) => void;

// NOTE: the Express that Nest's Express adapter runs on, as an app's main.ts imports it.
const express = createRequire(require.resolve('@nestjs/platform-express'))('express') as {
  json(): Middleware;
};

/** Starts an app, sends one signed Stripe event, and returns the answer and what was logged. */
async function deliverTo(options: Pick<TestAppOptions, 'platform' | 'rawBody' | 'configure'>) {
  const logger = new RecordingLogger();
  let t: TestApp | undefined;
  try {
    t = await startTestApp({
      ...options,
      database: 'sqlite',
      logger,
      webhooks: { endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] },
    });
    const event = signedStripeEvent(SECRET);
    const response = await post(`${t.url}/webhooks/stripe`, event.body, event.headers);
    const stored = (await t.dataSource.query('SELECT id FROM webhook_events')) as unknown[];
    const message = (JSON.parse(response.body) as { message?: string }).message ?? '';
    const logged = logger.of('WebhookIngress', 'error').map((line) => line.text);
    return { status: response.status, message, logged, stored: stored.length };
  } finally {
    await t?.close();
  }
}

/** A testing module with the webhooks on SQLite, as an app's own test builds one. */
function testingModule() {
  return Test.createTestingModule({
    imports: [
      TypeOrmModule.forRoot({
        type: 'better-sqlite3',
        database: join(mkdtempSync(join(tmpdir(), 'pw-raw-body-')), 'inbox.sqlite'),
        autoLoadEntities: true,
        migrations: webhooksMigrations,
        migrationsRun: true,
      }),
      WebhooksModule.forRoot({ endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })] }),
    ],
  }).compile();
}

describe('a raw body that never reaches the module', () => {
  it('names the parser when a global express.json() consumed the body of an app with rawBody: true', async () => {
    const result = await deliverTo({
      platform: 'express',
      rawBody: true,
      configure: (app) => app.use(express.json()),
    });
    expect(result.status).toBe(500);
    expect(result.message).toContain('was consumed by a body parser the app registers itself');
    expect(result.message).toContain('app.use(express.json())');
    expect(result.message).toContain("app.useBodyParser('json'");
    expect(result.message).not.toContain('Create the app with');
    expect(result.logged).toContain(result.message);
    expect(result.stored).toBe(0);
  });

  it.each<Platform>(['express', 'fastify'])(
    'keeps the rawBody: true fix, and no parser, as the message on %s without rawBody',
    async (platform) => {
      const result = await deliverTo({ platform, rawBody: false });
      expect(result.status).toBe(500);
      expect(result.message).toContain('`NestFactory.create(AppModule, { rawBody: true })`');
      expect(result.message).toContain(
        '`moduleRef.createNestApplication({ rawBody: true })` after `Test.createTestingModule(...)`',
      );
      expect(result.message).not.toContain('express.json()');
      expect(result.logged).toContain(result.message);
      expect(result.stored).toBe(0);
    },
  );

  it('names the fix of a test, in the answer and the log, for a testing module app without rawBody', async () => {
    const logger = new RecordingLogger();
    const app = (await testingModule()).createNestApplication({ logger });
    await app.listen(0, '127.0.0.1');
    try {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const event = signedStripeEvent(SECRET);
      const response = await post(`${url}/webhooks/stripe`, event.body, event.headers);
      expect(response.status).toBe(500);
      const { message } = JSON.parse(response.body) as { message: string };
      expect(message).toContain(
        'in a test with `moduleRef.createNestApplication({ rawBody: true })` after ' +
          '`Test.createTestingModule(...)`',
      );
      expect(logger.of('WebhookIngress', 'error').map((line) => line.text)).toContain(message);
    } finally {
      await app.close();
    }
  });

  it('names both causes when the app options cannot be read (an app from a testing module)', async () => {
    const app = (await testingModule()).createNestApplication({ rawBody: true, logger: false });
    app.use(express.json());
    await app.listen(0, '127.0.0.1');
    try {
      const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
      const event = signedStripeEvent(SECRET);
      const response = await post(`${url}/webhooks/stripe`, event.body, event.headers);
      expect(response.status).toBe(500);
      const { message } = JSON.parse(response.body) as { message: string };
      expect(message).toContain('`NestFactory.create(AppModule, { rawBody: true })`');
      expect(message).toContain('If the app is created with it');
      expect(message).toContain('app.use(express.json())');
    } finally {
      await app.close();
    }
  });
});
