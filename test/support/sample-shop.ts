import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EntityManager } from 'typeorm';
import { ShopDatabase } from '../../sample-app/src/shop-database';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/shop-settings';
import { post } from './http';
import { WebhookEventEntity } from './internals';
import { createTestDatabase, TestDatabase } from './postgres';
import { standardWebhooksHeaders } from './standard-webhooks-delivery';
import { stripeSignature } from './stripe-event';
import { eventually } from './test-app';

/**
 * What the sample shops' tests share: the providers' signed deliveries (made by their own SDK
 * signers, or node:crypto where there is no SDK), the shop as a test drives it over HTTP, its
 * database, and the secrets in the environment. Both shops (sample-app, sample-express) take
 * the same deliveries and must answer them the same way.
 */

export type SecretName = keyof typeof DEVELOPMENT_SECRETS;
export type Secrets = Record<SecretName, string>;
export type EndpointName = 'stripe' | 'qvard' | 'standard' | 'hmac';

/** The secrets this suite puts in the environment; none equals a development secret. */
export const E2E_SECRETS: Secrets = {
  STRIPE_WEBHOOK_SECRET: 'whsec_sample_app_e2e_stripe_secret',
  QVARD_SECRET_KEY: 'qvard-sample-app-e2e-secret',
  STANDARD_WEBHOOK_SECRET: `whsec_${Buffer.from('sample-app-e2e-standard-secret').toString('base64')}`,
  HMAC_WEBHOOK_SECRET: 'hmac-sample-app-e2e-secret',
  TBANK_PASSWORD: 'tbank-sample-app-e2e-password',
  SBER_CALLBACK_TOKEN: 'sber-sample-app-e2e-token',
  ADYEN_HMAC_KEY: '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef',
  PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_sample_app_e2e_secret',
  YOOKASSA_SHOP_ID: '500500',
  YOOKASSA_SECRET_KEY: 'test_sample_app_e2e_secret_key',
  YOOMONEY_NOTIFICATION_SECRET: 'yoomoney-sample-app-e2e-secret',
  PAYPAL_WEBHOOK_ID: 'WH-SAMPLE-APP-E2E',
  SQUARE_SIGNATURE_KEY: 'square-sample-app-e2e-key',
  DEMO_MERCHANT_WEBHOOK_SECRET: 'whsec_sample_app_e2e_demo_merchant',
};
export const SECRET_NAMES = Object.keys(DEVELOPMENT_SECRETS) as SecretName[];
export const ENDPOINTS: EndpointName[] = ['stripe', 'qvard', 'standard', 'hmac'];

export interface OrderView {
  id: string;
  amount: number;
  currency: string;
  state: 'pending' | 'paid' | 'canceled';
  paidAt: string | null;
  fulfilments: number;
  createdAt: string;
  /** The merchant whose endpoint delivered the payment, or null. */
  merchant: string | null;
}

/** One signed delivery, ready to POST: the exact body and the headers the provider sends. */
export interface Delivery {
  endpoint: EndpointName;
  /** The inbox dedup key the package derives for it. */
  eventId: string;
  body: string;
  headers: Record<string, string>;
}

let sequence = 0;
export const unique = (prefix: string) => `${prefix}_${Date.now()}_${sequence++}`;
export const nowSeconds = () => Math.floor(Date.now() / 1000);

export function stripeDelivery(
  secrets: Secrets,
  orderId: string | undefined,
  options: { type?: string; eventId?: string; description?: string } = {},
): Delivery {
  const eventId = options.eventId ?? unique('evt_sample');
  const type = options.type ?? 'payment_intent.succeeded';
  const body = JSON.stringify({
    id: eventId,
    object: 'event',
    api_version: '2024-06-20',
    type,
    created: nowSeconds(),
    livemode: false,
    data: {
      object: {
        id: unique('pi_sample'),
        object: 'payment_intent',
        amount: 1999,
        currency: 'usd',
        status: type === 'payment_intent.canceled' ? 'canceled' : 'succeeded',
        metadata: orderId === undefined ? {} : { orderId },
        description: options.description ?? null,
      },
    },
  });
  const headers = stripeSignature(body, secrets.STRIPE_WEBHOOK_SECRET);
  return { endpoint: 'stripe', eventId, body, headers };
}

export function qvardDelivery(secrets: Secrets, orderId: string): Delivery {
  const body = JSON.stringify({ id: orderId, status: 'completed' });
  const signature = createHmac('sha256', secrets.QVARD_SECRET_KEY).update(body).digest('hex');
  return {
    endpoint: 'qvard',
    eventId: `${orderId}:completed`,
    body,
    headers: { 'X-Qvard-Signature': signature },
  };
}

export function standardDelivery(secrets: Secrets, orderId: string): Delivery {
  const msgId = unique('msg_sample');
  const sentAt = new Date();
  const body = JSON.stringify({
    type: 'payment.succeeded',
    timestamp: sentAt.toISOString(),
    data: { orderId },
  });
  return {
    endpoint: 'standard',
    eventId: msgId,
    body,
    headers: standardWebhooksHeaders(secrets.STANDARD_WEBHOOK_SECRET, msgId, body, sentAt),
  };
}

