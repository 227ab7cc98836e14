import 'reflect-metadata';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ReconciliationService, WebhookTransactions } from 'nestjs-payment-webhooks';
import {
  adyenNotificationItem,
  paddleFixtures,
  PAYPAL_TEST_PRIVATE_KEY_PEM,
  paypalFixtures,
  sberFixtures,
  signAdyenDelivery,
  signPaddleDelivery,
  signPayPalDelivery,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  SignedDelivery,
  squareFixtures,
  tbankFixtures,
  WebhookTestClient,
  WebhookTestResponse,
  yookassaDelivery,
  yookassaPayment,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { AppModule, ShopDatabase } from '../../sample-app/src/app.module';
import { DEVELOPMENT_SECRETS } from '../../sample-app/src/config';
import { configureApp } from '../../sample-app/src/configure-app';
import { EndpointOverrides } from '../../sample-app/src/webhook-endpoints';
import { FakeProviderApi } from '../../lib/spec-support/fake-provider-api';
import { WebhookEventEntity } from '../support/internals';
import {
  PAYPAL_SIGNING_SUBJECT,
  TestCertificates,
} from '../../lib/spec-support/paypal-certificates';
import { createTestDatabase } from '../support/postgres';
import { eventually } from '../support/test-app';

/**
 * End-to-end tests of the sample shop's provider endpoints (sample-app/src/webhook-endpoints.ts):
 * the real AppModule on SQLite and PostgreSQL, deliveries signed by the package's testing signers
 * and sent over real HTTP by `WebhookTestClient`, orders observed through the shop's own API.
 */

type SecretName = keyof typeof DEVELOPMENT_SECRETS;
type ProviderEndpoint =
  'tbank' | 'sber' | 'adyen' | 'paddle' | 'yookassa' | 'yoomoney' | 'paypal' | 'square';

/** The secrets the shop gets in this suite; none equals a development secret. */
const SECRETS = {
  STRIPE_WEBHOOK_SECRET: 'whsec_sample_providers_e2e_stripe',
  QVARD_SECRET_KEY: 'qvard-sample-providers-e2e',
  STANDARD_WEBHOOK_SECRET: `whsec_${Buffer.from('sample-providers-e2e-standard').toString('base64')}`,
  HMAC_WEBHOOK_SECRET: 'hmac-sample-providers-e2e',
  TBANK_PASSWORD: 'tbank-sample-providers-e2e-password',
  SBER_CALLBACK_TOKEN: 'sber-sample-providers-e2e-token',
  ADYEN_HMAC_KEY: 'fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210',
  PADDLE_WEBHOOK_SECRET: 'pdl_ntfset_sample_providers_e2e_secret',
  YOOKASSA_SHOP_ID: '700700',
  YOOKASSA_SECRET_KEY: 'test_sample_providers_e2e_yookassa_key',
  YOOMONEY_NOTIFICATION_SECRET: 'yoomoney-sample-providers-e2e-secret',
  PAYPAL_WEBHOOK_ID: 'WH-SAMPLE-PROVIDERS-E2E',
  SQUARE_SIGNATURE_KEY: 'square-sample-providers-e2e-key',
  DEMO_MERCHANT_WEBHOOK_SECRET: 'whsec_sample_providers_e2e_demo_merchant',
} satisfies Record<SecretName, string>;

/** Where the shop's Square subscription is registered (Square signs this URL, not the real one). */
const SQUARE_NOTIFICATION_URL = 'https://shop.example.test/webhooks/square';
const LOOPBACK = '127.0.0.1,::1';
/** A documentation range (TEST-NET-3) that the test's loopback address is not in. */
const ELSEWHERE = '203.0.113.0/24';

/** YooKassa API access the fake accepts; the shop gets the same through the environment. */
const YOOKASSA_CREDENTIALS = {
  shopId: SECRETS.YOOKASSA_SHOP_ID,
  secretKey: SECRETS.YOOKASSA_SECRET_KEY,
};

interface OrderView {
  id: string;
  state: 'pending' | 'paid' | 'canceled';
  fulfilments: number;
}

/** A provider as the suite drives it. */
interface ProviderCase {
  /** Shown in test names. */
  label: string;
  endpoint: ProviderEndpoint;
  /** The provider's exact success answer body. */
  answer: string;
  /** A genuine "payment succeeded" for `orderId`. */
  paid(orderId: string): SignedDelivery;
  /** Deliveries for `orderId` that must be refused with 400, by what is wrong with them. */
  refused: Record<string, (orderId: string) => SignedDelivery>;
}

let fake: FakeProviderApi;
let paypalCertificate: { keyPem: string; certPem: string; caPem: string };

/** A 16-character reference in Adyen's alphabet, different each time. */
const pspReference = () => randomBytes(8).toString('hex').toUpperCase();

/** `delivery` with `orderId` written into the signed bytes in place of `signedFor`. */
function rewritten(delivery: SignedDelivery, signedFor: string, orderId: string): SignedDelivery {
  expect(delivery.body).toContain(signedFor);
  return { ...delivery, body: delivery.body.split(signedFor).join(orderId) };
}

/** Signed for another (unknown) order, then rewritten to name `orderId`, as an attacker would. */
function tampered(sign: (orderId: string) => SignedDelivery) {
  return (orderId: string) => {
    const other = randomUUID();
    return rewritten(sign(other), other, orderId);
  };
}

function tbank(orderId: string, password = SECRETS.TBANK_PASSWORD): SignedDelivery {
  return signTBankDelivery({
    password,
    payload: tbankFixtures.confirmed({ orderId, amount: 1999 }),
  });
}

function sber(
  method: 'GET' | 'POST',
  orderId: string,
  callbackToken = SECRETS.SBER_CALLBACK_TOKEN,
): SignedDelivery {
  return signSberDelivery({
    method,
    callbackToken,
    payload: sberFixtures.deposited({ orderNumber: orderId, amount: 1999 }),
  });
}

function adyenCapture(orderId: string) {
  return adyenNotificationItem('CAPTURE', {
    merchantReference: orderId,
    pspReference: pspReference(),
    originalReference: pspReference(),
  });
}

function adyen(orderId: string, hmacKey = SECRETS.ADYEN_HMAC_KEY): SignedDelivery {
  return signAdyenDelivery({ hmacKey, items: [adyenCapture(orderId)] });
}

function paddle(orderId: string, secret = SECRETS.PADDLE_WEBHOOK_SECRET): SignedDelivery {
  return signPaddleDelivery({
    secret,
    payload: paddleFixtures.transactionCompleted({ orderId, amount: 1999 }),
  });
}

/** A YooKassa payment.succeeded for `orderId`; the fake API reports the payment as `status`. */
function yookassa(orderId: string, status: 'succeeded' | 'canceled' = 'succeeded'): SignedDelivery {
  const payment = yookassaPayment('succeeded', {
    id: randomUUID(),
    metadata: { orderId },
  });
  fake.setPayment('yookassa', payment.id, {
    ...payment,
    status,
    paid: status === 'succeeded',
  });
  return yookassaDelivery({ event: 'payment.succeeded', object: payment });
}

function yoomoney(
  orderId: string,
  notificationSecret = SECRETS.YOOMONEY_NOTIFICATION_SECRET,
): SignedDelivery {
  return signYooMoneyDelivery({
    notificationSecret,
    payload: yoomoneyFixtures.p2pIncoming({ label: orderId, amount: '19.99' }),
  });
}

function paypal(orderId: string, privateKey?: string): SignedDelivery {
  return signPayPalDelivery({
    webhookId: SECRETS.PAYPAL_WEBHOOK_ID,
    privateKey: privateKey ?? paypalCertificate.keyPem,
    payload: paypalFixtures.captureCompleted({ orderId, amount: 1999, currency: 'USD' }),
  });
}

function square(orderId: string, signatureKey = SECRETS.SQUARE_SIGNATURE_KEY): SignedDelivery {
  return signSquareDelivery({
    signatureKey,
    notificationUrl: SQUARE_NOTIFICATION_URL,
    payload: squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId, amount: 1999 }),
  });
}

