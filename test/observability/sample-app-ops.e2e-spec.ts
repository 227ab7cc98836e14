import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule, ShopDatabase } from '../../sample-app/src/app.module';
import { configureApp } from '../../sample-app/src/configure-app';
import { post } from '../support/http';
import { createTestDatabase } from '../support/postgres';
import { signedStripeEvent } from '../support/stripe-event';
import { eventually } from '../support/test-app';

/**
 * The sample shop's operations routes: `GET /metrics` for Prometheus and `GET /health` for
 * monitoring, on the real AppModule booted as main.ts boots it.
 */

const STRIPE_SECRET = 'whsec_sample_ops_e2e_secret';

async function shopDatabase(
  kind: 'sqlite' | 'postgres',
): Promise<{ database: ShopDatabase; drop(): Promise<void> }> {
  if (kind === 'postgres') {
    const pg = await createTestDatabase();
    return { database: { databaseUrl: pg.url, sqlitePath: '' }, drop: () => pg.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pw-sample-ops-'));
  return {
    database: { sqlitePath: join(dir, 'shop.sqlite') },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

describe.each(['sqlite', 'postgres'] as const)('sample shop operations on %s', (kind) => {
  let app: NestExpressApplication;
  let url: string;
  let drop: () => Promise<void> = async () => undefined;
  const saved = process.env.STRIPE_WEBHOOK_SECRET;

  beforeAll(async () => {
    process.env.STRIPE_WEBHOOK_SECRET = STRIPE_SECRET;
    const db = await shopDatabase(kind);
    drop = db.drop;
    app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(db.database), {
      rawBody: true,
      logger: process.env.TEST_LOGS ? undefined : false,
    });
    configureApp(app);
    await app.listen(0, '127.0.0.1');
    url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  });

  afterAll(async () => {
    await app?.close();
    await drop();
    if (saved === undefined) {
      delete process.env.STRIPE_WEBHOOK_SECRET;
    } else {
      process.env.STRIPE_WEBHOOK_SECRET = saved;
    }
  });

  it('serves the webhook metrics at GET /metrics', async () => {
    const order = await post(`${url}/orders`, JSON.stringify({ amount: 1999, currency: 'USD' }));
    expect(order.status).toBe(201);
    const orderId = (JSON.parse(order.body) as { id: string }).id;
    const event = signedStripeEvent(STRIPE_SECRET, { orderId });
    expect((await post(`${url}/webhooks/stripe`, event.body, event.headers)).status).toBe(200);

    let text = '';
    await eventually(async () => {
      const response = await fetch(`${url}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain;.*version=0\.0\.4/);
      text = await response.text();
      // NOTE: the depth gauge is sampled from the database with a short cache, so it may lag.
      return (
        text.includes(
          'payment_webhooks_events_settled_total{endpoint="stripe",provider="stripe",type="payment.succeeded",status="processed"} 1',
        ) && text.includes('payment_webhooks_inbox_depth{endpoint="stripe",status="pending"} 0')
      );
    }, 15_000);
    expect(text).toContain(
      'payment_webhooks_deliveries_total{endpoint="stripe",provider="stripe",decision="accepted"} 1',
    );
    expect(text).toContain('payment_webhooks_inbox_depth{endpoint="stripe",status="pending"} 0');
    expect(text).toContain('payment_webhooks_database_up 1');
  });

  it('reports the database and the webhook inbox at GET /health', async () => {
    const response = await fetch(`${url}/health`);
    expect(response.status).toBe(200);
    expect(await response.json()).toMatchObject({
      status: 'ok',
      details: {
        database: { status: 'up' },
        webhooks: {
          status: 'up',
          database: { up: true },
          pendingBacklog: { max: 1000, ok: true },
          problems: [],
        },
      },
    });
  });
});
