import { AddressInfo, connect } from 'node:net';
import express from 'express';
import { Client } from 'pg';
import {
  adyenEndpoint,
  stripeEndpoint,
  tbankEndpoint,
  WebhookConfigurationError,
  WebhooksRouterOptions,
} from 'nestjs-payment-webhooks/express';
import {
  adyenNotificationItem,
  signAdyenDelivery,
  signTBankDelivery,
  tbankFixtures,
} from 'nestjs-payment-webhooks/testing';
import { post } from '../support/http';
import { inboxStatuses, RouterTestApp, startRouterApp } from '../support/router-app';
import { stripePaymentEvent } from '../support/stripe-event';
import { countEffects, Database, eventually, HandlerControl } from '../support/test-app';

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
    await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'processed');
    expect(await inboxStatuses(t, event.id)).toHaveLength(1);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await countEffects(t, event.id)).toBe(1);
  });

  it('answers a bad signature with 400 and stores nothing', async () => {
    const event = stripeEvent();
    const answer = await post(`${t.url}/webhooks/stripe`, event.body, {
      'stripe-signature': 't=1,v1=00',
    });
    expect(answer.status).toBe(400);
    expect(await inboxStatuses(t, event.id)).toHaveLength(0);
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
    await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'processed');
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
        webhooks: webhooks({ autoStart: false }),
      });
      const event = stripeEvent();
      const second = await (async () => {
        try {
          expect(
            (await post(`${first.url}/webhooks/stripe`, event.body, event.headers())).status,
          ).toBe(200);
          expect(await inboxStatuses(first, event.id)).toEqual([{ status: 'pending' }]);
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
        await eventually(
          async () => (await inboxStatuses(second, event.id))[0]?.status === 'processed',
        );
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
      expect(await inboxStatuses(t, event.id)).toHaveLength(1);
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
    await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'dead');

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
    await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'processed');
    expect(await countEffects(t, event.id)).toBe(1);
    const stats = await admin('GET', 'stats');
    expect(stats.status).toBe(200);
  });

  it('settles an event by hand with a JSON body the router reads itself', async () => {
    const event = stripeEvent();
    t.control.scripts.set(event.id, { alwaysFail: true });
    await post(`${t.url}/webhooks/stripe`, event.body, event.headers());
    await eventually(async () => (await inboxStatuses(t, event.id))[0]?.status === 'dead');
    const [row] = (await t.dataSource.query('SELECT id FROM webhook_events WHERE event_id = ?', [
      event.id,
    ])) as { id: string }[];
    const settled = await admin('POST', `events/${row.id}/settle`, {
      status: 'ignored',
      reason: 'refunded by hand',
    });
    expect(settled.status).toBe(200);
    expect(await inboxStatuses(t, event.id)).toEqual([{ status: 'ignored' }]);
  });
});

describe('createWebhooksRouter options', () => {
  it('refuses an uninitialized data source, a handler without a name or with a taken one, and an admin router without authorize, naming the fix', async () => {
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
      const fulfil = {
        on: 'payment.succeeded' as const,
        name: 'fulfil',
        handle: async () => undefined,
      };
      await expect(createRouterOn(t, { handlers: [fulfil, { ...fulfil }] })).rejects.toThrow(
        /named "fulfil".*a name of its own/,
      );
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
    ...webhooks({ autoStart: false }),
    ...extra,
    dataSource: t.dataSource,
  });
  await router.stop();
}
