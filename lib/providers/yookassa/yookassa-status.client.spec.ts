import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { FakeFailure, FakeProviderApi } from '../../spec-support/fake-provider-api';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { YooKassaStatusClient, YooKassaStatusClientOptions } from './yookassa-status.client';

const PAYMENT = '2d8b4f5a-000f-5000-9000-1a2b3c4d5e6f';
const REFUND = '2d8b5210-0015-5000-a000-0f1e2d3c4b5a';

let fake: FakeProviderApi;

beforeAll(async () => {
  fake = await FakeProviderApi.start();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function client(options: Partial<YooKassaStatusClientOptions> = {}): YooKassaStatusClient {
  return new YooKassaStatusClient({ ...fake.clientOptions('yookassa'), ...options });
}

function query(overrides: Partial<PaymentStatusQuery> = {}): PaymentStatusQuery {
  return {
    paymentRef: PAYMENT,
    merchantRef: 'order-42',
    type: 'payment.succeeded',
    nativeType: 'payment.succeeded',
    payload: { type: 'notification', event: 'payment.succeeded', object: { id: PAYMENT } },
    ...overrides,
  };
}

function refundQuery(payload: unknown = refundNotification()): PaymentStatusQuery {
  return query({ type: 'refund.succeeded', nativeType: 'refund.succeeded', payload });
}

function refundNotification(id: unknown = REFUND): unknown {
  return {
    type: 'notification',
    event: 'refund.succeeded',
    object: { id, payment_id: PAYMENT, status: 'succeeded' },
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

function basic(shopId: string, secretKey: string): string {
  return `Basic ${Buffer.from(`${shopId}:${secretKey}`).toString('base64')}`;
}

function expectNoSecret(message: string): void {
  const { shopId, secretKey } = fake.credentialsFor('yookassa');
  expect(message).not.toContain(secretKey);
  expect(message).not.toContain(basic(shopId, secretKey).slice('Basic '.length));
  expect(message).not.toContain('Basic');
}

describe('YooKassaStatusClient', () => {
  describe('fetchStatus of a payment', () => {
    it('returns the status, type and the decimal amount in minor units', async () => {
      fake.setPayment('yookassa', PAYMENT, {
        status: 'succeeded',
        paid: true,
        amount: { value: '1234.50', currency: 'RUB' },
      });

      await expect(client().fetchStatus(query())).resolves.toEqual({
        paymentRef: PAYMENT,
        status: 'succeeded',
        type: 'payment.succeeded',
        amount: 123450,
        currency: 'RUB',
        checkedAt: expect.any(Date),
      });
    });

    it('asks GET {apiUrl}/payments/{paymentRef} with Basic shopId:secretKey', async () => {
      fake.setPayment('yookassa', PAYMENT, { status: 'pending' });
      const { shopId, secretKey } = fake.credentialsFor('yookassa');

      await client().fetchStatus(query());

      const requests = fake.requestsTo('yookassa');
      expect(requests).toHaveLength(1);
      expect(requests[0].method).toBe('GET');
      expect(requests[0].url).toBe(`/yookassa/v3/payments/${PAYMENT}`);
      expect(requests[0].headers.authorization).toBe(basic(shopId, secretKey));
    });

    it.each([
      ['succeeded', 'payment.succeeded'],
      ['waiting_for_capture', 'payment.authorized'],
      ['canceled', 'payment.canceled'],
      ['pending', undefined],
    ])('maps payment status %s to %s', async (status, type) => {
      fake.setPayment('yookassa', PAYMENT, {
        status,
        amount: { value: '10.00', currency: 'RUB' },
      });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        status,
        type,
        amount: 1000,
      });
    });

    it.each([
      ['0.10', 'RUB', 10],
      // NOTE: 0.29 * 100 is 28.999999999999996 in floating point.
      ['0.29', 'RUB', 29],
      ['100', 'RUB', 10000],
      ['19.99', 'usd', 1999],
      ['1.500000', 'RUB', 150],
      ['90071992547409.91', 'RUB', 9007199254740991],
    ])('converts %s %s exactly', async (value, currency, minor) => {
      fake.setPayment('yookassa', PAYMENT, { status: 'succeeded', amount: { value, currency } });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({ amount: minor });
    });

    it('leaves amount and currency out when the payment has none', async () => {
      fake.setPayment('yookassa', PAYMENT, { status: 'pending' });

      const status = await client().fetchStatus(query());

      expect(status).not.toHaveProperty('amount');
      expect(status).not.toHaveProperty('currency');
    });
  });

  describe('fetchStatus of a refund', () => {
    it('asks GET {apiUrl}/refunds/{object.id} for refund events', async () => {
      fake.setRefund('yookassa', REFUND, {
        status: 'succeeded',
        payment_id: PAYMENT,
        amount: { value: '5.00', currency: 'RUB' },
      });

      await expect(client().fetchStatus(refundQuery())).resolves.toMatchObject({
        paymentRef: REFUND,
        status: 'succeeded',
        type: 'refund.succeeded',
        amount: 500,
        currency: 'RUB',
      });
      expect(fake.requestsTo('yookassa')[0].url).toBe(`/yookassa/v3/refunds/${REFUND}`);
    });

    it.each([
      ['succeeded', 'refund.succeeded'],
      ['canceled', 'refund.failed'],
      ['pending', undefined],
    ])('maps refund status %s to %s', async (status, type) => {
      fake.setRefund('yookassa', REFUND, { status });

      await expect(client().fetchStatus(refundQuery())).resolves.toMatchObject({ status, type });
    });

    it.each([
      ['no payload object', { event: 'refund.succeeded' }],
      ['no object.id', { event: 'refund.succeeded', object: { payment_id: PAYMENT } }],
      ['a numeric object.id', refundNotification(42)],
      ['a payload that is not an object', 'refund'],
    ])('fails with missing_reference for %s', async (_name, payload) => {
      const error = await failure(client().fetchStatus(refundQuery(payload)));

      expect(error.failure).toBe('missing_reference');
      expect(error.message).toContain('refund');
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('failures', () => {
    it.each([
      ['null', null],
      ['empty', ''],
    ])('fails with missing_reference for a %s paymentRef, asking nothing', async (_n, ref) => {
      const error = await failure(client().fetchStatus(query({ paymentRef: ref })));

      expect(error.failure).toBe('missing_reference');
      expect(error.message).toContain('YooKassa');
      expect(fake.requests).toHaveLength(0);
    });

    it.each(['..', '.', 'a/b', 'a?b', '%2e%2e'])(
      'refuses the reference %p, which would change the request path',
      async (ref) => {
        const error = await failure(client().fetchStatus(query({ paymentRef: ref })));

        expect(error.failure).toBe('missing_reference');
        expect(fake.requests).toHaveLength(0);
      },
    );

    it('fails with unauthorized on a wrong secret key, never quoting it', async () => {
      fake.setPayment('yookassa', PAYMENT, { status: 'succeeded' });
      const wrong = 'test_wrong_secret_key_1234567890';

      const error = await failure(client({ secretKey: wrong }).fetchStatus(query()));

      expect(error.failure).toBe('unauthorized');
      expect(error.httpStatus).toBe(401);
      expect(error.message).toContain('invalid_credentials');
      expect(error.message).toContain(PAYMENT);
      expect(error.message).not.toContain(wrong);
      expect(error.message).not.toContain(basic('100500', wrong).slice(6));
    });

    it('fails with not_found when YooKassa does not know the payment', async () => {
      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe('not_found');
      expect(error.httpStatus).toBe(404);
      expect(error.message).toContain('HTTP 404');
      expect(error.message).toContain(PAYMENT);
    });

    it.each<[string, FakeFailure, string, number | undefined]>([
      ['403', { status: 403, body: { type: 'error', code: 'forbidden' } }, 'unauthorized', 403],
      ['429', { status: 429, body: { code: 'too_many_requests' } }, 'unavailable', 429],
      ['500', { status: 500, body: { code: 'internal_server_error' } }, 'unavailable', 500],
      [
        '502 with an HTML body',
        { status: 502, body: '<html>bad gateway</html>' },
        'unavailable',
        502,
      ],
      ['a body that is not JSON', { invalidJson: true }, 'invalid_response', 200],
      ['an object without status', { status: 200, body: { id: PAYMENT } }, 'invalid_response', 200],
      [
        'another payment',
        { status: 200, body: { id: REFUND, status: 'succeeded' } },
        'invalid_response',
        200,
      ],
      [
        'an amount with more decimals than the currency has',
        {
          status: 200,
          body: { id: PAYMENT, status: 'succeeded', amount: { value: '1.005', currency: 'RUB' } },
        },
        'invalid_response',
        200,
      ],
      [
        'an amount as a number',
        {
          status: 200,
          body: { id: PAYMENT, status: 'succeeded', amount: { value: 10.5, currency: 'RUB' } },
        },
        'invalid_response',
        200,
      ],
      ['a dropped connection', { dropConnection: true }, 'unavailable', undefined],
    ])('maps %s', async (_name, injected, expected, httpStatus) => {
      fake.failNext('yookassa', injected);

      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe(expected);
      expect(error.httpStatus).toBe(httpStatus);
      expect(error.message).toContain(PAYMENT);
      expectNoSecret(error.message);
    });

    it('fails with timeout after timeoutMs', async () => {
      fake.setPayment('yookassa', PAYMENT, { status: 'succeeded' });
      fake.failNext('yookassa', { delayMs: 2000 });
      const started = Date.now();

      const error = await failure(client({ timeoutMs: 120 }).fetchStatus(query()));

      expect(error.failure).toBe('timeout');
      expect(error.retryable).toBe(true);
      expect(Date.now() - started).toBeLessThan(1500);
      expectNoSecret(error.message);
    });

    it('removes the secret key and the Basic credentials from provider text it quotes', async () => {
      const { shopId, secretKey } = fake.credentialsFor('yookassa');
      const encoded = basic(shopId, secretKey).slice(6);
      fake.failNext('yookassa', {
        status: 401,
        body: { type: 'error', code: `bad ${secretKey} ${encoded}` },
      });

      const error = await failure(client().fetchStatus(query()));

      expect(error.message).toContain('bad [redacted] [redacted]');
      expectNoSecret(error.message);
    });
  });

  describe('options', () => {
    it('defaults apiUrl to https://api.yookassa.ru/v3', () => {
      expect(() => new YooKassaStatusClient({ shopId: '1', secretKey: 'test_x' })).not.toThrow();
    });

    it.each([
      ['shopId', { shopId: '', secretKey: 'test_x' }],
      ['secretKey', { shopId: '1', secretKey: undefined }],
      ['secretKey', { shopId: '1', secretKey: 'test_x\n' }],
    ])('refuses an unusable %s, naming the option only', (option, options) => {
      const create = () => new YooKassaStatusClient(options as YooKassaStatusClientOptions);

      expect(create).toThrow(WebhookConfigurationError);
      expect(create).toThrow(`YooKassaStatusClient: ${option}`);
      expect(create).not.toThrow('test_x');
    });

    it('refuses an apiUrl that is not absolute http(s)', () => {
      expect(() => client({ apiUrl: '/v3' })).toThrow(/apiUrl is not an absolute URL/);
    });
  });
});
