import { MercadoPagoConfig, Payment } from 'mercadopago';
import { AppConfig } from 'mercadopago/dist/utils/config';
import { createHmac, randomUUID } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import { rejection } from '../../spec-support/rejection';
import { notificationsOf } from '../notifications';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import { MercadoPagoStatusClient } from './mercado-pago-status.client';
import { mercadoPagoFixtures } from './mercado-pago.fixtures';
import { MercadoPagoEndpointOptions, mercadoPagoEndpoint } from './mercado-pago.provider';

const TOKEN = 'APP_USR-5183442017561235-030215-6e3f7b1c2d9a4e8f0b5c1d7a3e9f2b4c-1197520450';
const SECRET = 'a3f1c9e27b6d48f0b5e2c7d9a1f04e6b8c2d7e9f1a3b5c7d9e0f2a4b6c8d0e1f';
const PAYMENT_ID = '1319485746';

/** A local stand-in for api.mercadopago.com: `GET /v1/payments/{id}` with a Bearer token. */
class FakeMercadoPagoApi {
  readonly payments = new Map<string, Record<string, unknown>>();
  readonly requests: { url: string; authorization?: string }[] = [];
  /** An answer for every request instead of the payment: status and body. */
  failure?: { status: number; body: unknown };
  /** Milliseconds to wait before answering. */
  delayMs = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeMercadoPagoApi> {
    const server = createServer();
    const api = new FakeMercadoPagoApi(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      setTimeout(() => api.answer(request, response), api.delayMs);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    this.requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
    const send = (status: number, body: unknown) => {
      if (response.destroyed) return;
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${TOKEN}`) {
      return send(401, { message: 'invalid access token', error: 'unauthorized', status: 401 });
    }
    if (this.failure) return send(this.failure.status, this.failure.body);
    const id = /^\/v1\/payments\/([^/?]+)$/.exec(request.url ?? '')?.[1];
    const payment = id === undefined ? undefined : this.payments.get(id);
    if (payment === undefined) {
      return send(404, { message: 'Payment not found', error: 'not_found', status: 404 });
    }
    send(200, payment);
  }
}

let api: FakeMercadoPagoApi;

beforeAll(async () => {
  api = await FakeMercadoPagoApi.start();
});

afterEach(() => {
  api.payments.clear();
  api.requests.length = 0;
  api.failure = undefined;
  api.delayMs = 0;
});

afterAll(() => api.close());

function put(payment: Record<string, unknown>): string {
  api.payments.set(String(payment.id), payment);
  return String(payment.id);
}

function endpoint(options: Partial<MercadoPagoEndpointOptions> = {}) {
  return mercadoPagoEndpoint({
    name: 'mercado-pago',
    secret: SECRET,
    api: { accessToken: TOKEN, apiUrl: api.url },
    ...options,
  });
}

/** A notification signed with node:crypto as Mercado Pago's documentation describes. */
function signed(notification: { data?: { id?: unknown } }, secret = SECRET): InboundWebhook {
  const ts = Math.floor(Date.now() / 1000);
  const requestId = randomUUID();
  const dataId = notification.data?.id === undefined ? '' : `id:${String(notification.data.id)};`;
  const v1 = createHmac('sha256', secret)
    .update(`${dataId}request-id:${requestId};ts:${ts};`)
    .digest('hex');
  return {
    rawBody: Buffer.from(JSON.stringify(notification)),
    headers: {
      'content-type': 'application/json',
      'x-signature': `ts=${ts},v1=${v1}`,
      'x-request-id': requestId,
    },
    receivedAt: new Date(),
  };
}

async function take(
  request: InboundWebhook,
  options: Partial<MercadoPagoEndpointOptions> = {},
): Promise<NormalizedNotification> {
  const { provider } = endpoint(options);
  await provider.verify(request);
  return notificationsOf(provider.normalize(request))[0];
}

/** What a stored event is normalized to on replay: its stored body alone, no headers. */
function replay(storedBody: string): NormalizedNotification {
  return notificationsOf(
    endpoint().provider.normalize({
      rawBody: Buffer.from(storedBody),
      headers: {},
      receivedAt: new Date(),
    }),
  )[0];
}

describe('mercadoPagoEndpoint with api: payment notifications confirmed with the API', () => {
  it('stores an approved payment as payment.succeeded, read from GET /v1/payments/{data.id}', async () => {
    const payment = mercadoPagoFixtures.payment({
      paymentId: PAYMENT_ID,
      status: 'approved',
      amount: 1999,
      currency: 'BRL',
      orderId: 'order-42',
      createdAt: new Date('2026-03-02T15:04:00.000Z'),
    });
    put(payment);
    const notification = await take(
      signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID })),
    );
    expect(notification).toMatchObject({
      eventId: `payment:${PAYMENT_ID}:approved`,
      type: 'payment.succeeded',
      nativeType: 'payment.approved',
      paymentRef: PAYMENT_ID,
      merchantRef: 'order-42',
      amount: 1999,
      currency: 'BRL',
      status: 'approved',
      occurredAt: new Date('2026-03-02T15:04:00.000Z'),
      payload: payment,
    });
    expect(notification.skip).toBeUndefined();
    expect(notification.occurredAtSigned).toBeUndefined();
    expect(JSON.parse(notification.storedBody as string)).toEqual(payment);
    expect(api.requests).toEqual([
      { url: `/v1/payments/${PAYMENT_ID}`, authorization: `Bearer ${TOKEN}` },
    ]);
  });

  it('normalizes the stored body back to the same event, without asking the API', async () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID, orderId: 'order-43' }));
    const live = await take(signed(mercadoPagoFixtures.paymentCreated({ paymentId: PAYMENT_ID })));
    api.requests.length = 0;
    const { storedBody, ...stored } = live;
    expect(replay(storedBody as string)).toEqual(stored);
    expect(api.requests).toEqual([]);
  });

  it('gives payment.created and payment.updated about the same approved payment one key', async () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID, status: 'approved' }));
    const created = await take(
      signed(mercadoPagoFixtures.paymentCreated({ paymentId: PAYMENT_ID })),
    );
    const updated = await take(
      signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID })),
    );
    expect(updated.eventId).toBe(created.eventId);
    expect(updated.type).toBe('payment.succeeded');
  });

  it('gives each status change and each partial refund a key of its own', async () => {
    const at = (minute: number) => new Date(Date.UTC(2026, 2, 2, 15, minute));
    const notify = () =>
      take(signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID })));
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID, status: 'pending', amount: 5000 }));
    const pending = await notify();
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID, status: 'approved', amount: 5000 }));
    const approved = await notify();
    const firstRefund = { id: 1009988771, amount: 1250, createdAt: at(10) };
    put(
      mercadoPagoFixtures.payment({
        paymentId: PAYMENT_ID,
        amount: 5000,
        refunds: [firstRefund],
      }),
    );
    const refunded = await notify();
    const retried = await notify();
    put(
      mercadoPagoFixtures.payment({
        paymentId: PAYMENT_ID,
        amount: 5000,
        refunds: [firstRefund, { id: 1009988772, amount: 1250, createdAt: at(20) }],
      }),
    );
    const refundedAgain = await notify();

    expect(pending).toMatchObject({ type: 'mercado-pago:payment.pending', status: 'pending' });
    expect(approved).toMatchObject({ type: 'payment.succeeded', amount: 5000 });
    expect(refunded).toMatchObject({
      type: 'refund.succeeded',
      nativeType: 'refund.approved',
      status: 'approved',
      amount: 1250,
      occurredAt: at(10),
    });
    expect(refunded.eventId).toMatch(new RegExp(`^payment:${PAYMENT_ID}:approved:[0-9a-f]{16}$`));
    expect(retried.eventId).toBe(refunded.eventId);
    expect(refundedAgain).toMatchObject({ type: 'refund.succeeded', amount: 1250 });
    const keys = [pending, approved, refunded, refundedAgain].map((n) => n.eventId);
    expect(new Set(keys).size).toBe(4);
  });

  it.each([
    ['approved', 'payment.succeeded'],
    ['authorized', 'payment.authorized'],
    ['rejected', 'payment.failed'],
    ['cancelled', 'payment.canceled'],
    ['refunded', 'refund.succeeded'],
    ['charged_back', 'dispute.opened'],
    ['in_mediation', 'dispute.opened'],
    ['pending', 'mercado-pago:payment.pending'],
    ['in_process', 'mercado-pago:payment.in_process'],
  ])('types a %s payment as %s', async (status, type) => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID, status, amount: 1999 }));
    const notification = await take(
      signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID })),
    );
    expect(notification).toMatchObject({
      type,
      status,
      eventId: `payment:${PAYMENT_ID}:${status}`,
    });
  });

  it('keeps a charged-back payment a dispute even after a partial refund', async () => {
    put(
      mercadoPagoFixtures.payment({
        paymentId: PAYMENT_ID,
        status: 'charged_back',
        amount: 5000,
        refunds: [{ amount: 1000 }],
      }),
    );
    const notification = await take(
      signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID })),
    );
    expect(notification).toMatchObject({ type: 'dispute.opened', amount: 5000 });
  });

  it('puts a zero-decimal currency in minor units by its exponent (CLP)', async () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID, amount: 15990, currency: 'CLP' }));
    const notification = await take(
      signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID })),
    );
    expect(notification).toMatchObject({ amount: 15990, currency: 'CLP' });
  });

  it('answers a payment the API does not know with the success answer and stores nothing', async () => {
    const event = mercadoPagoFixtures.paymentUpdated({ paymentId: '1319480000' });
    const notification = await take(signed(event));
    expect(notification).toMatchObject({
      eventId: String(event.id),
      type: 'mercado-pago:payment.updated',
      paymentRef: '1319480000',
    });
    expect(notification.skip).toMatch(/does not know payment 1319480000 for this Access Token/);
  });

  it.each([
    ['503', { status: 503, body: { message: 'service unavailable', status: 503 } }],
    ['429', { status: 429, body: { message: 'too many requests', status: 429 } }],
    ['500', { status: 500, body: { message: 'internal_error', status: 500 } }],
  ])('refuses the call as unconfirmed while the API answers %s', async (_label, failure) => {
    api.failure = failure;
    const request = signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID }));
    await expect(endpoint().provider.verify(request)).rejects.toMatchObject({
      name: 'WebhookVerificationError',
      reason: 'unconfirmed',
      message: expect.stringMatching(
        /^Could not confirm the Mercado Pago payment notification for 1319485746 .* Mercado Pago calls again$/,
      ),
    });
  });

  it('refuses the call as unconfirmed when the token is refused, never quoting it', async () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID }));
    const other = 'APP_USR-0000000000000000-030215-00000000000000000000000000000000-1197520450';
    const request = signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID }));
    const { provider } = endpoint({ api: { accessToken: other, apiUrl: api.url } });
    const error = await Promise.resolve(provider.verify(request)).then(
      () => undefined,
      (e: unknown) => e as Error & { reason?: string },
    );
    expect(error).toMatchObject({
      reason: 'unconfirmed',
      message: expect.stringMatching(/401|unauthorized/i),
    });
    expect(error?.message).not.toContain(other);
  });

  it('refuses the call as unconfirmed when the API does not answer within timeoutMs', async () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID }));
    api.delayMs = 500;
    const request = signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID }));
    const { provider } = endpoint({ api: { accessToken: TOKEN, apiUrl: api.url, timeoutMs: 100 } });
    await expect(provider.verify(request)).rejects.toMatchObject({ reason: 'unconfirmed' });
  });

  it('checks the signature before asking the API', () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID }));
    const request = signed(mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID }), 'other');
    expect(rejection(() => endpoint().provider.verify(request))).toMatchObject({
      reason: 'bad_signature',
    });
    expect(api.requests).toEqual([]);
  });

  it('refuses a payment notification without a payment id in data.id, without asking', async () => {
    const { data: _data, ...noData } = mercadoPagoFixtures.paymentUpdated();
    const events: { data?: { id?: unknown } }[] = [
      noData as { data?: { id?: unknown } },
      { ...mercadoPagoFixtures.paymentUpdated(), data: { id: '../v1/users/me' } },
    ];
    for (const event of events) {
      await expect(endpoint().provider.verify(signed(event))).rejects.toMatchObject({
        name: 'WebhookPayloadError',
        message: expect.stringMatching(/names its payment in data.id/),
      });
    }
    expect(api.requests).toEqual([]);
  });

  it('keeps Orders API notifications keyed by their id, without asking at the door', async () => {
    const event = mercadoPagoFixtures.orderProcessed({ orderId: 'order-44' });
    const request = signed(event);
    const { provider } = endpoint({ currency: 'BRL' });
    expect(provider.verify(request)).toBeUndefined();
    expect(notificationsOf(provider.normalize(request))[0]).toMatchObject({
      eventId: String(event.id),
      type: 'payment.succeeded',
      merchantRef: 'order-44',
    });
    expect(api.requests).toEqual([]);
  });

  it('keeps payment notifications native without api, as before', () => {
    put(mercadoPagoFixtures.payment({ paymentId: PAYMENT_ID }));
    const event = mercadoPagoFixtures.paymentUpdated({ paymentId: PAYMENT_ID });
    const request = signed(event);
    const { provider } = mercadoPagoEndpoint({
      name: 'mercado-pago',
      secret: SECRET,
      verifyWithProvider: false,
    });
    expect(provider.verify(request)).toBeUndefined();
    expect(notificationsOf(provider.normalize(request))[0]).toMatchObject({
      eventId: String(event.id),
      type: 'mercado-pago:payment.updated',
    });
    expect(api.requests).toEqual([]);
  });

  it('refuses at startup an api.timeoutMs Mercado Pago would not wait for', () => {
    expect(() =>
      endpoint({ api: { accessToken: TOKEN, apiUrl: api.url, timeoutMs: 18_001 } }),
    ).toThrow(/api\.timeoutMs 18001 is longer .* waits 22 s .* at most 18000/);
    expect(() =>
      endpoint({ api: { accessToken: TOKEN, apiUrl: api.url, timeoutMs: 18_000 } }),
    ).not.toThrow();
  });
});

describe('MercadoPagoStatusClient.fetchPayment', () => {
  it('returns the payment the API answers, as the official SDK reads it from the same fake', async () => {
    const payment = mercadoPagoFixtures.payment({
      paymentId: PAYMENT_ID,
      refunds: [{ amount: 500 }],
    });
    put(payment);
    const ours = await new MercadoPagoStatusClient({
      accessToken: TOKEN,
      apiUrl: api.url,
    }).fetchPayment(PAYMENT_ID);
    // NOTE: the SDK reads its base URL from AppConfig on every request.
    const config = AppConfig as unknown as { BASE_URL: string };
    const base = config.BASE_URL;
    config.BASE_URL = api.url;
    try {
      const sdk = await new Payment(new MercadoPagoConfig({ accessToken: TOKEN })).get({
        id: PAYMENT_ID,
      });
      expect(ours).toEqual(payment);
      expect(sdk).toMatchObject({
        id: ours.id,
        status: ours.status,
        transaction_amount: ours.transaction_amount,
        transaction_amount_refunded: ours.transaction_amount_refunded,
        refunds: ours.refunds,
      });
    } finally {
      config.BASE_URL = base;
    }
    // NOTE: a client asks again when an answer is slow (a busy machine); each ask is the same.
    expect(new Set(api.requests.map((r) => r.url))).toEqual(
      new Set([`/v1/payments/${PAYMENT_ID}`]),
    );
  });

  it('reports a partially refunded payment by its latest refund, so a payment.succeeded event stays confirmed', async () => {
    put(
      mercadoPagoFixtures.payment({
        paymentId: PAYMENT_ID,
        amount: 5000,
        refunds: [{ amount: 1250 }],
      }),
    );
    const status = await new MercadoPagoStatusClient({
      accessToken: TOKEN,
      apiUrl: api.url,
    }).fetchStatus({
      paymentRef: PAYMENT_ID,
      merchantRef: null,
      type: 'payment.succeeded',
      nativeType: 'payment.approved',
      payload: {},
    });
    expect(status).toMatchObject({
      status: 'approved',
      type: 'refund.succeeded',
      amount: 1250,
      currency: 'BRL',
    });
  });
});
