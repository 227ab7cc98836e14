import { execFile } from 'node:child_process';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { TestCertificates } from '../../spec-support/paypal-certificates';
import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { InboundWebhook } from '../webhook-provider.interface';
import { mollieFixtures } from './mollie.fixtures';
import { mollieEndpoint } from './mollie.provider';
import { MollieStatusClient } from './mollie-status.client';

const API_KEY = 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM';

/** A local stand-in for the Mollie API: `GET /v2/payments/{id}` with a Bearer key. */
class FakeMollieApi {
  readonly payments = new Map<string, Record<string, unknown>>();
  readonly requests: { url: string; authorization?: string }[] = [];
  /** An answer for every request instead of the payment: status and body. */
  failure?: { status: number; body: unknown };
  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeMollieApi> {
    const server = createServer();
    const api = new FakeMollieApi(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) =>
      api.answer(request, response),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  /**
   * The same API over TLS, for the official SDK, which sends every request through an HTTPS
   * agent; returns its URL and the root its certificate is issued by.
   */
  async startTls(): Promise<{ url: string; ca: string }> {
    const certificates = new TestCertificates();
    try {
      const root = certificates.selfSigned({ subject: '/CN=Fake Mollie Root', role: 'ca' });
      const tls = certificates.issue(root, { subject: '/CN=127.0.0.1', role: 'server' });
      const server = createTlsServer({ key: tls.keyPem, cert: tls.certPem }, (request, response) =>
        this.answer(request, response),
      );
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      this.tlsServer = server;
      return {
        url: `https://127.0.0.1:${(server.address() as AddressInfo).port}/v2/`,
        ca: root.certPem,
      };
    } finally {
      certificates.remove();
    }
  }

  private tlsServer?: Server;

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v2`;
  }

  async close(): Promise<void> {
    for (const server of [this.server, this.tlsServer]) {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    }
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    this.requests.push({ url: request.url ?? '', authorization: request.headers.authorization });
    const send = (status: number, body: unknown) => {
      response.writeHead(status, { 'content-type': 'application/hal+json' });
      response.end(JSON.stringify(body));
    };
    if (request.headers.authorization !== `Bearer ${API_KEY}`) {
      return send(401, {
        status: 401,
        title: 'Unauthorized Request',
        detail: 'Missing authentication',
      });
    }
    if (this.failure) return send(this.failure.status, this.failure.body);
    const id = new URL(request.url ?? '/', 'http://fake').pathname.match(
      /^\/v2\/payments\/([^/]+)$/,
    )?.[1];
    const payment = id === undefined ? undefined : this.payments.get(id);
    if (payment === undefined) {
      return send(404, {
        status: 404,
        title: 'Not Found',
        detail: 'No payment exists with token x.',
      });
    }
    send(200, payment);
  }
}

/**
 * The payment as the official SDK reads it, in a Node process of its own: the SDK always trusts
 * its own bundle of public roots (it overrides `caCertificates`), so that process, and it alone,
 * takes the fake's test certificate.
 */
async function readWithSdk(apiEndpoint: string, id: string): Promise<Record<string, unknown>> {
  const script =
    "const { createMollieClient } = require('@mollie/api-client');" +
    'createMollieClient({ apiKey: process.env.KEY, apiEndpoint: process.env.URL })' +
    '.payments.get(process.env.ID).then((p) => process.stdout.write(JSON.stringify(p)),' +
    ' (e) => { process.stderr.write(String(e)); process.exit(1); });';
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], {
    cwd: process.cwd(),
    env: {
      ...process.env,
      KEY: API_KEY,
      URL: apiEndpoint,
      ID: id,
      NODE_TLS_REJECT_UNAUTHORIZED: '0',
    },
  });
  return JSON.parse(stdout) as Record<string, unknown>;
}

let api: FakeMollieApi;

beforeAll(async () => {
  api = await FakeMollieApi.start();
});

afterEach(() => {
  api.payments.clear();
  api.requests.length = 0;
  api.failure = undefined;
});

afterAll(() => api.close());

function put(payment: Record<string, unknown>): string {
  api.payments.set(payment.id as string, payment);
  return payment.id as string;
}

function client(timeoutMs?: number): MollieStatusClient {
  return new MollieStatusClient({ apiKey: API_KEY, apiUrl: api.url, timeoutMs });
}

function query(paymentRef: string | null): PaymentStatusQuery {
  return {
    paymentRef,
    merchantRef: null,
    type: 'payment.succeeded',
    nativeType: 'payment.paid',
    payload: {},
  };
}

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  return error as ProviderStatusError;
}

describe('MollieStatusClient', () => {
  it.each([
    ['paid', 'payment.succeeded'],
    ['authorized', 'payment.authorized'],
    ['failed', 'payment.failed'],
    ['canceled', 'payment.canceled'],
    ['expired', 'payment.canceled'],
    ['open', undefined],
    ['pending', undefined],
  ] as const)('maps a %s payment to %s', async (status, type) => {
    const id = put(mollieFixtures.payment({ status, amount: 1000 }));
    await expect(client().fetchStatus(query(id))).resolves.toMatchObject({
      paymentRef: id,
      status,
      type,
      amount: 1000,
      currency: 'EUR',
    });
  });

  it('asks with the key as a Bearer token, refunds, chargebacks and captures embedded', async () => {
    const id = put(mollieFixtures.payment());
    await client().fetchStatus(query(id));
    expect(api.requests).toEqual([
      {
        url: `/v2/payments/${id}?embed=refunds,chargebacks,captures`,
        authorization: `Bearer ${API_KEY}`,
      },
    ]);
  });

  it('reports the latest refund of a paid payment, with its own amount', async () => {
    const id = put(
      mollieFixtures.payment({ amount: 5000, refunds: [{ status: 'refunded', amount: 1250 }] }),
    );
    await expect(client().fetchStatus(query(id))).resolves.toMatchObject({
      type: 'refund.succeeded',
      status: 'refunded',
      amount: 1250,
    });
  });

  it('converts a zero-decimal currency by its exponent', async () => {
    const id = put(mollieFixtures.payment({ currency: 'JPY', amount: 1500 }));
    await expect(client().fetchStatus(query(id))).resolves.toMatchObject({
      amount: 1500,
      currency: 'JPY',
    });
  });

  it('reads the same payment from the fake as the official SDK does', async () => {
    const id = put(mollieFixtures.payment({ status: 'paid', amount: 1999, orderId: 'order-sdk' }));
    const tls = await api.startTls();
    const payment = await readWithSdk(tls.url, id);
    const ours = await client().fetchStatus(query(id));
    expect(payment.status).toBe(ours.status);
    expect(payment.id).toBe(ours.paymentRef);
    expect(payment.amount).toEqual({ currency: 'EUR', value: '19.99' });
    expect(ours).toMatchObject({ amount: 1999, currency: 'EUR' });
    expect(api.requests.every((r) => r.authorization === `Bearer ${API_KEY}`)).toBe(true);
  });

  it.each([
    [null, 'missing_reference'],
    ['pi_123', 'missing_reference'],
    ['tr_../refunds', 'missing_reference'],
  ])('refuses the reference %s without asking', async (ref, reason) => {
    expect((await failure(client().fetchStatus(query(ref)))).failure).toBe(reason);
    expect(api.requests).toHaveLength(0);
  });

  it.each([
    [404, 'not_found'],
    [401, 'unauthorized'],
    [429, 'unavailable'],
    [503, 'unavailable'],
  ])('turns HTTP %s into %s, without the key in the message', async (status, reason) => {
    api.failure = { status, body: { status, title: 'Error', detail: `no ${API_KEY}` } };
    const error = await failure(client().fetchStatus(query('tr_WDqYK6vllg')));
    expect(error.failure).toBe(reason);
    expect(error.message).not.toContain(API_KEY);
  });

  it('refuses an answer about another payment', async () => {
    api.payments.set('tr_WDqYK6vllg', mollieFixtures.payment({ paymentId: 'tr_other12345' }));
    expect((await failure(client().fetchStatus(query('tr_WDqYK6vllg')))).failure).toBe(
      'invalid_response',
    );
  });

  it('refuses a key that is no Mollie key, without quoting it', () => {
    expect(() => new MollieStatusClient({ apiKey: 'sk_live_abc' })).toThrow(
      WebhookConfigurationError,
    );
    expect(() => new MollieStatusClient({ apiKey: 'sk_live_abc' })).not.toThrow(/sk_live_abc/);
  });
});

describe('mollieEndpoint with api (classic webhooks)', () => {
  const endpoint = () =>
    mollieEndpoint({ name: 'mollie', api: { apiKey: API_KEY, apiUrl: api.url } });

  function classic(id: string): InboundWebhook {
    return {
      rawBody: Buffer.from(mollieFixtures.classicBody(id)),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      receivedAt: new Date(),
    };
  }

  async function take(request: InboundWebhook) {
    const { provider } = endpoint();
    await provider.verify(request);
    return notificationsOf(provider.normalize(request))[0];
  }

  it('confirms id=tr_… with the API and stores the payment it answered, keyed by its state', async () => {
    const payment = mollieFixtures.payment({ status: 'paid', orderId: 'order-42', amount: 1099 });
    const id = put(payment);
    const notification = await take(classic(id));
    expect(notification).toMatchObject({
      eventId: `${id}:paid`,
      type: 'payment.succeeded',
      nativeType: 'payment.paid',
      paymentRef: id,
      merchantRef: 'order-42',
      amount: 1099,
      currency: 'EUR',
      status: 'paid',
    });
    expect(notification.occurredAtSigned).toBeUndefined();
    expect(JSON.parse(notification.storedBody as string)).toEqual(payment);
    // NOTE: stored events are normalized again from the stored body alone.
    const again = endpoint().provider.normalize({
      rawBody: Buffer.from(notification.storedBody as string),
      headers: {},
      receivedAt: new Date(),
    });
    expect(notificationsOf(again)[0]).toMatchObject({
      eventId: notification.eventId,
      type: 'payment.succeeded',
    });
  });

  it('gives a repeated call the same key while the payment is unchanged, and a new one after a refund', async () => {
    const id = put(mollieFixtures.payment({ paymentId: 'tr_WDqYK6vllg' }));
    const first = await take(classic(id));
    const retry = await take(classic(id));
    expect(retry.eventId).toBe(first.eventId);
    put(
      mollieFixtures.payment({
        paymentId: id,
        refunds: [{ id: 're_4qqhO89gsT', status: 'refunded', amount: 500 }],
      }),
    );
    const refunded = await take(classic(id));
    expect(refunded.eventId).not.toBe(first.eventId);
    expect(refunded).toMatchObject({ type: 'refund.succeeded', amount: 500 });
  });

  it('answers an id the API does not know with the success answer and stores nothing', async () => {
    const notification = await take(classic('tr_unknown1234'));
    expect(notification.skip).toMatch(/does not know payment tr_unknown1234/);
  });

  it('skips classic calls about objects other than payments without asking', async () => {
    const notification = await take(classic('ord_kEn1PlbGa'));
    expect(notification.skip).toMatch(/ord_… objects; only payments/);
    expect(api.requests).toHaveLength(0);
  });

  it('refuses the call while the API cannot answer, so Mollie calls again', async () => {
    api.failure = { status: 503, body: { status: 503, title: 'Service Unavailable' } };
    await expect(endpoint().provider.verify(classic('tr_WDqYK6vllg'))).rejects.toMatchObject({
      name: 'WebhookVerificationError',
      reason: 'unconfirmed',
      message: expect.stringMatching(/Could not confirm .* Mollie calls again/),
    });
  });

  it.each([
    ['no id', 'foo=bar'],
    ['an id that is no Mollie id', 'id=%2E%2E%2Fpayments'],
    ['a JSON body without a signature', JSON.stringify(mollieFixtures.payment())],
  ])('refuses a classic body with %s', async (_label, body) => {
    const request = { rawBody: Buffer.from(body), headers: {}, receivedAt: new Date() };
    await expect(endpoint().provider.verify(request)).rejects.toMatchObject({
      name: 'WebhookPayloadError',
    });
    expect(api.requests).toHaveLength(0);
  });
});
