import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';
import Razorpay from 'razorpay';
import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { razorpayFixtures } from './razorpay.fixtures';
import { RazorpayStatusClient, RazorpayStatusClientOptions } from './razorpay-status.client';

const KEY_ID = 'rzp_test_1DP5mmOlF5G5ag';
const KEY_SECRET = 'thisisnotarealsecret0K3y';
const PAY = 'pay_PmqV1tXbFuLk8c';
const REFUND = 'rfnd_PmrA5bLw3cTnQe';

interface Answer {
  readonly status: number;
  readonly body: string;
  readonly delayMs?: number;
  readonly headers?: Record<string, string>;
}

/** A Razorpay API on listen(0): entities by path, HTTP Basic checked, every request recorded. */
class FakeRazorpayApi {
  readonly requests: { method: string; url: string; authorization?: string }[] = [];
  private readonly entities = new Map<string, Record<string, unknown>>();
  private next: Answer | undefined;

  private readonly server: Server = createServer((request, response) =>
    this.answer(request, response),
  );

  static async start(): Promise<FakeRazorpayApi> {
    const fake = new FakeRazorpayApi();
    await new Promise<void>((resolve) => fake.server.listen(0, '127.0.0.1', resolve));
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  set(path: string, entity: Record<string, unknown>): void {
    this.entities.set(path, entity);
  }

  failNext(answer: Answer): void {
    this.next = answer;
  }

  reset(): void {
    this.requests.length = 0;
    this.entities.clear();
    this.next = undefined;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private answer(request: IncomingMessage, response: ServerResponse): void {
    const url = request.url ?? '';
    this.requests.push({
      method: request.method ?? '',
      url,
      authorization: request.headers.authorization,
    });
    const answer = this.next ?? this.lookup(url, request.headers.authorization);
    this.next = undefined;
    setTimeout(() => {
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(answer.body);
    }, answer.delayMs ?? 0);
  }

  private lookup(url: string, authorization: string | undefined): Answer {
    const basic = `Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}`;
    if (authorization !== basic) {
      return razorpayError(401, 'Authentication failed');
    }
    const entity = this.entities.get(url.split('?')[0]);
    return entity === undefined
      ? razorpayError(400, 'The id provided does not exist')
      : { status: 200, body: JSON.stringify(entity) };
  }
}

function razorpayError(status: number, description: string): Answer {
  return {
    status,
    body: JSON.stringify({
      error: {
        code: 'BAD_REQUEST_ERROR',
        description,
        source: 'business',
        step: 'payment_initiation',
        reason: 'input_validation_failed',
        metadata: {},
      },
    }),
  };
}

let fake: FakeRazorpayApi;

beforeAll(async () => {
  fake = await FakeRazorpayApi.start();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function client(options: Partial<RazorpayStatusClientOptions> = {}): RazorpayStatusClient {
  return new RazorpayStatusClient({
    keyId: KEY_ID,
    keySecret: KEY_SECRET,
    apiUrl: fake.url,
    ...options,
  });
}

function paymentEntity(status: string, extra: Record<string, unknown> = {}) {
  const event = razorpayFixtures.paymentCaptured({ paymentId: PAY, amount: 1999 });
  return { ...event.payload.payment.entity, status, ...extra };
}

function query(overrides: Partial<PaymentStatusQuery> = {}): PaymentStatusQuery {
  const event = razorpayFixtures.paymentCaptured({ paymentId: PAY });
  return {
    paymentRef: PAY,
    merchantRef: 'order-42',
    type: 'payment.succeeded',
    nativeType: 'payment.captured',
    payload: event,
    ...overrides,
  };
}

function refundQuery(): PaymentStatusQuery {
  const event = razorpayFixtures.refundProcessed({ paymentId: PAY, refundId: REFUND });
  return query({ type: 'refund.succeeded', nativeType: 'refund.processed', payload: event });
}

async function failure(promise: Promise<unknown>): Promise<ProviderStatusError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(ProviderStatusError);
  return error as ProviderStatusError;
}

function expectNoSecret(message: string): void {
  expect(message).not.toContain(KEY_SECRET);
  expect(message).not.toContain(Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64'));
}

describe('RazorpayStatusClient', () => {
  it('asks GET /v1/payments/{id} with the key pair as HTTP Basic credentials', async () => {
    fake.set(`/v1/payments/${PAY}`, paymentEntity('captured'));

    await expect(client().fetchStatus(query())).resolves.toEqual({
      paymentRef: PAY,
      status: 'captured',
      type: 'payment.succeeded',
      amount: 1999,
      currency: 'INR',
      checkedAt: expect.any(Date),
    });
    expect(fake.requests).toEqual([
      {
        method: 'GET',
        url: `/v1/payments/${PAY}`,
        authorization: `Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}`,
      },
    ]);
  });

  it('reads the same payment the official SDK reads from the same answer', async () => {
    fake.set(`/v1/payments/${PAY}`, paymentEntity('authorized'));
    const sdk = new Razorpay({ key_id: KEY_ID, key_secret: KEY_SECRET });
    // NOTE: the SDK takes no base URL option; its axios instance does.
    (sdk.api as unknown as { rq: { defaults: { baseURL: string } } }).rq.defaults.baseURL =
      fake.url;

    const fromSdk = await sdk.payments.fetch(PAY);
    const ours = await client().fetchStatus(query());

    const basic = `Basic ${Buffer.from(`${KEY_ID}:${KEY_SECRET}`).toString('base64')}`;
    expect(fake.requests.map((r) => [r.url, r.authorization])).toEqual([
      [`/v1/payments/${PAY}`, basic],
      [`/v1/payments/${PAY}`, basic],
    ]);
    expect(ours).toMatchObject({
      paymentRef: fromSdk.id,
      status: fromSdk.status,
      amount: fromSdk.amount,
      currency: fromSdk.currency,
      type: 'payment.authorized',
    });
  });

  it.each([
    ['created', undefined],
    ['authorized', 'payment.authorized'],
    ['captured', 'payment.succeeded'],
    ['refunded', 'refund.succeeded'],
    ['failed', 'payment.failed'],
  ])('maps payment status %s to %s', async (status, type) => {
    fake.set(`/v1/payments/${PAY}`, paymentEntity(status));

    await expect(client().fetchStatus(query())).resolves.toMatchObject({ status, type });
  });

  it.each([
    ['processed', 'refund.succeeded'],
    ['failed', 'refund.failed'],
    ['pending', undefined],
  ])('asks GET /v1/refunds/{id} for a refund event and maps %s to %s', async (status, type) => {
    fake.set(`/v1/refunds/${REFUND}`, {
      id: REFUND,
      entity: 'refund',
      amount: 500,
      currency: 'INR',
      payment_id: PAY,
      status,
    });

    await expect(client().fetchStatus(refundQuery())).resolves.toMatchObject({
      paymentRef: REFUND,
      status,
      type,
      amount: 500,
    });
    expect(fake.requests.map((r) => r.url)).toEqual([`/v1/refunds/${REFUND}`]);
  });

  describe('failures', () => {
    it.each([
      ['no payment reference', null],
      ['an order id', 'order_PmqUz4jYw2nQ0a'],
      ['a reference that would change the path', 'pay_1/../../v1/orders'],
    ])('fails with missing_reference, asking nothing, for %s', async (_label, paymentRef) => {
      const error = await failure(client().fetchStatus(query({ paymentRef })));

      expect(error.failure).toBe('missing_reference');
      expect(error.retryable).toBe(false);
      expect(fake.requests).toHaveLength(0);
    });

    it('fails with unauthorized on a wrong key pair, never quoting the secret', async () => {
      fake.set(`/v1/payments/${PAY}`, paymentEntity('captured'));

      const error = await failure(client({ keySecret: 'wrong-secret-value' }).fetchStatus(query()));

      expect(error).toMatchObject({ failure: 'unauthorized', httpStatus: 401 });
      expect(error.message).toContain('Authentication failed');
      expect(error.message).not.toContain('wrong-secret-value');
    });

    it.each<[string, Answer, string, number | undefined]>([
      [
        'an unknown id (Razorpay answers 400)',
        razorpayError(400, 'The id provided does not exist'),
        'not_found',
        400,
      ],
      ['another 400', razorpayError(400, 'amount must be an integer'), 'invalid_response', 400],
      ['a 404', { status: 404, body: '{}' }, 'not_found', 404],
      ['a 429', { status: 429, body: '{}' }, 'unavailable', 429],
      ['a 502', { status: 502, body: 'bad gateway' }, 'unavailable', 502],
      ['a body that is not JSON', { status: 200, body: '<html>' }, 'invalid_response', 200],
      [
        'another entity',
        { status: 200, body: JSON.stringify({ id: PAY, entity: 'order', status: 'paid' }) },
        'invalid_response',
        200,
      ],
      [
        'another payment',
        {
          status: 200,
          body: JSON.stringify({ id: 'pay_Other00000001', entity: 'payment', status: 'captured' }),
        },
        'invalid_response',
        200,
      ],
      [
        'a redirect',
        { status: 302, body: '', headers: { location: 'https://elsewhere.example/' } },
        'invalid_response',
        302,
      ],
    ])('maps %s', async (_label, answer, expected, httpStatus) => {
      fake.failNext(answer);

      const error = await failure(client().fetchStatus(query()));

      expect(error).toMatchObject({ failure: expected, httpStatus });
      expect(error.message).toContain(PAY);
      expectNoSecret(error.message);
      expect(fake.requests).toHaveLength(1);
    });

    it('names Razorpay’s error code and description', async () => {
      fake.failNext(razorpayError(400, 'amount must be an integer'));

      const error = await failure(client().fetchStatus(query()));

      expect(error.message).toContain('code BAD_REQUEST_ERROR: amount must be an integer');
    });

    it('fails with timeout after timeoutMs', async () => {
      fake.failNext({ status: 200, body: '{}', delayMs: 1000 });

      const error = await failure(client({ timeoutMs: 100 }).fetchStatus(query()));

      expect(error.failure).toBe('timeout');
    });
  });

  describe('options', () => {
    it('defaults apiUrl to https://api.razorpay.com', () => {
      expect(
        () => new RazorpayStatusClient({ keyId: KEY_ID, keySecret: KEY_SECRET }),
      ).not.toThrow();
    });

    it.each([
      ['a missing keyId', { keyId: undefined }, /keyId is required/],
      ['a keyId that is no Key Id', { keyId: 'ILgsfZCZoFIKMb' }, /keyId must be an API Key Id/],
      ['a missing keySecret', { keySecret: '' }, /keySecret is required/],
      ['a padded keySecret', { keySecret: ` ${KEY_SECRET}` }, /keySecret has spaces/],
      [
        'an apiUrl with a query',
        { apiUrl: 'https://api.razorpay.com?x=1' },
        /apiUrl must not have a query/,
      ],
    ])('refuses %s at construction, without quoting the secret', (_label, options, problem) => {
      const create = () =>
        new RazorpayStatusClient({
          keyId: KEY_ID,
          keySecret: KEY_SECRET,
          ...options,
        } as RazorpayStatusClientOptions);

      expect(create).toThrow(WebhookConfigurationError);
      expect(create).toThrow(problem);
      expect(create).not.toThrow(KEY_SECRET);
    });
  });
});
