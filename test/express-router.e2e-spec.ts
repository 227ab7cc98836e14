import { randomBytes, randomUUID } from 'node:crypto';
import { AddressInfo, connect } from 'node:net';
import express from 'express';
import { Client } from 'pg';
import {
  adyenEndpoint,
  paddleEndpoint,
  sberEndpoint,
  squareEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  yookassaEndpoint,
  yoomoneyEndpoint,
  WebhookConfigurationError,
  WebhooksRouterOptions,
} from 'nestjs-payment-webhooks/express';
import {
  adyenNotificationItem,
  paddleFixtures,
  sberFixtures,
  signAdyenDelivery,
  signPaddleDelivery,
  signSberDelivery,
  signSquareDelivery,
  signTBankDelivery,
  signYooMoneyDelivery,
  SignedDelivery,
  squareFixtures,
  tbankFixtures,
  yookassaDelivery,
  yookassaPayment,
  yoomoneyFixtures,
} from 'nestjs-payment-webhooks/testing';
import { FakeProviderApi } from './support/fake-provider-api';
import { post } from './support/http';
import { startRouterApp, RouterTestApp } from './support/router-app';
import { stripePaymentEvent } from './support/stripe-event';
import { countEffects, Database, eventually, HandlerControl, TestEffect } from './support/test-app';

const STRIPE_SECRET = 'whsec_express_router';
const TBANK_PASSWORD = 'tbank-express-router-password';
const ADYEN_HMAC_KEY = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';

function webhooks(
  overrides: Partial<WebhooksRouterOptions> = {},
): Omit<WebhooksRouterOptions, 'dataSource' | 'handlers'> {
  return {
    endpoints: [
      stripeEndpoint({ name: 'stripe', secret: STRIPE_SECRET, maxBodyBytes: 64 * 1024 }),
      stripeEndpoint({ name: 'office', secret: STRIPE_SECRET, allowedIps: ['10.0.0.0/8'] }),
      tbankEndpoint({ name: 'tbank', password: TBANK_PASSWORD }),
      adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_HMAC_KEY }),
    ],
    dispatch: { pollIntervalMs: 100, retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 } },
    ...overrides,
  };
}

const stripeEvent = () => stripePaymentEvent(STRIPE_SECRET);

async function rowsOf(t: RouterTestApp, eventId: string): Promise<{ status: string }[]> {
  return t.dataSource.query(
    `SELECT status FROM webhook_events WHERE event_id = ${t.databaseUrl ? '$1' : '?'}`,
    [eventId],
  );
}

async function storedCount(t: RouterTestApp): Promise<number> {
  const [row] = (await t.dataSource.query('SELECT count(*) AS n FROM webhook_events')) as {
    n: string | number;
  }[];
  return Number(row.n);
}

