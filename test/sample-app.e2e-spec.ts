import 'reflect-metadata';
import { createHmac, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication, Logger, LoggerService } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { NestFactory } from '@nestjs/core';
import { WebhookTransactions } from 'nestjs-payment-webhooks';
import { WebhookEventEntity } from '../lib/store/entities';
import { Webhook } from 'standardwebhooks';
import Stripe from 'stripe';
import { AppModule, ShopDatabase } from '../sample-app/src/app.module';
import { DEVELOPMENT_SECRETS } from '../sample-app/src/config';
import { configureApp } from '../sample-app/src/configure-app';
import { post } from './support/http';
import { createTestDatabase, TestDatabase } from './support/postgres';
import { eventually } from './support/test-app';

/**
 * End-to-end tests of the sample shop (sample-app/src): the real AppModule booted as main.ts
 * boots it, signed by the providers' own SDK signers (or node:crypto where there is no SDK),
 * observed only through HTTP and the inbox table. Nothing is mocked.
 */

type SecretName = keyof typeof DEVELOPMENT_SECRETS;
type Secrets = Record<SecretName, string>;
type EndpointName = 'stripe' | 'qvard' | 'standard' | 'hmac';

/** The secrets this suite puts in the environment; none equals a development secret. */
const E2E_SECRETS: Secrets = {
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
};
const SECRET_NAMES = Object.keys(DEVELOPMENT_SECRETS) as SecretName[];
const ENDPOINTS: EndpointName[] = ['stripe', 'qvard', 'standard', 'hmac'];

interface OrderView {
  id: string;
  amount: number;
  currency: string;
  state: 'pending' | 'paid' | 'canceled';
  paidAt: string | null;
  fulfilments: number;
  createdAt: string;
}

/** One signed delivery, ready to POST: the exact body and the headers the provider sends. */
interface Delivery {
  endpoint: EndpointName;
  /** The inbox dedup key the package derives for it. */
  eventId: string;
  body: string;
  headers: Record<string, string>;
}

let sequence = 0;
const unique = (prefix: string) => `${prefix}_${Date.now()}_${sequence++}`;
const nowSeconds = () => Math.floor(Date.now() / 1000);

function stripeDelivery(
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
  const signature = Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: secrets.STRIPE_WEBHOOK_SECRET,
  });
  return { endpoint: 'stripe', eventId, body, headers: { 'stripe-signature': signature } };
}

function qvardDelivery(secrets: Secrets, orderId: string): Delivery {
  const body = JSON.stringify({ id: orderId, status: 'completed' });
  const signature = createHmac('sha256', secrets.QVARD_SECRET_KEY).update(body).digest('hex');
  return {
    endpoint: 'qvard',
    eventId: `${orderId}:completed`,
    body,
    headers: { 'X-Qvard-Signature': signature },
  };
}

function standardDelivery(secrets: Secrets, orderId: string): Delivery {
  const msgId = unique('msg_sample');
  const sentAt = new Date();
  const body = JSON.stringify({
    type: 'payment.succeeded',
    timestamp: sentAt.toISOString(),
    data: { orderId },
  });
  const signature = new Webhook(secrets.STANDARD_WEBHOOK_SECRET).sign(msgId, sentAt, body);
  return {
    endpoint: 'standard',
    eventId: msgId,
    body,
    headers: {
      'webhook-id': msgId,
      'webhook-timestamp': String(Math.floor(sentAt.getTime() / 1000)),
      'webhook-signature': signature,
    },
  };
}