const PROVIDERS: ProviderCase[] = [
  {
    label: 'tbank',
    endpoint: 'tbank',
    answer: 'OK',
    paid: (orderId) => tbank(orderId),
    refused: {
      'a wrong password': (orderId) => tbank(orderId, 'tbank-wrong-password'),
      'a tampered body': tampered((orderId) => tbank(orderId)),
    },
  },
  ...(['POST', 'GET'] as const).map((method): ProviderCase => ({
    label: `sber (${method})`,
    endpoint: 'sber',
    answer: '',
    paid: (orderId) => sber(method, orderId),
    refused: {
      'a wrong callback token': (orderId) => sber(method, orderId, 'sber-wrong-token'),
      'a tampered body': tampered((orderId) => sber(method, orderId)),
    },
  })),
  {
    label: 'adyen',
    endpoint: 'adyen',
    answer: '[accepted]',
    paid: (orderId) => adyen(orderId),
    refused: {
      'a wrong HMAC key': (orderId) => adyen(orderId, '00'.repeat(32)),
      'a tampered body': tampered((orderId) => adyen(orderId)),
    },
  },
  {
    label: 'paddle',
    endpoint: 'paddle',
    answer: '',
    paid: (orderId) => paddle(orderId),
    refused: {
      'a wrong secret': (orderId) => paddle(orderId, 'pdl_ntfset_wrong_secret'),
      'a tampered body': tampered((orderId) => paddle(orderId)),
    },
  },
  {
    label: 'yookassa',
    endpoint: 'yookassa',
    answer: '',
    paid: (orderId) => yookassa(orderId),
    refused: {
      // NOTE: YooKassa signs nothing; what the endpoint can refuse is a body that is not a notification.
      'a body that is not a notification': (orderId) => {
        const delivery = yookassa(orderId);
        const body = JSON.parse(delivery.body) as { object: Record<string, unknown> };
        delete body.object.id;
        return { ...delivery, body: JSON.stringify(body) };
      },
    },
  },
  {
    label: 'yoomoney',
    endpoint: 'yoomoney',
    answer: '',
    paid: (orderId) => yoomoney(orderId),
    refused: {
      'a wrong notification secret': (orderId) => yoomoney(orderId, 'yoomoney-wrong-secret'),
      'a tampered body': tampered((orderId) => yoomoney(orderId)),
    },
  },
  {
    label: 'paypal',
    endpoint: 'paypal',
    answer: '',
    paid: (orderId) => paypal(orderId),
    refused: {
      'a key other than the certificate’s': (orderId) =>
        paypal(orderId, PAYPAL_TEST_PRIVATE_KEY_PEM),
      'a tampered body': tampered((orderId) => paypal(orderId)),
    },
  },
  {
    label: 'square',
    endpoint: 'square',
    answer: '',
    paid: (orderId) => square(orderId),
    refused: {
      'a wrong signature key': (orderId) => square(orderId, 'square-wrong-key'),
      'a tampered body': tampered((orderId) => square(orderId)),
    },
  },
];