/** Sends a POST head declaring a large body and only a little of it; resolves to the status. */
function postWithoutBody(url: string): Promise<number | null> {
  const { port, pathname } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect(Number(port), '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => socket.destroy(), 5_000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) socket.destroy();
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => {
      clearTimeout(timer);
      const match = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(match ? Number(match[1]) : null);
    });
    socket.on('connect', () => {
      socket.write(
        `POST ${pathname} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          'Content-Length: 1500000\r\n\r\n{"pad":"',
      );
    });
  });
}

describe.each<Database>(['sqlite', 'postgres'])('the plain Express router on %s', (database) => {
  let t: RouterTestApp;

  beforeAll(async () => {
    t = await startRouterApp({ database, webhooks: webhooks() });
  });
  afterAll(async () => {
    await t?.close();
  });

  it('stores a signed Stripe delivery, answers 200, and runs the handler once for two deliveries', async () => {
    const event = stripeEvent();
    const first = await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
    const again = await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(first.body).toBe('');
    await eventually(async () => (await rowsOf(t, event.id))[0]?.status === 'processed');
    expect(await rowsOf(t, event.id)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countEffects(t, event.id)).toBe(1);
  });

  it('answers a bad signature with 400 and stores nothing', async () => {
    const event = stripeEvent();
    const answer = await post(`${t.url}/webhooks/stripe`, event.body, {
      'stripe-signature': 't=1,v1=00',
    });
    expect(answer.status).toBe(400);
    expect(await rowsOf(t, event.id)).toHaveLength(0);
  });

  it("answers T-Bank with OK and Adyen with [accepted], each provider's exact success", async () => {
    const tbank = signTBankDelivery({
      password: TBANK_PASSWORD,
      payload: tbankFixtures.confirmed({ orderId: `order-tb-${Date.now()}`, amount: 1999 }),
    });
    const adyen = signAdyenDelivery({
      hmacKey: ADYEN_HMAC_KEY,
      items: [
        adyenNotificationItem('CAPTURE', {
          merchantReference: `order-ad-${Date.now()}`,
          pspReference: `${Date.now()}`.padStart(16, '7'),
          originalReference: `${Date.now()}`.padStart(16, '8'),
        }),
      ],
    });
    const tbankAnswer = await post(`${t.url}/webhooks/tbank`, tbank.body, { ...tbank.headers });
    const adyenAnswer = await post(`${t.url}/webhooks/adyen`, adyen.body, { ...adyen.headers });
    expect([tbankAnswer.status, tbankAnswer.body]).toEqual([200, 'OK']);
    expect([adyenAnswer.status, adyenAnswer.body]).toEqual([200, '[accepted]']);
  });

  it('answers 404 for an unknown endpoint and 405 with Allow for a GET on a POST endpoint', async () => {
    const event = stripeEvent();
    expect((await post(`${t.url}/webhooks/nope`, event.body, event.headers())).status).toBe(404);
    const get = await fetch(`${t.url}/webhooks/stripe`, { redirect: 'manual' });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('answers 413 for a body over the endpoint limit and stores nothing', async () => {
    const before = await storedCount(t);
    const body = JSON.stringify({ pad: 'x'.repeat(70 * 1024) });
    const answer = await post(`${t.url}/webhooks/stripe`, body, { 'stripe-signature': 't=1' });
    expect(answer.status).toBe(413);
    expect(await storedCount(t)).toBe(before);
  });

  it('answers 403 to a source outside the allowlist before the body is read', async () => {
    const before = await storedCount(t);
    expect(await postWithoutBody(`${t.url}/webhooks/office`)).toBe(403);
    expect(await storedCount(t)).toBe(before);
  });

  it('retries a handler that fails once, and its effect is applied once', async () => {
    const event = stripeEvent();
    t.control.scripts.set(event.id, { failTimes: 1 });
    expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers())).status).toBe(200);
    await eventually(async () => (await rowsOf(t, event.id))[0]?.status === 'processed');
    expect(t.control.calls.filter((call) => call.eventId === event.id)).toHaveLength(2);
    expect(await countEffects(t, event.id)).toBe(1);
  });

  it('answers the health handler with 200 and the report, and the metrics handler with 404 naming the option', async () => {
    const app = express();
    app.get('/health', t.router.healthHandler);
    app.get('/metrics', t.router.metricsHandler);
    const server = await new Promise<ReturnType<typeof app.listen>>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const health = await fetch(`${base}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toMatchObject({ status: 'up', database: { up: true } });
      expect((await t.router.health()).status).toBe('up');
      const metrics = await fetch(`${base}/metrics`);
      expect(metrics.status).toBe(404);
      expect(((await metrics.json()) as { message: string }).message).toContain(
        'observability: { metrics: true }',
      );
    } finally {
      server.close();
    }
  });
});

const SQUARE_URL = 'https://shop.example.test/webhooks/square';
const PROVIDER_SECRETS = {
  paddle: 'pdl_ntfset_express_router_secret',
  yoomoney: 'yoomoney-express-router-secret',
  square: 'square-express-router-key',
  sber: 'sber-express-router-token',
};

