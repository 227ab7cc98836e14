import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { FakeFailure, FakeProviderApi } from '../../spec-support/fake-provider-api';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { SberStatusClient, SberStatusClientOptions } from './sber-status.client';

const ORDER = '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b';

let fake: FakeProviderApi;

beforeAll(async () => {
  fake = await FakeProviderApi.start();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function client(options: Partial<SberStatusClientOptions> = {}): SberStatusClient {
  return new SberStatusClient({
    ...fake.clientOptions('sber'),
    ...options,
  } as SberStatusClientOptions);
}

function tokenClient(token: string, options: { timeoutMs?: number } = {}): SberStatusClient {
  return new SberStatusClient({ token, apiUrl: fake.apiUrl('sber'), ...options });
}

function query(overrides: Partial<PaymentStatusQuery> = {}): PaymentStatusQuery {
  return {
    paymentRef: ORDER,
    merchantRef: '2003',
    type: 'payment.succeeded',
    nativeType: 'deposited',
    payload: { mdOrder: ORDER, orderNumber: '2003', operation: 'deposited', status: '1' },
    ...overrides,
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

function expectNoSecret(message: string): void {
  const { password, token } = fake.credentialsFor('sber');
  expect(message).not.toContain(password);
  expect(message).not.toContain(token);
}

describe('SberStatusClient', () => {
  describe('fetchStatus', () => {
    it('returns the orderStatus, type, amount and the currency letters', async () => {
      fake.setPayment('sber', ORDER, {
        orderStatus: 2,
        amount: 35000099,
        currency: '643',
        orderNumber: '2003',
        actionCode: 0,
      });

      await expect(client().fetchStatus(query())).resolves.toEqual({
        paymentRef: ORDER,
        status: '2',
        type: 'payment.succeeded',
        amount: 35000099,
        currency: 'RUB',
        checkedAt: expect.any(Date),
      });
    });

    it('POSTs a form to getOrderStatusExtended.do with userName, password, orderId and language=en', async () => {
      fake.setPayment('sber', ORDER, { orderStatus: 0 });
      const { userName, password } = fake.credentialsFor('sber');

      await client().fetchStatus(query());

      const requests = fake.requestsTo('sber');
      expect(requests).toHaveLength(1);
      expect(requests[0].method).toBe('POST');
      // NOTE: credentials in the body only; a URL ends up in access logs.
      expect(requests[0].url).toBe('/sber/payment/rest/getOrderStatusExtended.do');
      expect(requests[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(requests[0].form).toEqual({ userName, password, orderId: ORDER, language: 'en' });
    });

    it('sends the token alone when configured with a token', async () => {
      fake.setPayment('sber', ORDER, { orderStatus: 1 });
      const { token } = fake.credentialsFor('sber');

      await expect(tokenClient(token).fetchStatus(query())).resolves.toMatchObject({
        type: 'payment.authorized',
      });
      expect(fake.requestsTo('sber')[0].form).toEqual({ token, orderId: ORDER, language: 'en' });
    });

    it.each([
      [0, undefined],
      [1, 'payment.authorized'],
      [2, 'payment.succeeded'],
      [3, 'payment.canceled'],
      [4, 'refund.succeeded'],
      [5, undefined],
      [6, 'payment.failed'],
      [7, undefined],
    ])('maps orderStatus %s to %s', async (orderStatus, type) => {
      fake.setPayment('sber', ORDER, { orderStatus, amount: 1000, currency: '643' });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        status: String(orderStatus),
        type,
        amount: 1000,
        currency: 'RUB',
      });
    });

    it.each([
      ['840', 'USD'],
      ['978', 'EUR'],
      ['051', 'AMD'],
      ['999', undefined],
    ])('turns currency %s into %s', async (currency, letters) => {
      fake.setPayment('sber', ORDER, { orderStatus: 2, amount: 1, currency });

      const status = await client().fetchStatus(query());

      expect(status.currency).toBe(letters);
    });

    it('accepts orderStatus and errorCode sent as strings or numbers', async () => {
      fake.failNext('sber', {
        status: 200,
        body: { errorCode: 0, orderStatus: '2', amount: 500, currency: 643 },
      });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        status: '2',
        type: 'payment.succeeded',
        currency: 'RUB',
      });
    });

    it('leaves the currency out when the gateway sends none', async () => {
      fake.setPayment('sber', ORDER, { orderStatus: 2, amount: 500 });

      expect(await client().fetchStatus(query())).not.toHaveProperty('currency');
    });
  });

  describe('failures', () => {
    it.each([
      ['null', null],
      ['empty', ''],
      ['too long', 'x'.repeat(37)],
    ])('fails with missing_reference for a %s order id, asking nothing', async (_n, ref) => {
      const error = await failure(client().fetchStatus(query({ paymentRef: ref })));

      expect(error.failure).toBe('missing_reference');
      expect(error.message).toContain('mdOrder');
      expect(fake.requests).toHaveLength(0);
    });

    it('fails with unauthorized on a wrong password (errorCode 5), never quoting it', async () => {
      fake.setPayment('sber', ORDER, { orderStatus: 2 });
      const wrong = 'wrong&password=with spaces';

      const error = await failure(client({ password: wrong }).fetchStatus(query()));

      expect(error.failure).toBe('unauthorized');
      expect(error.message).toContain('errorCode 5: Access denied');
      expect(error.message).toContain(ORDER);
      expect(error.message).not.toContain(wrong);
      expect(error.message).not.toContain(encodeURIComponent(wrong));
    });

    it('fails with unauthorized on a wrong token', async () => {
      const error = await failure(tokenClient('wrong-token').fetchStatus(query()));

      expect(error.failure).toBe('unauthorized');
      expect(error.message).not.toContain('wrong-token');
    });

    it('fails with not_found when the gateway does not know the order (errorCode 6)', async () => {
      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe('not_found');
      expect(error.retryable).toBe(false);
      expect(error.httpStatus).toBe(200);
      expect(error.message).toContain('(HTTP 200, errorCode 6: Order not found)');
    });

    it.each<[string, FakeFailure, string]>([
      [
        'a system error (errorCode 7)',
        { status: 200, body: { errorCode: '7', errorMessage: 'System error' } },
        'unavailable',
      ],
      ['HTTP 500', { status: 500 }, 'unavailable'],
      ['HTTP 503 with HTML', { status: 503, body: '<html>maintenance</html>' }, 'unavailable'],
      ['HTTP 403', { status: 403 }, 'unauthorized'],
      ['a body that is not JSON', { invalidJson: true }, 'invalid_response'],
      ['no orderStatus', { status: 200, body: { errorCode: '0', amount: 1 } }, 'invalid_response'],
      [
        'an orderStatus that is no number',
        { status: 200, body: { errorCode: '0', orderStatus: 'paid' } },
        'invalid_response',
      ],
      [
        'an unreadable errorCode',
        { status: 200, body: { errorCode: null, orderStatus: 2 } },
        'invalid_response',
      ],
      ['a dropped connection', { dropConnection: true }, 'unavailable'],
    ])('maps %s to %s', async (_name, injected, expected) => {
      fake.failNext('sber', injected);

      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe(expected);
      expect(error.message).toContain(ORDER);
      expectNoSecret(error.message);
    });

    it('removes the password and token from provider text it quotes', async () => {
      const { password } = fake.credentialsFor('sber');
      fake.failNext('sber', {
        status: 200,
        body: { errorCode: '5', errorMessage: `Access denied for password=${password}` },
      });

      const error = await failure(client().fetchStatus(query()));

      expect(error.message).toContain('password=[redacted]');
      expectNoSecret(error.message);
    });

    it('fails with timeout after timeoutMs', async () => {
      fake.setPayment('sber', ORDER, { orderStatus: 2 });
      fake.failNext('sber', { delayMs: 2000 });
      const started = Date.now();

      const error = await failure(client({ timeoutMs: 120 }).fetchStatus(query()));

      expect(error.failure).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1500);
      expectNoSecret(error.message);
    });
  });

  describe('options', () => {
    it('defaults apiUrl to the production gateway', () => {
      expect(() => new SberStatusClient({ userName: 'shop-api', password: 'pw' })).not.toThrow();
      expect(() => new SberStatusClient({ token: 'token' })).not.toThrow();
    });

    it.each([
      ['no credentials', {}, 'has no credentials'],
      ['both kinds', { userName: 'shop-api', password: 'secret-pw', token: 'tok' }, 'both'],
      ['a login without password', { userName: 'shop-api' }, 'together'],
      ['an empty token', { token: '' }, 'SberStatusClient: token is required'],
      ['a padded password', { userName: 'shop-api', password: 'secret-pw ' }, 'spaces'],
    ])('refuses %s', (_name, options, problem) => {
      const create = () => new SberStatusClient(options as SberStatusClientOptions);

      expect(create).toThrow(WebhookConfigurationError);
      expect(create).toThrow(problem);
      expect(create).not.toThrow('secret-pw');
    });
  });
});