export function hmacDelivery(secrets: Secrets, orderId: string): Delivery {
  const eventId = unique('hmac_evt');
  const body = JSON.stringify({ id: eventId, type: 'payment.succeeded', data: { orderId } });
  const timestamp = String(nowSeconds());
  const signature = createHmac('sha256', secrets.HMAC_WEBHOOK_SECRET)
    .update(`${timestamp}.${body}`)
    .digest('hex');
  return {
    endpoint: 'hmac',
    eventId,
    body,
    headers: { 'x-timestamp': timestamp, 'x-signature': signature },
  };
}

/** A signed payment.succeeded for `orderId` on `endpoint`. */
export function paymentSucceeded(
  endpoint: EndpointName,
  secrets: Secrets,
  orderId: string,
): Delivery {
  switch (endpoint) {
    case 'stripe':
      return stripeDelivery(secrets, orderId);
    case 'qvard':
      return qvardDelivery(secrets, orderId);
    case 'standard':
      return standardDelivery(secrets, orderId);
    case 'hmac':
      return hmacDelivery(secrets, orderId);
  }
}

/** A sample shop listening on a local port, as a test drives it. */
export interface ShopUnderTest {
  url: string;
  deliver(delivery: Delivery): ReturnType<typeof post>;
  createOrder(amount?: number, currency?: string): Promise<OrderView>;
  getOrder(id: string): Promise<{ status: number; body: OrderView }>;
  /** The inbox rows for a delivery's event (one at most, by the unique index). */
  inbox(delivery: Delivery): Promise<WebhookEventEntity[]>;
  /** Waits until the dispatcher has settled the delivery's event. */
  settled(delivery: Delivery): Promise<WebhookEventEntity>;
  close(): Promise<void>;
}

/** The package's transactions of a running shop (`WebhookTransactions`). */
export interface ShopTransactions {
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
}

/**
 * A client for the shop at `url`. Inbox reads go through the shop's `transactions`, so that
 * on SQLite a read never joins a handler's open transaction on the one shared connection.
 */
export function shopClient(
  url: string,
  transactions: ShopTransactions,
  close: () => Promise<void>,
): ShopUnderTest {
  const inbox = (delivery: Delivery) =>
    transactions.run((manager) =>
      manager.findBy(WebhookEventEntity, {
        endpoint: delivery.endpoint,
        eventId: delivery.eventId,
      }),
    );
  return {
    url,
    deliver: (delivery) =>
      post(`${url}/webhooks/${delivery.endpoint}`, delivery.body, delivery.headers),
    async createOrder(amount = 1999, currency = 'USD') {
      const response = await post(`${url}/orders`, JSON.stringify({ amount, currency }));
      expect(response.status).toBe(201);
      return JSON.parse(response.body) as OrderView;
    },
    async getOrder(id) {
      const response = await fetch(`${url}/orders/${id}`);
      return { status: response.status, body: (await response.json()) as OrderView };
    },
    inbox,
    async settled(delivery) {
      let row: WebhookEventEntity | undefined;
      await eventually(async () => {
        [row] = await inbox(delivery);
        return row !== undefined && ['processed', 'ignored', 'dead'].includes(row.status);
      });
      return row!;
    },
    close,
  };
}

/** A database for one shop, with its clean-up. */
export async function shopDatabase(kind: 'sqlite' | 'postgres'): Promise<{
  database: ShopDatabase;
  drop(): Promise<void>;
}> {
  if (kind === 'postgres') {
    const pg: TestDatabase = await createTestDatabase();
    return { database: { databaseUrl: pg.url, sqlitePath: '' }, drop: () => pg.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pw-sample-shop-'));
  return {
    database: { sqlitePath: join(dir, 'shop.sqlite') },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

/**
 * For the enclosing describe: a shop started by `start` on a fresh database of `kind` before its
 * tests, closed and its database dropped after them. Returns the running shop, for the tests.
 */
export function shopForSuite<T extends { close(): Promise<void> }>(
  kind: 'sqlite' | 'postgres',
  start: (database: ShopDatabase) => Promise<T>,
): () => T {
  let shop: T | undefined;
  let drop: () => Promise<void> = async () => undefined;
  beforeAll(async () => {
    const db = await shopDatabase(kind);
    drop = db.drop;
    shop = await start(db.database);
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });
  return () => shop!;
}

/** For the enclosing describe: the sample's secret variables set to `values`, or unset. */
export function useSecretEnv(values: Secrets | undefined): void {
  const saved = new Map<SecretName, string | undefined>();
  beforeAll(() => {
    for (const name of SECRET_NAMES) {
      saved.set(name, process.env[name]);
      if (values) {
        process.env[name] = values[name];
      } else {
        delete process.env[name];
      }
    }
  });
  afterAll(() => {
    for (const [name, value] of saved) {
      if (value === undefined) {
        delete process.env[name];
      } else {
        process.env[name] = value;
      }
    }
  });
}