const REFUSALS = PROVIDERS.flatMap((provider) =>
  Object.entries(provider.refused).map(
    ([what, make]) => [provider.label, what, provider.endpoint, make] as const,
  ),
);

/** The environment the shop is built with: every secret, YooKassa pointed at the fake. */
function shopEnvironment(yookassaAllowedIps: string): Record<string, string> {
  return {
    ...SECRETS,
    YOOKASSA_API_URL: fake.clientOptions('yookassa').apiUrl,
    YOOKASSA_ALLOWED_IPS: yookassaAllowedIps,
    SQUARE_NOTIFICATION_URL,
  };
}

/** Sets `values` in the environment for the duration of `build`, then restores what was there. */
async function withEnvironment<T>(values: Record<string, string>, build: () => Promise<T>) {
  const saved = new Map(Object.keys(values).map((name) => [name, process.env[name]]));
  Object.assign(process.env, values);
  try {
    return await build();
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) {
        delete process.env[name];
      } else {
        process.env[name] = value;
      }
    }
  }
}

/** The sample shop, booted as sample-app/src/main.ts boots it, on a random local port. */
interface Shop {
  app: INestApplication;
  client: WebhookTestClient;
  createOrder(): Promise<OrderView>;
  getOrder(id: string): Promise<OrderView>;
  /** The inbox rows of `endpoint`, all or those naming the order `merchantRef`. */
  inbox(endpoint: ProviderEndpoint, merchantRef?: string): Promise<WebhookEventEntity[]>;
  close(): Promise<void>;
}