/** A genuine "payment succeeded" for `orderId` from each provider kind, and its exact answer. */
const KINDS: {
  endpoint: string;
  answer: string;
  paid: (orderId: string, fake: FakeProviderApi) => SignedDelivery;
}[] = [
  {
    endpoint: 'tbank',
    answer: 'OK',
    paid: (orderId) =>
      signTBankDelivery({
        password: TBANK_PASSWORD,
        payload: tbankFixtures.confirmed({ orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'sber',
    answer: '',
    paid: (orderId) =>
      signSberDelivery({
        method: 'POST',
        callbackToken: PROVIDER_SECRETS.sber,
        payload: sberFixtures.deposited({ orderNumber: orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'adyen',
    answer: '[accepted]',
    paid: (orderId) =>
      signAdyenDelivery({
        hmacKey: ADYEN_HMAC_KEY,
        items: [
          adyenNotificationItem('CAPTURE', {
            merchantReference: orderId,
            pspReference: randomBytes(8).toString('hex').toUpperCase(),
            originalReference: randomBytes(8).toString('hex').toUpperCase(),
          }),
        ],
      }),
  },
  {
    endpoint: 'paddle',
    answer: '',
    paid: (orderId) =>
      signPaddleDelivery({
        secret: PROVIDER_SECRETS.paddle,
        payload: paddleFixtures.transactionCompleted({ orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'yoomoney',
    answer: '',
    paid: (orderId) =>
      signYooMoneyDelivery({
        notificationSecret: PROVIDER_SECRETS.yoomoney,
        payload: yoomoneyFixtures.p2pIncoming({ label: orderId, amount: '19.99' }),
      }),
  },
  {
    endpoint: 'square',
    answer: '',
    paid: (orderId) =>
      signSquareDelivery({
        signatureKey: PROVIDER_SECRETS.square,
        notificationUrl: SQUARE_URL,
        payload: squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId, amount: 1999 }),
      }),
  },
  {
    endpoint: 'yookassa',
    answer: '',
    paid: (orderId, fake) => {
      const payment = yookassaPayment('succeeded', { id: randomUUID(), metadata: { orderId } });
      fake.setPayment('yookassa', payment.id, { ...payment, status: 'succeeded', paid: true });
      return yookassaDelivery({ event: 'payment.succeeded', object: payment });
    },
  },
];

describe.each<Database>(['sqlite', 'postgres'])(
  'every provider kind over the router on %s',
  (database) => {
    let t: RouterTestApp;
    let fake: FakeProviderApi;

    beforeAll(async () => {
      fake = await FakeProviderApi.start();
      const yookassa = fake.clientOptions('yookassa');
      t = await startRouterApp({
        database,
        webhooks: {
          endpoints: [
            tbankEndpoint({ name: 'tbank', password: TBANK_PASSWORD }),
            sberEndpoint({ name: 'sber', callbackToken: PROVIDER_SECRETS.sber }),
            adyenEndpoint({ name: 'adyen', hmacKey: ADYEN_HMAC_KEY }),
            paddleEndpoint({ name: 'paddle', secret: PROVIDER_SECRETS.paddle }),
            yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: PROVIDER_SECRETS.yoomoney }),
            squareEndpoint({
              name: 'square',
              signatureKey: PROVIDER_SECRETS.square,
              notificationUrl: SQUARE_URL,
            }),
            yookassaEndpoint({ name: 'yookassa', ...yookassa, allowedIps: ['127.0.0.1', '::1'] }),
          ],
          dispatch: { pollIntervalMs: 50 },
        },
      });
    });
    afterAll(async () => {
      await t?.close();
      await fake?.close();
    });

    it.each(KINDS)(
      '$endpoint: answers both deliveries exactly, stores one row and applies the payment once',
      async ({ endpoint, answer, paid }) => {
        const orderId = `order-${endpoint}-${randomUUID()}`;
        const delivery = paid(orderId, fake);
        const send = () =>
          post(`${t.url}/webhooks/${endpoint}`, delivery.body, { ...delivery.headers });
        const [first, again] = [await send(), await send()];
        expect([first.status, first.body]).toEqual([200, answer]);
        expect([again.status, again.body]).toEqual([200, answer]);
        const effects = () =>
          t.dataSource.getRepository(TestEffect).countBy({ merchantRef: orderId });
        await eventually(async () => (await effects()) === 1);
        const [row] = (await t.dataSource.query(
          `SELECT count(*) AS n, max(delivery_count) AS deliveries FROM webhook_events WHERE endpoint = ${database === 'postgres' ? '$1' : '?'} AND merchant_ref = ${database === 'postgres' ? '$2' : '?'}`,
          [endpoint, orderId],
        )) as { n: string | number; deliveries: string | number }[];
        expect([Number(row.n), Number(row.deliveries)]).toEqual([1, 2]);
        await new Promise((resolve) => setTimeout(resolve, 150));
        expect(await effects()).toBe(1);
      },
    );
  },
);

describe('the context function handlers get', () => {
  it('carries the transaction manager, the attempt, a stable idempotency key, a logger and fetchStatus', async () => {
    const seen: { attempt: number; key: string; status: string }[] = [];
    const lines: string[] = [];
    const fake = await FakeProviderApi.start();
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: {
        endpoints: [
          stripeEndpoint({
            name: 'stripe',
            secret: STRIPE_SECRET,
            api: fake.clientOptions('stripe'),
          }),
        ],
        dispatch: {
          pollIntervalMs: 50,
          retry: { maxAttempts: 3, baseDelayMs: 10, maxDelayMs: 20 },
        },
        logger: {
          log: (line: unknown) => lines.push(String(line)),
          warn: (line: unknown) => lines.push(String(line)),
          error: () => undefined,
        },
      },
      handlers: [
        {
          on: 'payment.succeeded',
          name: 'fulfil',
          handle: async (event, ctx) => {
            const { status } = await ctx.fetchStatus();
            seen.push({ attempt: ctx.attempt, key: ctx.idempotencyKey, status });
            ctx.logger.log(`fulfilling ${event.eventId}`);
            await ctx.manager.insert(TestEffect, {
              eventId: event.eventId,
              handler: 'fulfil',
              merchantRef: event.merchantRef,
            });
            if (ctx.attempt === 1) {
              throw new Error('first attempt fails');
            }
          },
        },
      ],
    });
    try {
      const event = stripeEvent();
      fake.setPayment('stripe', `pi_${event.id}`, {
        status: 'succeeded',
        amount: 1999,
        currency: 'usd',
      });
      await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      await eventually(async () => (await rowsOf(t, event.id))[0]?.status === 'processed');
      expect(seen.map((call) => call.attempt)).toEqual([1, 2]);
      expect(seen[0].key).toBe(seen[1].key);
      expect(seen[0].key).not.toBe('');
      expect(seen[0].status).toBe('succeeded');
      expect(lines.some((line) => line.includes(`fulfilling ${event.id}`))).toBe(true);
      // The failed attempt's insert rolled back with its transaction.
      expect(await countEffects(t, event.id)).toBe(1);
    } finally {
      await t.close();
      await fake.close();
    }
  });
});

describe('the plain Express router behind a body parser', () => {
  it('answers 500 naming the fix when express.json() ran before it, and stores nothing', async () => {
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: webhooks(),
      before: [express.json()],
    });
    try {
      const event = stripeEvent();
      const answer = await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      expect(answer.status).toBe(500);
      expect(answer.body).toContain("app.use('/webhooks', webhooks)");
      expect(await storedCount(t)).toBe(0);
    } finally {
      await t.close();
    }
  });

  it('reads the body itself when the parser before it skipped the content type', async () => {
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: webhooks(),
      before: [
        express.json(),
        // NOTE: what Express 4's body-parser leaves for a content type it does not parse.
        (request, _response, next) => {
          const parsed = request as typeof request & { body?: unknown };
          parsed.body ??= {};
          next();
        },
      ],
    });
    try {
      const event = stripeEvent();
      const answer = await post(`${t.url}/webhooks/stripe`, event.body, {
        ...event.headers(),
        'content-type': 'text/plain',
      });
      expect(answer.status).toBe(200);
      await eventually(async () => (await countEffects(t, event.id)) === 1);
    } finally {
      await t.close();
    }
  });

  it('takes the bytes express.raw() kept', async () => {
    const t = await startRouterApp({
      database: 'sqlite',
      webhooks: webhooks(),
      before: [express.raw({ type: () => true })],
    });
    try {
      const event = stripeEvent();
      expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers())).status).toBe(
        200,
      );
      await eventually(async () => (await countEffects(t, event.id)) === 1);
    } finally {
      await t.close();
    }
  });
});