function hmacDelivery(secrets: Secrets, orderId: string): Delivery {
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
function paymentSucceeded(endpoint: EndpointName, secrets: Secrets, orderId: string): Delivery {
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

/** The sample shop, booted the way sample-app/src/main.ts boots it, on a random local port. */
interface Shop {
  app: INestApplication;
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

async function startShop(database: ShopDatabase): Promise<Shop> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(database), {
    rawBody: true,
    logger: process.env.TEST_LOGS ? undefined : false,
  });
  configureApp(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  // NOTE: through WebhookTransactions, so that on SQLite a read never joins a handler's open
  // transaction on the one shared connection.
  const transactions = app.get(WebhookTransactions);
  const inbox = (delivery: Delivery) =>
    transactions.run((manager) =>
      manager.findBy(WebhookEventEntity, {
        endpoint: delivery.endpoint,
        eventId: delivery.eventId,
      }),
    );
  const shop: Shop = {
    app,
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
    close: () => app.close(),
  };
  return shop;
}

/** A database for one shop, with its clean-up. */
async function shopDatabase(kind: 'sqlite' | 'postgres'): Promise<{
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

/** For the enclosing describe: the sample's secret variables set to `values`, or unset. */
function useSecretEnv(values: Secrets | undefined): void {
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

describe.each(['sqlite', 'postgres'] as const)('sample shop on %s', (kind) => {
  useSecretEnv(E2E_SECRETS);
  let shop: Shop;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const db = await shopDatabase(kind);
    drop = db.drop;
    shop = await startShop(db.database);
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  const expectPaidOnce = async (orderId: string) => {
    const { status, body } = await shop.getOrder(orderId);
    expect(status).toBe(200);
    expect(body).toMatchObject({ id: orderId, state: 'paid', fulfilments: 1 });
    // NOTE: read back as the same instant it was written, whatever the process time zone.
    const paidAt = Date.parse(body.paidAt!);
    expect(Math.abs(paidAt - Date.now())).toBeLessThan(60_000);
    expect(paidAt).toBeGreaterThanOrEqual(Date.parse(body.createdAt));
  };
  const waitUntilPaid = (orderId: string) =>
    eventually(async () => (await shop.getOrder(orderId)).body.state === 'paid');

  describe('orders', () => {
    it('creates a pending order (201) and returns it from GET /orders/:id', async () => {
      const created = await shop.createOrder(4200, 'EUR');
      expect(created).toMatchObject({
        amount: 4200,
        currency: 'EUR',
        state: 'pending',
        paidAt: null,
        fulfilments: 0,
      });
      expect(created.id).toMatch(/^[0-9a-f-]{36}$/);
      const fetched = await shop.getOrder(created.id);
      expect(fetched.status).toBe(200);
      expect(fetched.body).toMatchObject({
        id: created.id,
        amount: 4200,
        currency: 'EUR',
        state: 'pending',
        paidAt: null,
        fulfilments: 0,
      });
      expect(Date.parse(fetched.body.createdAt)).toBe(Date.parse(created.createdAt));
      expect(Math.abs(Date.parse(fetched.body.createdAt) - Date.now())).toBeLessThan(60_000);
    });

    it.each([
      ['a negative amount', { amount: -5, currency: 'USD' }],
      ['a zero amount', { amount: 0, currency: 'USD' }],
      ['a fractional amount', { amount: 10.5, currency: 'USD' }],
      ['a currency that is not three letters', { amount: 100, currency: 'US$' }],
      ['a missing currency', { amount: 100 }],
      ['an unknown field', { amount: 100, currency: 'USD', state: 'paid' }],
    ])('refuses %s with 400', async (_label, input) => {
      const response = await post(`${shop.url}/orders`, JSON.stringify(input));
      expect(response.status).toBe(400);
    });

    it('refuses an amount of 2^31 with 400 naming the bound the amount column holds', async () => {
      const response = await post(
        `${shop.url}/orders`,
        JSON.stringify({ amount: 2 ** 31, currency: 'USD' }),
      );
      expect(response.status).toBe(400);
      expect((JSON.parse(response.body) as { message: string[] }).message).toEqual([
        "amount must be at most 2147483647 minor units, the most the orders table's amount column holds",
      ]);
      expect((await shop.createOrder(2 ** 31 - 1)).amount).toBe(2 ** 31 - 1);
    });

    it('takes a lower-case currency, as Stripe writes it, and stores it upper-case', async () => {
      const created = await shop.createOrder(1500, 'usd');
      expect(created.currency).toBe('USD');
      expect((await shop.getOrder(created.id)).body.currency).toBe('USD');
    });

    it('answers 404 for an unknown order and 400 for an id that is not a UUID', async () => {
      expect((await shop.getOrder(randomUUID())).status).toBe(404);
      expect((await shop.getOrder('not-a-uuid')).status).toBe(400);
    });
  });

  describe.each(ENDPOINTS)('a signed payment.succeeded on /webhooks/%s', (endpoint) => {
    it('is acknowledged with an empty 200 and marks the order paid once', async () => {
      const order = await shop.createOrder();
      const delivery = paymentSucceeded(endpoint, E2E_SECRETS, order.id);
      const response = await shop.deliver(delivery);
      expect(response.status).toBe(200);
      expect(response.body).toBe('');
      await waitUntilPaid(order.id);
      await expectPaidOnce(order.id);
      expect((await shop.settled(delivery)).status).toBe('processed');
    });
  });

  it("accepts a signed event larger than Express's 100 KB JSON default", async () => {
    const order = await shop.createOrder();
    const delivery = stripeDelivery(E2E_SECRETS, order.id, { description: 'x'.repeat(200_000) });
    expect(delivery.body.length).toBeGreaterThan(200_000);
    expect((await shop.deliver(delivery)).status).toBe(200);
    await waitUntilPaid(order.id);
    await expectPaidOnce(order.id);
  });

  it('fulfils an order once when it is paid by five events, each delivered 10 times at once', async () => {
    const order = await shop.createOrder();
    const deliveries = [
      stripeDelivery(E2E_SECRETS, order.id, { eventId: unique('evt_A') }),
      stripeDelivery(E2E_SECRETS, order.id, { eventId: unique('evt_B') }),
      qvardDelivery(E2E_SECRETS, order.id),
      standardDelivery(E2E_SECRETS, order.id),
      hmacDelivery(E2E_SECRETS, order.id),
    ];
    const copies = deliveries.flatMap((delivery) => Array.from({ length: 10 }, () => delivery));
    const responses = await Promise.all(copies.map((delivery) => shop.deliver(delivery)));
    expect(responses.map((r) => r.status)).toEqual(Array(copies.length).fill(200));

    for (const delivery of deliveries) {
      const row = await shop.settled(delivery);
      expect(row.status).toBe('processed');
      expect(row.deliveryCount).toBe(10);
      expect(await shop.inbox(delivery)).toHaveLength(1);
    }
    await expectPaidOnce(order.id);

    // A late re-delivery of an already processed event changes nothing either.
    expect((await shop.deliver(deliveries[0])).status).toBe(200);
    expect((await shop.inbox(deliveries[0]))[0].deliveryCount).toBe(11);
    await expectPaidOnce(order.id);
  });

  it('fulfils an order once when 50 distinct payment.succeeded events for it arrive at once', async () => {
    const order = await shop.createOrder();
    const deliveries = Array.from({ length: 50 }, () =>
      stripeDelivery(E2E_SECRETS, order.id, { eventId: unique('evt_distinct') }),
    );
    const responses = await Promise.all(deliveries.map((delivery) => shop.deliver(delivery)));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    const outcomes: string[] = [];
    for (const delivery of deliveries) {
      const row = await shop.settled(delivery);
      expect(row.status).toBe('processed');
      outcomes.push(row.outcome ?? '');
    }
    expect(outcomes.filter((outcome) => outcome === 'applied')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'not_allowed')).toHaveLength(49);
    await expectPaidOnce(order.id);
  });

  it("fulfils once for Stripe's checkout.session.completed and payment_intent.succeeded of one payment", async () => {
    const order = await shop.createOrder();
    const session = (eventId: string, type: string, paymentStatus: string): Delivery => {
      const body = JSON.stringify({
        id: eventId,
        object: 'event',
        type,
        created: nowSeconds(),
        data: {
          object: {
            id: unique('cs_sample'),
            object: 'checkout.session',
            amount_total: 1999,
            currency: 'usd',
            payment_status: paymentStatus,
            payment_intent: 'pi_for_checkout',
            client_reference_id: order.id,
          },
        },
      });
      const signature = Stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: E2E_SECRETS.STRIPE_WEBHOOK_SECRET,
      });
      return { endpoint: 'stripe', eventId, body, headers: { 'stripe-signature': signature } };
    };
    // A delayed payment method: the session completes unpaid, which is not a payment.
    const unpaid = session(unique('evt_cs_unpaid'), 'checkout.session.completed', 'unpaid');
    expect((await shop.deliver(unpaid)).status).toBe(200);
    expect((await shop.settled(unpaid)).status).toBe('ignored');
    expect((await shop.getOrder(order.id)).body.state).toBe('pending');

    const deliveries = [
      session(unique('evt_cs_paid'), 'checkout.session.async_payment_succeeded', 'paid'),
      stripeDelivery(E2E_SECRETS, order.id),
    ];
    const responses = await Promise.all(deliveries.map((delivery) => shop.deliver(delivery)));
    expect(responses.map((r) => r.status)).toEqual([200, 200]);
    for (const delivery of deliveries) {
      expect(await shop.settled(delivery)).toMatchObject({
        status: 'processed',
        type: 'payment.succeeded',
        merchantRef: order.id,
      });
    }
    await expectPaidOnce(order.id);
  });

  it('keeps a paid order paid when a payment_intent.canceled arrives late', async () => {
    const order = await shop.createOrder();
    const paid = stripeDelivery(E2E_SECRETS, order.id);
    expect((await shop.deliver(paid)).status).toBe(200);
    await waitUntilPaid(order.id);

    const canceled = stripeDelivery(E2E_SECRETS, order.id, { type: 'payment_intent.canceled' });
    expect((await shop.deliver(canceled)).status).toBe(200);
    const row = await shop.settled(canceled);
    expect(row).toMatchObject({ status: 'processed', type: 'payment.canceled' });
    await expectPaidOnce(order.id);
  });

  it('cancels a pending order, and a later payment.succeeded does not make it paid', async () => {
    const order = await shop.createOrder();
    const canceled = stripeDelivery(E2E_SECRETS, order.id, { type: 'payment_intent.canceled' });
    expect((await shop.deliver(canceled)).status).toBe(200);
    await eventually(async () => (await shop.getOrder(order.id)).body.state === 'canceled');

    const late = [
      stripeDelivery(E2E_SECRETS, order.id),
      qvardDelivery(E2E_SECRETS, order.id),
      standardDelivery(E2E_SECRETS, order.id),
      hmacDelivery(E2E_SECRETS, order.id),
    ];
    for (const delivery of late) {
      expect((await shop.deliver(delivery)).status).toBe(200);
    }
    for (const delivery of late) {
      expect((await shop.settled(delivery)).status).toBe('processed');
    }
    const { body } = await shop.getOrder(order.id);
    expect(body).toMatchObject({ state: 'canceled', paidAt: null, fulfilments: 0 });
  });

  it('acknowledges events for an unknown order or without an order id and keeps working', async () => {
    const ghost = randomUUID();
    const unknown = [
      stripeDelivery(E2E_SECRETS, ghost),
      stripeDelivery(E2E_SECRETS, ghost, { type: 'payment_intent.canceled' }),
      qvardDelivery(E2E_SECRETS, ghost),
      standardDelivery(E2E_SECRETS, ghost),
      hmacDelivery(E2E_SECRETS, ghost),
      stripeDelivery(E2E_SECRETS, undefined),
    ];
    for (const delivery of unknown) {
      expect((await shop.deliver(delivery)).status).toBe(200);
    }
    for (const delivery of unknown) {
      const row = await shop.settled(delivery);
      expect(row).toMatchObject({ status: 'processed', attempts: 1, lastError: null });
    }
    expect((await shop.getOrder(ghost)).status).toBe(404);

    // The shop still takes orders and payments.
    const order = await shop.createOrder();
    expect((await shop.deliver(paymentSucceeded('hmac', E2E_SECRETS, order.id))).status).toBe(200);
    await waitUntilPaid(order.id);
    await expectPaidOnce(order.id);
  });

  describe.each(ENDPOINTS)('a delivery to /webhooks/%s', (endpoint) => {
    it('is refused with 400 when signed with another secret, tampered or unsigned', async () => {
      const order = await shop.createOrder();
      const wrongSecret = paymentSucceeded(endpoint, DEVELOPMENT_SECRETS, order.id);
      const genuine = paymentSucceeded(endpoint, E2E_SECRETS, order.id);
      const tampered = { ...genuine, body: genuine.body.replace(order.id, randomUUID()) };
      const unsigned = { ...genuine, headers: {} };
      const responses = await Promise.all(
        [wrongSecret, tampered, unsigned].map((delivery) => shop.deliver(delivery)),
      );
      expect(responses.map((r) => r.status)).toEqual([400, 400, 400]);

      for (const delivery of [wrongSecret, genuine]) {
        expect(await shop.inbox(delivery)).toHaveLength(0);
      }
      const { body } = await shop.getOrder(order.id);
      expect(body).toMatchObject({ state: 'pending', paidAt: null, fulfilments: 0 });
    });
  });

  it('refuses a Stripe delivery whose signed timestamp is out of the 5-minute window', async () => {
    const order = await shop.createOrder();
    const delivery = stripeDelivery(E2E_SECRETS, order.id);
    const stale = Stripe.webhooks.generateTestHeaderString({
      payload: delivery.body,
      secret: E2E_SECRETS.STRIPE_WEBHOOK_SECRET,
      timestamp: nowSeconds() - 301,
    });
    const response = await shop.deliver({ ...delivery, headers: { 'stripe-signature': stale } });
    expect(response.status).toBe(400);
    expect(await shop.inbox(delivery)).toHaveLength(0);
    expect((await shop.getOrder(order.id)).body.state).toBe('pending');
  });
});

describe.each(['sqlite', 'postgres'] as const)('sample shop restarted on %s', (kind) => {
  useSecretEnv(E2E_SECRETS);

  it('applies every acknowledged payment exactly once across a shutdown and a restart', async () => {
    const db = await shopDatabase(kind);
    try {
      const first = await startShop(db.database);
      let orders: OrderView[];
      let deliveries: Delivery[];
      try {
        orders = await Promise.all(Array.from({ length: 8 }, () => first.createOrder()));
        deliveries = orders.map((order, i) =>
          paymentSucceeded(ENDPOINTS[i % ENDPOINTS.length], E2E_SECRETS, order.id),
        );
        const responses = await Promise.all(deliveries.map((d) => first.deliver(d)));
        expect(responses.map((r) => r.status)).toEqual(Array(deliveries.length).fill(200));
      } finally {
        // NOTE: closed at once, while the dispatcher may still be working through the events.
        await first.close();
      }

      const second = await startShop(db.database);
      try {
        for (const delivery of deliveries) {
          expect((await second.settled(delivery)).status).toBe('processed');
          // The providers re-deliver what they think was lost; that changes nothing.
          expect((await second.deliver(delivery)).status).toBe(200);
        }
        for (const order of orders) {
          const { body } = await second.getOrder(order.id);
          expect(body).toMatchObject({ state: 'paid', fulfilments: 1 });
        }
      } finally {
        await second.close();
      }
    } finally {
      await db.drop();
    }
  });
});

/** Records what the sample logs before Nest's own logger is configured. */
class RecordingLogger implements LoggerService {
  readonly warnings: string[] = [];
  log(): void {}
  error(): void {}
  warn(message: unknown): void {
    this.warnings.push(String(message));
  }
}

describe('sample shop without secrets in the environment', () => {
  useSecretEnv(undefined);
  let shop: Shop;
  let drop: () => Promise<void> = async () => undefined;
  const logger = new RecordingLogger();

  beforeAll(async () => {
    const db = await shopDatabase('sqlite');
    drop = db.drop;
    Logger.overrideLogger(logger);
    shop = await startShop(db.database);
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  it('warns loudly about each missing secret', () => {
    for (const name of SECRET_NAMES) {
      expect(logger.warnings).toContainEqual(
        expect.stringContaining(`${name} is not set: using the PUBLIC development secret`),
      );
    }
  });

  it.each(ENDPOINTS)(
    'accepts /webhooks/%s deliveries signed with the documented development secret',
    async (endpoint) => {
      const order = await shop.createOrder();
      const refused = paymentSucceeded(endpoint, E2E_SECRETS, order.id);
      expect((await shop.deliver(refused)).status).toBe(400);
      const accepted = paymentSucceeded(endpoint, DEVELOPMENT_SECRETS, order.id);
      expect((await shop.deliver(accepted)).status).toBe(200);
      await eventually(async () => (await shop.getOrder(order.id)).body.state === 'paid');
      expect((await shop.getOrder(order.id)).body.fulfilments).toBe(1);
    },
  );
});