async function startShop(
  database: ShopDatabase,
  environment: Record<string, string>,
  overrides: EndpointOverrides,
): Promise<Shop> {
  const app = await withEnvironment(environment, async () => {
    const created = await NestFactory.create<NestExpressApplication>(
      AppModule.forRoot(database, overrides),
      { rawBody: true, logger: process.env.TEST_LOGS ? undefined : false },
    );
    configureApp(created);
    await created.listen(0, '127.0.0.1');
    return created;
  });
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  // NOTE: through WebhookTransactions, so that on SQLite a read never joins a handler's open
  // transaction on the one shared connection.
  const transactions = app.get(WebhookTransactions);
  return {
    app,
    client: new WebhookTestClient(app),
    async createOrder() {
      const response = await fetch(`${url}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ amount: 1999, currency: 'USD' }),
      });
      expect(response.status).toBe(201);
      const order = (await response.json()) as OrderView;
      expect(order).toMatchObject({ state: 'pending', fulfilments: 0 });
      return order;
    },
    async getOrder(id) {
      const response = await fetch(`${url}/orders/${id}`);
      expect(response.status).toBe(200);
      return (await response.json()) as OrderView;
    },
    inbox: (endpoint, merchantRef) =>
      transactions.run((manager) =>
        manager.findBy(WebhookEventEntity, merchantRef ? { endpoint, merchantRef } : { endpoint }),
      ),
    close: () => app.close(),
  };
}

/** A CA and a certificate in PayPal's name it issued, made with OpenSSL, as PayPal's would be. */
function makePayPalCertificate(): { keyPem: string; certPem: string; caPem: string } {
  const certificates = new TestCertificates();
  try {
    const ca = certificates.selfSigned({ subject: '/CN=sample-shop test CA', role: 'ca' });
    const leaf = certificates.issue(ca, { subject: PAYPAL_SIGNING_SUBJECT });
    return { ...leaf, caPem: ca.certPem };
  } finally {
    certificates.remove();
  }
}

/** A database for one shop, with its clean-up. */
async function shopDatabase(
  kind: 'sqlite' | 'postgres',
): Promise<{ database: ShopDatabase; drop(): Promise<void> }> {
  if (kind === 'postgres') {
    const pg = await createTestDatabase();
    return { database: { databaseUrl: pg.url, sqlitePath: '' }, drop: () => pg.drop() };
  }
  const dir = mkdtempSync(join(tmpdir(), 'pw-sample-providers-'));
  return {
    database: { sqlitePath: join(dir, 'shop.sqlite') },
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

const expectAnswer = (response: WebhookTestResponse, answer: string) =>
  expect({ status: response.status, body: response.body }).toEqual({ status: 200, body: answer });

beforeAll(async () => {
  paypalCertificate = makePayPalCertificate();
  fake = await FakeProviderApi.start({ credentials: { yookassa: YOOKASSA_CREDENTIALS } });
});

afterAll(async () => {
  await fake?.close();
});

describe.each(['sqlite', 'postgres'] as const)('sample shop provider endpoints on %s', (kind) => {
  let shop: Shop;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const db = await shopDatabase(kind);
    drop = db.drop;
    shop = await startShop(db.database, shopEnvironment(LOOPBACK), {
      paypalCertificates: async () => paypalCertificate.certPem,
      paypalTrustedRoots: paypalCertificate.caPem,
    });
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  const waitUntilPaid = (orderId: string) =>
    eventually(async () => (await shop.getOrder(orderId)).state === 'paid');

  describe.each(PROVIDERS)('$label', ({ endpoint, answer, paid }) => {
    it(`pays the order once, answering both the delivery and its re-delivery exactly`, async () => {
      const order = await shop.createOrder();
      const delivery = paid(order.id);

      expectAnswer(await shop.client.send(endpoint, delivery), answer);
      await waitUntilPaid(order.id);
      expect(await shop.getOrder(order.id)).toMatchObject({ state: 'paid', fulfilments: 1 });

      expectAnswer(await shop.client.send(endpoint, delivery), answer);
      await eventually(async () => {
        const rows = await shop.inbox(endpoint, order.id);
        return rows.length === 1 && rows[0].deliveryCount === 2 && rows[0].status === 'processed';
      });
      expect(await shop.getOrder(order.id)).toMatchObject({ state: 'paid', fulfilments: 1 });
    });
  });

  it.each(REFUSALS)(
    '%s: refuses %s with 400 and stores nothing',
    async (_label, _what, endpoint, make) => {
      const order = await shop.createOrder();
      const before = (await shop.inbox(endpoint)).length;

      const response = await shop.client.send(endpoint, make(order.id));

      expect(response.status).toBe(400);
      expect((await shop.inbox(endpoint)).length).toBe(before);
      expect(await shop.getOrder(order.id)).toMatchObject({ state: 'pending', fulfilments: 0 });
    },
  );

  it('yookassa: acknowledges a notification the API contradicts but leaves the order pending', async () => {
    const order = await shop.createOrder();
    const delivery = yookassa(order.id, 'canceled');

    expectAnswer(await shop.client.send('yookassa', delivery), '');

    let row: WebhookEventEntity | undefined;
    await eventually(async () => {
      [row] = await shop.inbox('yookassa', order.id);
      return row?.status === 'processed';
    });
    const paymentId = (JSON.parse(delivery.body) as { object: { id: string } }).object.id;
    expect(fake.requestsTo('yookassa').map((request) => request.url)).toContain(
      `/yookassa/v3/payments/${paymentId}`,
    );
    expect(row).toMatchObject({
      type: 'payment.succeeded',
      outcome: 'provider_disagrees',
      providerStatus: 'canceled',
    });
    expect(await shop.getOrder(order.id)).toMatchObject({ state: 'pending', fulfilments: 0 });
  });

  describe('adyen batch', () => {
    it('refuses a request with one badly signed item with 400 and stores none of its items', async () => {
      const [first, second, third] = [
        await shop.createOrder(),
        await shop.createOrder(),
        await shop.createOrder(),
      ];
      const good = signAdyenDelivery({
        hmacKey: SECRETS.ADYEN_HMAC_KEY,
        items: [adyenCapture(first.id), adyenCapture(second.id)],
      });
      const bad = signAdyenDelivery({
        hmacKey: '00'.repeat(32),
        items: [adyenCapture(third.id)],
      });
      const goodBody = JSON.parse(good.body) as { notificationItems: unknown[] };
      const badBody = JSON.parse(bad.body) as { notificationItems: unknown[] };
      const mixed: SignedDelivery = {
        ...good,
        body: JSON.stringify({
          ...goodBody,
          notificationItems: [...goodBody.notificationItems, ...badBody.notificationItems],
        }),
      };
      const before = (await shop.inbox('adyen')).length;

      const response = await shop.client.send('adyen', mixed);

      expect(response.status).toBe(400);
      expect((await shop.inbox('adyen')).length).toBe(before);
      for (const order of [first, second, third]) {
        expect(await shop.getOrder(order.id)).toMatchObject({ state: 'pending', fulfilments: 0 });
      }
    });

    it('accepts a request whose items are all valid and pays each order once', async () => {
      const [first, second] = [await shop.createOrder(), await shop.createOrder()];
      const delivery = signAdyenDelivery({
        hmacKey: SECRETS.ADYEN_HMAC_KEY,
        items: [adyenCapture(first.id), adyenCapture(second.id)],
      });

      expectAnswer(await shop.client.send('adyen', delivery), '[accepted]');

      for (const order of [first, second]) {
        await waitUntilPaid(order.id);
        expect(await shop.getOrder(order.id)).toMatchObject({ state: 'paid', fulfilments: 1 });
        expect(await shop.inbox('adyen', order.id)).toHaveLength(1);
      }
    });
  });
});

describe('sample shop yookassa endpoint with YOOKASSA_ALLOWED_IPS excluding the sender', () => {
  let shop: Shop;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const db = await shopDatabase('sqlite');
    drop = db.drop;
    shop = await startShop(db.database, shopEnvironment(ELSEWHERE), {
      paypalCertificates: async () => paypalCertificate.certPem,
      paypalTrustedRoots: paypalCertificate.caPem,
    });
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  it('refuses a notification from 127.0.0.1 with 403 and leaves the order pending', async () => {
    const order = await shop.createOrder();

    const response = await shop.client.send('yookassa', yookassa(order.id));

    expect(response.status).toBe(403);
    expect(await shop.inbox('yookassa')).toHaveLength(0);
    expect(await shop.getOrder(order.id)).toMatchObject({ state: 'pending', fulfilments: 0 });
  });
});

describe.each(['sqlite', 'postgres'] as const)('sample shop reconciliation on %s', (kind) => {
  let shop: Shop;
  let url: string;
  let drop: () => Promise<void> = async () => undefined;

  beforeAll(async () => {
    const db = await shopDatabase(kind);
    drop = db.drop;
    shop = await startShop(db.database, shopEnvironment(LOOPBACK), {
      paypalCertificates: async () => paypalCertificate.certPem,
      paypalTrustedRoots: paypalCertificate.caPem,
    });
    url = (await shop.app.getUrl()).replace('[::1]', '127.0.0.1');
  });
  afterAll(async () => {
    await shop?.close();
    await drop();
  });

  /** An order whose payment was created at YooKassa: the shop knows the payment's id. */
  async function orderPaidThroughYooKassa(paymentId: string): Promise<OrderView> {
    const response = await fetch(`${url}/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        amount: 5510,
        currency: 'RUB',
        paymentEndpoint: 'yookassa',
        paymentRef: paymentId,
      }),
    });
    expect(response.status).toBe(201);
    return (await response.json()) as OrderView;
  }

  it('pays an order whose notification never came exactly once, and again changes nothing', async () => {
    const lostId = randomUUID();
    const openId = randomUUID();
    const lost = await orderPaidThroughYooKassa(lostId);
    const open = await orderPaidThroughYooKassa(openId);
    const amount = { value: '55.10', currency: 'RUB' };
    fake.setPayment('yookassa', lostId, { status: 'succeeded', paid: true, amount });
    fake.setPayment('yookassa', openId, { status: 'pending', paid: false, amount });
    const reconciliation = shop.app.get(ReconciliationService);

    const first = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: new Date() });
    expect(first).toMatchObject({ checked: 2, inAgreement: 1, recovered: 1, failed: [] });
    await eventually(async () => (await shop.getOrder(lost.id)).state === 'paid');
    expect(await shop.getOrder(lost.id)).toMatchObject({ state: 'paid', fulfilments: 1 });
    expect(await shop.getOrder(open.id)).toMatchObject({ state: 'pending', fulfilments: 0 });

    const again = await reconciliation.reconcile({ endpoint: 'yookassa', olderThan: new Date() });
    expect(again).toMatchObject({ checked: 1, inAgreement: 1, recovered: 0 });

    // The notification arrives after all: acknowledged, and the order is not paid twice.
    const late = yookassaDelivery({
      event: 'payment.succeeded',
      object: yookassaPayment('succeeded', { id: lostId, metadata: { orderId: lost.id } }),
    });
    expectAnswer(await shop.client.send('yookassa', late), '');
    let row: WebhookEventEntity | undefined;
    await eventually(async () => {
      [row] = (await shop.inbox('yookassa', lost.id)).filter(
        (event) => event.eventId === `payment.succeeded:${lostId}`,
      );
      return row?.status === 'processed';
    });
    expect(row?.outcome).toBe('not_allowed');
    expect(await shop.getOrder(lost.id)).toMatchObject({ state: 'paid', fulfilments: 1 });
  });
});