describe('the plain Express router across a restart', () => {
  it.each<Database>(['sqlite', 'postgres'])(
    'runs an event left pending by a stopped router once, in the next router on %s',
    async (database) => {
      const control = new HandlerControl();
      const first = await startRouterApp({
        database,
        control,
        webhooks: webhooks({ start: false }),
      });
      const event = stripeEvent();
      const second = await (async () => {
        try {
          expect(
            (await post(`${first.url}/webhooks/stripe`, event.body, event.headers())).status,
          ).toBe(200);
          expect(await rowsOf(first, event.id)).toEqual([{ status: 'pending' }]);
        } finally {
          await first.stop();
        }
        return startRouterApp({
          database,
          control,
          webhooks: webhooks(),
          databaseUrl: first.databaseUrl,
          sqliteFile: first.sqliteFile,
        });
      })();
      try {
        await eventually(async () => (await rowsOf(second, event.id))[0]?.status === 'processed');
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect(await countEffects(second, event.id)).toBe(1);
        expect(control.calls.filter((call) => call.eventId === event.id)).toHaveLength(1);
      } finally {
        await second.stop();
        await first.close();
      }
    },
  );
});

describe('the plain Express router with a blocked store', () => {
  it('answers 503 within storeTimeoutMs while webhook_events is locked, then stores the retry once', async () => {
    const t = await startRouterApp({
      database: 'postgres',
      webhooks: webhooks({ storeTimeoutMs: 1000 }),
    });
    const locker = new Client({ connectionString: t.databaseUrl });
    await locker.connect();
    try {
      const event = stripeEvent();
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE webhook_events IN ACCESS EXCLUSIVE MODE');
      const startedAt = Date.now();
      const blocked = await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
      expect(blocked.status).toBe(503);
      expect(Date.now() - startedAt).toBeLessThan(1500);
      await locker.query('ROLLBACK');
      expect((await post(`${t.url}/webhooks/stripe`, event.body, event.headers())).status).toBe(
        200,
      );
      await eventually(async () => (await countEffects(t, event.id)) === 1);
      expect(await rowsOf(t, event.id)).toHaveLength(1);
    } finally {
      await locker.end();
      await t.close();
    }
  });
});

