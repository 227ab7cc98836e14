import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { FakeFailure, FakeProviderApi } from '../../spec-support/fake-provider-api';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { StripeStatusClient, StripeStatusClientOptions } from './stripe-status.client';

const PI = 'pi_3MtwBwLkdIwHu7ix28a3tqPa';
const REFUND = 're_3MtwBwLkdIwHu7ix0a1b2c3d';

let fake: FakeProviderApi;

beforeAll(async () => {
  fake = await FakeProviderApi.start();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function client(options: Partial<StripeStatusClientOptions> = {}): StripeStatusClient {
  return new StripeStatusClient({ ...fake.clientOptions('stripe'), ...options });
}

function query(overrides: Partial<PaymentStatusQuery> = {}): PaymentStatusQuery {
  return {
    paymentRef: PI,
    merchantRef: 'order-42',
    type: 'payment.succeeded',
    nativeType: 'payment_intent.succeeded',
    payload: { id: 'evt_1', type: 'payment_intent.succeeded', data: { object: { id: PI } } },
    ...overrides,
  };
}

function refundQuery(refundId = REFUND): PaymentStatusQuery {
  return query({
    type: 'refund.succeeded',
    nativeType: 'refund.updated',
    payload: { id: 'evt_2', type: 'refund.updated', data: { object: { id: refundId } } },
  });
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
  const { apiKey } = fake.credentialsFor('stripe');
  expect(message).not.toContain(apiKey);
  expect(message).not.toContain('Bearer');
}

describe('StripeStatusClient', () => {
  describe('fetchStatus of a PaymentIntent', () => {
    it('returns the status, type, amount and upper-case currency Stripe answers', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded', amount: 2000, currency: 'usd' });
      const before = Date.now();

      const status = await client().fetchStatus(query());

      expect(status).toEqual({
        paymentRef: PI,
        status: 'succeeded',
        type: 'payment.succeeded',
        amount: 2000,
        currency: 'USD',
        checkedAt: expect.any(Date),
      });
      expect(status.checkedAt.getTime()).toBeGreaterThanOrEqual(before);
    });

    it('asks GET /v1/payment_intents/{id} with the key as a Bearer token', async () => {
      fake.setPayment('stripe', PI, { status: 'processing' });

      await client().fetchStatus(query());

      const [request] = fake.requestsTo('stripe');
      expect(fake.requestsTo('stripe')).toHaveLength(1);
      expect(request.method).toBe('GET');
      expect(request.url).toBe(`/stripe/v1/payment_intents/${PI}`);
      expect(request.headers.authorization).toBe(`Bearer ${fake.credentialsFor('stripe').apiKey}`);
      expect(request.body).toBe('');
    });

    it.each([
      ['succeeded', undefined, 'payment.succeeded'],
      ['requires_capture', undefined, 'payment.authorized'],
      ['canceled', undefined, 'payment.canceled'],
      ['requires_payment_method', { code: 'card_declined' }, 'payment.failed'],
      ['requires_payment_method', null, undefined],
      ['requires_action', undefined, undefined],
      ['requires_confirmation', undefined, undefined],
      ['processing', undefined, undefined],
    ])('maps %s (last_payment_error %j) to %s', async (status, lastPaymentError, type) => {
      fake.setPayment('stripe', PI, {
        status,
        amount: 500,
        currency: 'eur',
        ...(lastPaymentError === undefined ? {} : { last_payment_error: lastPaymentError }),
      });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        status,
        type,
        amount: 500,
        currency: 'EUR',
      });
    });

    it('asks about the PaymentIntent for a refund event whose object is a charge', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded', amount: 2000, currency: 'usd' });
      const charge = query({
        type: 'refund.succeeded',
        nativeType: 'charge.refunded',
        payload: { data: { object: { id: 'ch_1', payment_intent: PI } } },
      });

      await expect(client().fetchStatus(charge)).resolves.toMatchObject({ paymentRef: PI });
      expect(fake.requestsTo('stripe')[0].url).toBe(`/stripe/v1/payment_intents/${PI}`);
    });
  });

  describe('fetchStatus of a refund', () => {
    it('asks GET /v1/refunds/{id} for a refund event whose object is a re_ refund', async () => {
      fake.setRefund('stripe', REFUND, {
        status: 'succeeded',
        amount: 700,
        currency: 'usd',
        payment_intent: PI,
      });

      const status = await client().fetchStatus(refundQuery());

      expect(status).toMatchObject({
        paymentRef: REFUND,
        status: 'succeeded',
        type: 'refund.succeeded',
        amount: 700,
        currency: 'USD',
      });
      const [request] = fake.requestsTo('stripe');
      expect(request.url).toBe(`/stripe/v1/refunds/${REFUND}`);
      expect(request.headers.authorization).toBe(`Bearer ${fake.credentialsFor('stripe').apiKey}`);
    });

    it.each([
      ['succeeded', 'refund.succeeded'],
      ['failed', 'refund.failed'],
      ['canceled', 'refund.failed'],
      ['pending', undefined],
      ['requires_action', undefined],
    ])('maps refund status %s to %s', async (status, type) => {
      fake.setRefund('stripe', REFUND, { status });

      await expect(client().fetchStatus(refundQuery())).resolves.toMatchObject({ status, type });
    });

    it('looks the refund up by its id even when the event carries no payment reference', async () => {
      fake.setRefund('stripe', REFUND, { status: 'succeeded' });

      await expect(
        client().fetchStatus({ ...refundQuery(), paymentRef: null }),
      ).resolves.toMatchObject({ type: 'refund.succeeded' });
    });

    it('recognizes refund events by their native type too (refund.updated still pending)', async () => {
      fake.setRefund('stripe', REFUND, { status: 'pending' });

      await client().fetchStatus({ ...refundQuery(), type: 'stripe:refund.updated' });

      expect(fake.requestsTo('stripe')[0].url).toBe(`/stripe/v1/refunds/${REFUND}`);
    });
  });

  describe('failures', () => {
    it('fails with missing_reference, asking nothing, when the event has no paymentRef', async () => {
      const error = await failure(client().fetchStatus(query({ paymentRef: null })));

      expect(error.failure).toBe('missing_reference');
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('Stripe');
      expect(fake.requests).toHaveLength(0);
    });

    it('fails with missing_reference when the reference is not a PaymentIntent id', async () => {
      const error = await failure(client().fetchStatus(query({ paymentRef: 'ch_1' })));

      expect(error.failure).toBe('missing_reference');
      expect(error.message).toContain('"ch_1"');
      expect(error.message).toContain('pi_');
      expect(fake.requests).toHaveLength(0);
    });

    it('refuses a reference that would change the request path', async () => {
      const error = await failure(client().fetchStatus(query({ paymentRef: 'pi_1/../../v1/x' })));

      expect(error.failure).toBe('missing_reference');
      expect(fake.requests).toHaveLength(0);
    });

    it('fails with unauthorized on a wrong key, naming the status and never the key', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });
      const wrongKey = 'sk_test_wrong_key_abcdefghijklmnop';

      const error = await failure(client({ apiKey: wrongKey }).fetchStatus(query()));

      expect(error.failure).toBe('unauthorized');
      expect(error.httpStatus).toBe(401);
      expect(error.retryable).toBe(false);
      expect(error.message).toContain('HTTP 401');
      expect(error.message).toContain(PI);
      expect(error.message).not.toContain(wrongKey);
      expect(error.message).not.toContain('Bearer');
    });

    it('fails with not_found when Stripe does not know the PaymentIntent', async () => {
      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe('not_found');
      expect(error.httpStatus).toBe(404);
      expect(error.message).toContain('resource_missing');
      expect(error.message).toContain(PI);
    });

    it.each<[string, FakeFailure, string, number | undefined]>([
      ['403', { status: 403 }, 'unauthorized', 403],
      ['429', { status: 429 }, 'unavailable', 429],
      ['500', { status: 500 }, 'unavailable', 500],
      ['503', { status: 503 }, 'unavailable', 503],
      ['a body that is not JSON', { invalidJson: true }, 'invalid_response', 200],
      ['a JSON array', { status: 200, body: '[]' }, 'invalid_response', 200],
      ['an object without status', { status: 200, body: { id: PI } }, 'invalid_response', 200],
      [
        'another object',
        { status: 200, body: { id: PI, object: 'charge', status: 'succeeded' } },
        'invalid_response',
        200,
      ],
      [
        'another PaymentIntent',
        { status: 200, body: { id: 'pi_other', object: 'payment_intent', status: 'succeeded' } },
        'invalid_response',
        200,
      ],
      [
        'a redirect',
        { status: 307, headers: { location: 'https://elsewhere.example/steal' } },
        'invalid_response',
        307,
      ],
      ['a 400', { status: 400 }, 'invalid_response', 400],
      ['a dropped connection', { dropConnection: true }, 'unavailable', undefined],
    ])('maps %s', async (_name, injected, expected, httpStatus) => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });
      fake.failNext('stripe', injected);

      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe(expected);
      expect(error.httpStatus).toBe(httpStatus);
      expect(error.retryable).toBe(expected === 'unavailable');
      expect(error.message).toContain(PI);
      expectNoSecret(error.message);
    });

    it('does not follow a redirect, so the key never reaches another address', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });
      fake.failNext('stripe', {
        status: 302,
        headers: { location: `${fake.url}/elsewhere/v1/payment_intents/${PI}` },
      });

      await failure(client().fetchStatus(query()));

      expect(fake.requests.map((request) => request.url)).toEqual([
        `/stripe/v1/payment_intents/${PI}`,
      ]);
    });

    it('fails with timeout when the answer takes longer than timeoutMs, without waiting for it', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });
      fake.failNext('stripe', { delayMs: 2000 });
      const started = Date.now();

      const error = await failure(client({ timeoutMs: 150 }).fetchStatus(query()));

      expect(error.failure).toBe('timeout');
      expect(error.retryable).toBe(true);
      expect(error.message).toContain('150 ms');
      expect(Date.now() - started).toBeLessThan(1500);
      expectNoSecret(error.message);
    });

    it('answers normally when the delay is within timeoutMs', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });
      fake.failNext('stripe', { delayMs: 50 });

      await expect(client({ timeoutMs: 2000 }).fetchStatus(query())).resolves.toMatchObject({
        type: 'payment.succeeded',
      });
    });

    it('fails with unavailable when nothing listens at apiUrl', async () => {
      const closed = await FakeProviderApi.start();
      const apiUrl = closed.apiUrl('stripe');
      await closed.close();

      const error = await failure(client({ apiUrl }).fetchStatus(query()));

      expect(error.failure).toBe('unavailable');
      expect(error.message).toContain('ECONNREFUSED');
      expectNoSecret(error.message);
    });

    it('makes one attempt only: retries are the dispatcher’s', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });
      fake.failNext('stripe', { status: 503 });

      await failure(client().fetchStatus(query()));

      expect(fake.requestsTo('stripe')).toHaveLength(1);
    });

    it('removes the key from provider text quoted in a message', async () => {
      const { apiKey } = fake.credentialsFor('stripe');
      fake.failNext('stripe', {
        status: 401,
        body: { error: { type: 'invalid_request_error', code: `key_${apiKey}` } },
      });

      const error = await failure(client().fetchStatus(query()));

      expect(error.message).toContain('[redacted]');
      expectNoSecret(error.message);
    });
  });

  describe('options', () => {
    it('defaults apiUrl to https://api.stripe.com and accepts restricted keys', () => {
      expect(() => new StripeStatusClient({ apiKey: 'rk_live_abc' })).not.toThrow();
    });

    it.each([
      ['missing', undefined, 'apiKey is required'],
      ['empty', '', 'apiKey is required'],
      ['padded', ' sk_test_abc ', 'spaces'],
      ['publishable', 'pk_test_abc', 'publishable key'],
      ['a webhook secret', 'whsec_abc', 'webhook signing secret'],
      ['unknown', 'abc', 'does not start with sk_ or rk_'],
    ])('refuses a %s apiKey at construction, without quoting it', (_name, apiKey, problem) => {
      const create = () => new StripeStatusClient({ apiKey: apiKey as string });

      expect(create).toThrow(WebhookConfigurationError);
      expect(create).toThrow(problem);
      if (apiKey) {
        expect(() => create()).not.toThrow(apiKey.trim());
      }
    });

    it.each([
      ['not a URL', 'api.stripe.com'],
      ['ftp', 'ftp://api.stripe.com'],
      ['credentials in it', 'https://user:sk_test_abc@api.stripe.com'],
      ['a query', 'https://api.stripe.com?x=1'],
      ['a fragment', 'https://api.stripe.com#x'],
      ['not a string', 42],
    ])('refuses an apiUrl with %s at construction', (_name, apiUrl) => {
      const create = () =>
        new StripeStatusClient({ apiKey: 'sk_test_abc', apiUrl: apiUrl as string });

      expect(create).toThrow(WebhookConfigurationError);
      expect(create).toThrow(/StripeStatusClient: apiUrl/);
      expect(create).not.toThrow('sk_test_abc');
    });

    it('joins paths to an apiUrl with a trailing slash or a path prefix', async () => {
      fake.setPayment('stripe', PI, { status: 'succeeded' });

      await client({ apiUrl: `${fake.apiUrl('stripe')}/` }).fetchStatus(query());

      expect(fake.requestsTo('stripe')[0].url).toBe(`/stripe/v1/payment_intents/${PI}`);
    });

    it.each([0, -1, 1.5, Number.NaN, 2 ** 31])('refuses timeoutMs %p', (timeoutMs) => {
      expect(() => client({ timeoutMs })).toThrow(/timeoutMs must be a whole number/);
    });
  });
});
