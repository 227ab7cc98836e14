import { createHash } from 'node:crypto';
import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { FakeFailure, FakeProviderApi } from '../../spec-support/fake-provider-api';
import { PaymentStatusQuery } from '../payment-status-client.interface';
import { TBankStatusClient, TBankStatusClientOptions } from './tbank-status.client';

const PAYMENT_ID = '8111987112';

let fake: FakeProviderApi;

beforeAll(async () => {
  fake = await FakeProviderApi.start();
});

afterEach(() => fake.reset());

afterAll(async () => {
  await fake.close();
});

function client(options: Partial<TBankStatusClientOptions> = {}): TBankStatusClient {
  return new TBankStatusClient({ ...fake.clientOptions('tbank'), ...options });
}

function query(overrides: Partial<PaymentStatusQuery> = {}): PaymentStatusQuery {
  return {
    paymentRef: PAYMENT_ID,
    merchantRef: 'order-42',
    type: 'payment.authorized',
    nativeType: 'AUTHORIZED',
    payload: { TerminalKey: 'FakeTerminalDEMO', PaymentId: Number(PAYMENT_ID) },
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

/** The documented token, computed here with node:crypto alone. */
function expectedToken(terminalKey: string, paymentId: string, password: string): string {
  // Keys in ASCII order: Password, PaymentId ("s" < "y"), TerminalKey.
  return createHash('sha256').update(`${password}${paymentId}${terminalKey}`, 'utf8').digest('hex');
}

function secretsOf(): string[] {
  const { terminalKey, password } = fake.credentialsFor('tbank');
  return [password, expectedToken(terminalKey, PAYMENT_ID, password)];
}

function expectNoSecret(message: string): void {
  for (const secret of secretsOf()) {
    expect(message).not.toContain(secret);
  }
}

describe('TBankStatusClient', () => {
  describe('fetchStatus', () => {
    it('returns the status, type, amount in kopecks and RUB', async () => {
      fake.setPayment('tbank', PAYMENT_ID, { Status: 'CONFIRMED', Amount: 1000, OrderId: 'o-1' });

      await expect(client().fetchStatus(query())).resolves.toEqual({
        paymentRef: PAYMENT_ID,
        status: 'CONFIRMED',
        type: 'payment.succeeded',
        amount: 1000,
        currency: 'RUB',
        checkedAt: expect.any(Date),
      });
    });

    it('POSTs {TerminalKey, PaymentId, Token} to GetState with the documented Token, never the password', async () => {
      fake.setPayment('tbank', PAYMENT_ID, { Status: 'NEW' });
      const { terminalKey, password } = fake.credentialsFor('tbank');

      await client().fetchStatus(query());

      const requests = fake.requestsTo('tbank');
      expect(requests).toHaveLength(1);
      expect(requests[0].method).toBe('POST');
      expect(requests[0].url).toBe('/tbank/v2/GetState');
      expect(requests[0].headers['content-type']).toBe('application/json');
      expect(requests[0].json).toEqual({
        TerminalKey: terminalKey,
        PaymentId: PAYMENT_ID,
        Token: expectedToken(terminalKey, PAYMENT_ID, password),
      });
      expect(requests[0].body).not.toContain(password);
      expect(requests[0].headers.authorization).toBeUndefined();
    });

    it.each([
      ['AUTHORIZED', 'payment.authorized'],
      ['CONFIRMED', 'payment.succeeded'],
      ['REJECTED', 'payment.failed'],
      ['REVERSED', 'payment.canceled'],
      ['PARTIAL_REVERSED', 'payment.authorized'],
      ['CANCELED', 'payment.canceled'],
      ['REFUNDED', 'refund.succeeded'],
      ['PARTIAL_REFUNDED', 'refund.succeeded'],
      ['NEW', undefined],
      ['FORM_SHOWED', undefined],
      ['AUTHORIZING', undefined],
      ['CONFIRMING', undefined],
      ['DEADLINE_EXPIRED', undefined],
    ])('maps Status %s to %s', async (Status, type) => {
      fake.setPayment('tbank', PAYMENT_ID, { Status, Amount: 5000 });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        status: Status,
        type,
        amount: 5000,
      });
    });

    it('accepts the PaymentId answered as a number', async () => {
      fake.setPayment('tbank', PAYMENT_ID, { Status: 'CONFIRMED', PaymentId: Number(PAYMENT_ID) });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        paymentRef: PAYMENT_ID,
      });
    });

    it('reads a Success:false answer that describes this payment as its status', async () => {
      fake.failNext('tbank', {
        status: 200,
        body: {
          Success: false,
          ErrorCode: '1051',
          Message: 'Недостаточно средств на карте',
          PaymentId: PAYMENT_ID,
          Status: 'REJECTED',
          Amount: 1000,
        },
      });

      await expect(client().fetchStatus(query())).resolves.toMatchObject({
        status: 'REJECTED',
        type: 'payment.failed',
      });
    });
  });

  describe('failures', () => {
    it.each([
      ['null', null],
      ['empty', ''],
      ['too long', '1'.repeat(21)],
      ['with a space', '811 1987112'],
    ])('fails with missing_reference for a %s PaymentId, asking nothing', async (_n, ref) => {
      const error = await failure(client().fetchStatus(query({ paymentRef: ref })));

      expect(error.failure).toBe('missing_reference');
      expect(error.message).toContain('T-Bank');
      expect(fake.requests).toHaveLength(0);
    });

    it('fails with unauthorized when the password is wrong (ErrorCode 204), never quoting it', async () => {
      fake.setPayment('tbank', PAYMENT_ID, { Status: 'CONFIRMED' });
      const wrong = 'wrong-terminal-password-123';

      const error = await failure(client({ password: wrong }).fetchStatus(query()));

      expect(error.failure).toBe('unauthorized');
      expect(error.retryable).toBe(false);
      expect(error.httpStatus).toBe(200);
      expect(error.message).toContain('HTTP 200, ErrorCode 204');
      expect(error.message).toContain('Неверный токен');
      expect(error.message).toContain(PAYMENT_ID);
      expect(error.message).not.toContain(wrong);
      const { terminalKey } = fake.credentialsFor('tbank');
      expect(error.message).not.toContain(expectedToken(terminalKey, PAYMENT_ID, wrong));
    });

    it('fails with unauthorized when the terminal is unknown (ErrorCode 501)', async () => {
      const error = await failure(client({ terminalKey: 'OtherTerminal' }).fetchStatus(query()));

      expect(error.failure).toBe('unauthorized');
      expect(error.message).toContain('ErrorCode 501');
    });

    it('fails with not_found when T-Bank does not know the payment (ErrorCode 255)', async () => {
      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe('not_found');
      expect(error.message).toContain('ErrorCode 255');
      expect(error.message).toContain(PAYMENT_ID);
    });

    it('fails with unauthorized for a credentials code even when a Status is present', async () => {
      fake.failNext('tbank', {
        status: 200,
        body: { Success: false, ErrorCode: '204', PaymentId: PAYMENT_ID, Status: 'CONFIRMED' },
      });

      expect((await failure(client().fetchStatus(query()))).failure).toBe('unauthorized');
    });

    it.each<[string, FakeFailure, string]>([
      [
        'another error code',
        { status: 200, body: { Success: false, ErrorCode: '9999', Message: 'Внутренняя ошибка' } },
        'unavailable',
      ],
      ['HTTP 503', { status: 503 }, 'unavailable'],
      ['HTTP 429', { status: 429 }, 'unavailable'],
      ['HTTP 401', { status: 401 }, 'unauthorized'],
      ['HTTP 404', { status: 404 }, 'not_found'],
      ['a body that is not JSON', { invalidJson: true }, 'invalid_response'],
      ['no Success flag', { status: 200, body: { Status: 'CONFIRMED' } }, 'invalid_response'],
      [
        'Success without Status',
        { status: 200, body: { Success: true, PaymentId: PAYMENT_ID } },
        'invalid_response',
      ],
      [
        'another payment',
        { status: 200, body: { Success: true, PaymentId: '1', Status: 'CONFIRMED' } },
        'invalid_response',
      ],
      ['a dropped connection', { dropConnection: true }, 'unavailable'],
    ])('maps %s to %s', async (_name, injected, expected) => {
      fake.failNext('tbank', injected);

      const error = await failure(client().fetchStatus(query()));

      expect(error.failure).toBe(expected);
      expect(error.message).toContain(PAYMENT_ID);
      expectNoSecret(error.message);
    });

    it('quotes the provider message of an unknown error code', async () => {
      fake.failNext('tbank', {
        status: 200,
        body: { Success: false, ErrorCode: '9999', Message: 'Внутренняя ошибка системы' },
      });

      const error = await failure(client().fetchStatus(query()));

      expect(error.message).toContain('ErrorCode 9999: Внутренняя ошибка системы');
      expect(error.retryable).toBe(true);
    });

    it('removes the password and the request Token from provider text it quotes', async () => {
      const [password, token] = secretsOf();
      fake.failNext('tbank', {
        status: 200,
        body: { Success: false, ErrorCode: '9999', Message: `pw=${password}`, Details: token },
      });

      const error = await failure(client().fetchStatus(query()));

      expect(error.message).toContain('pw=[redacted]: [redacted]');
      expectNoSecret(error.message);
    });

    it('fails with timeout after timeoutMs', async () => {
      fake.setPayment('tbank', PAYMENT_ID, { Status: 'CONFIRMED' });
      fake.failNext('tbank', { delayMs: 2000 });
      const started = Date.now();

      const error = await failure(client({ timeoutMs: 120 }).fetchStatus(query()));

      expect(error.failure).toBe('timeout');
      expect(Date.now() - started).toBeLessThan(1500);
      expectNoSecret(error.message);
    });
  });

  describe('options', () => {
    it('defaults apiUrl to https://securepay.tinkoff.ru/v2', () => {
      expect(() => new TBankStatusClient({ terminalKey: 'T', password: 'p' })).not.toThrow();
    });

    it.each([
      ['terminalKey', { terminalKey: '', password: 'secret-pw' }],
      ['password', { terminalKey: 'T' }],
      ['password', { terminalKey: 'T', password: ' secret-pw' }],
    ])('refuses an unusable %s, never quoting the password', (option, options) => {
      const create = () => new TBankStatusClient(options as TBankStatusClientOptions);

      expect(create).toThrow(WebhookConfigurationError);
      expect(create).toThrow(`TBankStatusClient: ${option}`);
      expect(create).not.toThrow('secret-pw');
    });
  });
});