describe('the plain Express router with metrics and admin routes', () => {
  let t: RouterTestApp;
  let base: string;
  let server: ReturnType<ReturnType<typeof express>['listen']>;

  beforeAll(async () => {
    t = await startRouterApp({
      database: 'sqlite',
      webhooks: webhooks({ observability: { metrics: true } }),
    });
    const app = express();
    app.get('/metrics', t.router.metricsHandler);
    app.use(
      '/webhooks-admin',
      t.router.adminRouter({
        authorize: (request) => request.headers['x-admin-token'] === 'let-me-in',
      }),
    );
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server?.close();
    await t?.close();
  });

  const admin = (method: string, path: string, body?: unknown, token = 'let-me-in') =>
    fetch(`${base}/webhooks-admin/${path}`, {
      method,
      headers: { 'x-admin-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  it('serves the Prometheus text with the delivery counted', async () => {
    const event = stripeEvent();
    await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
    const metrics = await fetch(`${base}/metrics`);
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toContain('text/plain');
    expect(await metrics.text()).toMatch(/webhook.*deliver/);
  });

  it('lists, shows, settles and redelivers events behind authorize, and refuses others with 403', async () => {
    const event = stripeEvent();
    t.control.scripts.set(event.id, { nonRetryable: true });
    await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
    await eventually(async () => (await rowsOf(t, event.id))[0]?.status === 'dead');

    expect((await admin('GET', 'events', undefined, 'wrong')).status).toBe(403);
    const list = await admin('GET', 'events?status=dead');
    expect(list.status).toBe(200);
    const dead = ((await list.json()) as { id: string; eventId: string }[]).find(
      (row) => row.eventId === event.id,
    );
    expect(dead).toBeDefined();
    const shown = await admin('GET', `events/${dead!.id}`);
    expect(shown.status).toBe(200);
    expect((await admin('GET', 'events/not-a-uuid')).status).toBe(400);
    expect((await admin('GET', 'events?status=bogus')).status).toBe(400);
    expect((await admin('POST', `events/${dead!.id}/settle`, { status: 'gone' })).status).toBe(400);

    t.control.scripts.delete(event.id);
    const redelivered = await admin('POST', `events/${dead!.id}/redeliver`);
    expect(redelivered.status).toBe(200);
    expect(await redelivered.json()).toEqual({ redelivered: dead!.id });
    await eventually(async () => (await rowsOf(t, event.id))[0]?.status === 'processed');
    expect(await countEffects(t, event.id)).toBe(1);
    const stats = await admin('GET', 'stats');
    expect(stats.status).toBe(200);
  });

  it('settles an event by hand with a JSON body the router reads itself', async () => {
    const event = stripeEvent();
    t.control.scripts.set(event.id, { alwaysFail: true });
    await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
    await eventually(async () => (await rowsOf(t, event.id))[0]?.status === 'dead');
    const [row] = (await t.dataSource.query('SELECT id FROM webhook_events WHERE event_id = ?', [
      event.id,
    ])) as { id: string }[];
    const settled = await admin('POST', `events/${row.id}/settle`, {
      status: 'ignored',
      reason: 'refunded by hand',
    });
    expect(settled.status).toBe(200);
    expect(await rowsOf(t, event.id)).toEqual([{ status: 'ignored' }]);
  });
});

describe('createWebhooksRouter options', () => {
  it('refuses an uninitialized data source, a handler without a name and an admin router without authorize, naming the fix', async () => {
    const t = await startRouterApp({ database: 'sqlite', webhooks: webhooks() });
    try {
      await t.dataSource.destroy();
      await expect(createRouterOn(t, { handlers: [] })).rejects.toThrow(
        /await dataSource.initialize\(\)/,
      );
      await t.dataSource.initialize();
      await expect(
        createRouterOn(t, {
          handlers: [{ on: 'payment.succeeded', name: '', handle: async () => undefined }],
        }),
      ).rejects.toThrow(WebhookConfigurationError);
      expect(() =>
        t.router.adminRouter(undefined as unknown as { authorize: () => boolean }),
      ).toThrow(/authorize\(request\)/);
    } finally {
      await t.close();
    }
  });
});

async function createRouterOn(
  t: RouterTestApp,
  extra: Pick<WebhooksRouterOptions, 'handlers'>,
): Promise<void> {
  const { createWebhooksRouter } = await import('nestjs-payment-webhooks/express');
  const router = await createWebhooksRouter({
    ...webhooks({ start: false }),
    ...extra,
    dataSource: t.dataSource,
  });
  await router.stop();
}
