import { createHash } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { TBankEndpointOptions, tbankEndpoint } from './tbank.provider';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

// NOTE: T-Bank publishes no SDK for Node. These are the documented vectors (providers.md §6):
// the Init example from the T-Bank docs and two demo-terminal notifications, each recomputed
// below with node:crypto from the concatenated string.
const DOCS_PASSWORD = 'usaf8fw8fsw21g';
const DOCS_STRING = '19200Подарочная карта на 1000 рублей21090usaf8fw8fsw21gMerchantTerminalKey';
const DOCS_TOKEN = '0024a00af7c350a3a67ca168ce06502aa72772456662e38696d48b56ee9c97d9';
const DOCS_BODY = JSON.stringify({
  TerminalKey: 'MerchantTerminalKey',
  Amount: 19200,
  OrderId: '21090',
  Description: 'Подарочная карта на 1000 рублей',
  Token: DOCS_TOKEN,
});

const DEMO_PASSWORD = 'rpnstdt1ekalr00f';
const DEMO_TOKEN = '17bf87f32797d961db48f4500cc9110be5cc2f480e4e555e2440eec09108a760';
const DEMO_BODY =
  '{"TerminalKey":"1772186527637DEMO","OrderId":"lde1q7xbsoisn1vjj2k6s","Success":true,' +
  '"Status":"AUTHORIZED","PaymentId":8111987112,"ErrorCode":"0","Amount":1000,' +
  '"CardId":659561464,"Pan":"430000******0777","ExpDate":"1230",' +
  `"Token":"${DEMO_TOKEN}"}`;
// NOTE: Amount, CardId, ErrorCode, ExpDate, OrderId, Pan, Password, PaymentId, Status, Success,
// TerminalKey.
const DEMO_STRING =
  '100065956146401230lde1q7xbsoisn1vjj2k6s430000******0777rpnstdt1ekalr00f' +
  '8111987112AUTHORIZEDtrue1772186527637DEMO';

const DEMO2_PASSWORD = '7wqy8w821dqbldev';
const DEMO2_TOKEN = '188ef1adacba53d889aa427184aaa47b7ee7eb306427dc5ab3dc1a7f87c4b7d5';
const DEMO2_BODY =
  '{"TerminalKey":"1696908061914DEMO","OrderId":"a24a9ca2-e323-49aa-bff6-493e5deebc0c",' +
  '"Success":true,"Status":"AUTHORIZED","PaymentId":3367515924,"ErrorCode":"0",' +
  '"Amount":5000,"CardId":356460362,"Pan":"430000******0777","ExpDate":"1122",' +
  `"Token":"${DEMO2_TOKEN}"}`;

const PASSWORD = 'tb_terminal_password';
const OLD_PASSWORD = 'tb_previous_password';

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/**
 * Token computed independently of the provider: values of the top-level scalars other than Token,
 * plus Password, ordered by key.
 */
function independentToken(fields: Record<string, unknown>, password: string): string {
  const entries = Object.entries({ ...fields, Password: password })
    .filter(([key, value]) => key !== 'Token' && value !== null && typeof value !== 'object')
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return sha256(entries.map(([, value]) => String(value)).join(''));
}

function notificationBody(fields: Record<string, unknown>, password = PASSWORD): string {
  return JSON.stringify({ ...fields, Token: independentToken(fields, password) });
}

function delivery(body: string | Buffer): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers: { 'content-type': 'application/json' },
    receivedAt: new Date(),
  };
}

function provider(options: Partial<TBankEndpointOptions> = {}): WebhookProvider {
  return tbankEndpoint({ name: 'tbank', password: PASSWORD, ...options }).provider;
}

const CONFIRMED = {
  TerminalKey: '1772186527637DEMO',
  OrderId: 'order-1042',
  Success: true,
  Status: 'CONFIRMED',
  PaymentId: 8111987112,
  ErrorCode: '0',
  Amount: 19200,
  CardId: 659561464,
  Pan: '430000******0777',
  ExpDate: '1230',
};

describe('tbankEndpoint', () => {
  describe('verify', () => {
    it('recomputes the documented vectors independently', () => {
      expect(sha256(DOCS_STRING)).toBe(DOCS_TOKEN);
      expect(sha256(DEMO_STRING)).toBe(DEMO_TOKEN);
      const { Token: _token, ...demo2 } = JSON.parse(DEMO2_BODY) as Record<string, unknown>;
      expect(independentToken(demo2, DEMO2_PASSWORD)).toBe(DEMO2_TOKEN);
    });

    it.each([
      ['the T-Bank docs example', DOCS_BODY, DOCS_PASSWORD],
      ['demo terminal notification 1', DEMO_BODY, DEMO_PASSWORD],
      ['demo terminal notification 2', DEMO2_BODY, DEMO2_PASSWORD],
    ])('accepts %s', (_label, body, password) => {
      expect(() => provider({ password }).verify(delivery(body))).not.toThrow();
    });

    it('leaves nested objects and arrays out of the Token, as the docs say', () => {
      const withNested = DOCS_BODY.replace(
        '"Token"',
        '"DATA":{"Phone":"+71234567890"},"Receipt":{"Items":[{"Name":"Карта","Price":19200}]},"Token"',
      );
      expect(() =>
        provider({ password: DOCS_PASSWORD }).verify(delivery(withNested)),
      ).not.toThrow();
    });

    it('leaves null fields out of the Token', () => {
      const body = DEMO_BODY.replace('"Token"', '"RebillId":null,"Token"');
      expect(() => provider({ password: DEMO_PASSWORD }).verify(delivery(body))).not.toThrow();
    });

    it('accepts JSON with whitespace and escaped strings as T-Bank may format it', () => {
      const fields = { ...CONFIRMED, OrderId: 'заказ "7"\\a', Description: 'Линия\nвторая' };
      const pretty = JSON.stringify(
        { ...fields, Token: independentToken(fields, PASSWORD) },
        null,
        2,
      );
      expect(() => provider().verify(delivery(pretty))).not.toThrow();
    });

    it('hashes numbers as written, so a PaymentId beyond 2^53 keeps every digit', () => {
      const digits = '90071992547409931';
      const fields = { ...CONFIRMED, PaymentId: 0 };
      const text = `${String(fields.Amount)}${fields.CardId}${fields.ErrorCode}${fields.ExpDate}${fields.OrderId}${fields.Pan}${PASSWORD}${digits}${fields.Status}true${fields.TerminalKey}`;
      const body = JSON.stringify({ ...fields, Token: sha256(text) }).replace(
        '"PaymentId":0',
        `"PaymentId":${digits}`,
      );
      expect(() => provider().verify(delivery(body))).not.toThrow();
      expect(notificationsOf(provider().normalize(delivery(body)))[0]).toMatchObject({
        paymentRef: digits,
        eventId: `${digits}:CONFIRMED`,
      });
    });

    it('accepts an upper-case Token', () => {
      const body = DEMO_BODY.replace(DEMO_TOKEN, DEMO_TOKEN.toUpperCase());
      expect(() => provider({ password: DEMO_PASSWORD }).verify(delivery(body))).not.toThrow();
    });

    it('accepts either password while two are configured (rotation)', () => {
      const rotating = provider({ password: [OLD_PASSWORD, PASSWORD] });
      expect(() => rotating.verify(delivery(notificationBody(CONFIRMED, PASSWORD)))).not.toThrow();
      expect(() =>
        rotating.verify(delivery(notificationBody(CONFIRMED, OLD_PASSWORD))),
      ).not.toThrow();
    });

    it.each([
      ['Amount', DEMO_BODY.replace('"Amount":1000', '"Amount":100')],
      ['Status', DEMO_BODY.replace('AUTHORIZED', 'CONFIRMED')],
      ['Success', DEMO_BODY.replace('"Success":true', '"Success":false')],
      ['an added field', DEMO_BODY.replace('"Token"', '"RebillId":1,"Token"')],
    ])('rejects a notification whose %s was changed', (_label, body) => {
      expect(rejection(() => provider({ password: DEMO_PASSWORD }).verify(delivery(body)))).toEqual(
        {
          name: 'WebhookVerificationError',
          reason: 'bad_signature',
          message: 'Token does not match the T-Bank notification and the terminal password',
        },
      );
    });

    it('rejects a Token made with another password, without echoing password or Token', () => {
      const error = rejection(() => provider().verify(delivery(DEMO_BODY)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(DEMO_TOKEN);
      expect(error.message).not.toContain(PASSWORD);
    });

    it('has no timestamp, so the receive time does not matter', () => {
      const request = { ...delivery(DEMO_BODY), receivedAt: new Date('2001-01-01T00:00:00Z') };
      expect(() => provider({ password: DEMO_PASSWORD }).verify(request)).not.toThrow();
    });

    it('rejects a notification without Token as missing_signature', () => {
      const { Token: _token, ...unsigned } = JSON.parse(DEMO_BODY) as Record<string, unknown>;
      expect(rejection(() => provider().verify(delivery(JSON.stringify(unsigned))))).toMatchObject({
        reason: 'missing_signature',
        message: 'T-Bank notification has no Token',
      });
    });

    it.each([
      ['not hex', `"${'z'.repeat(64)}"`],
      ['too short', `"${DEMO_TOKEN.slice(1)}"`],
      ['a number', '12345'],
      ['null', 'null'],
    ])('rejects a Token that is %s as bad_signature', (_label, token) => {
      const body = DEMO_BODY.replace(`"${DEMO_TOKEN}"`, token);
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        reason: 'bad_signature',
        message: 'Malformed Token in the T-Bank notification: expected 64 hex digits',
      });
    });

    it('hashes a "__proto__" field like any other', () => {
      const body = DEMO_BODY.replace('"Token"', '"__proto__":"x","Token"');
      expect(
        rejection(() => provider({ password: DEMO_PASSWORD }).verify(delivery(body))).reason,
      ).toBe('bad_signature');
    });

    it('refuses a body with a Password field', () => {
      const body = DEMO_BODY.replace('"Token"', '"Password":"x","Token"');
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        name: 'WebhookPayloadError',
        message: expect.stringMatching(/carries a Password field/),
      });
    });

    it('refuses a body with a key given twice', () => {
      const body = DEMO_BODY.replace('"Amount":1000', '"Amount":1000,"Amount":1');
      expect(rejection(() => provider().verify(delivery(body)))).toEqual({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
        message: 'T-Bank notification body has the key "Amount" more than once',
      });
    });

    it.each([
      ['not JSON', 'TerminalKey=1&Token=2', 'T-Bank notification body is not valid JSON'],
      ['a JSON array', '[]', 'T-Bank notification body is not a JSON object'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 'T-Bank notification body is not valid UTF-8'],
    ])('refuses a body that is %s', (_label, body, message) => {
      expect(rejection(() => provider().verify(delivery(body)))).toEqual({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
        message,
      });
    });

    describe('with terminalKey', () => {
      it('accepts a notification for that terminal', () => {
        const own = provider({ password: DEMO_PASSWORD, terminalKey: '1772186527637DEMO' });
        expect(() => own.verify(delivery(DEMO_BODY))).not.toThrow();
      });

      it('rejects a genuine notification for another terminal', () => {
        const other = provider({ password: DEMO_PASSWORD, terminalKey: '1696908061914DEMO' });
        expect(rejection(() => other.verify(delivery(DEMO_BODY)))).toEqual({
          name: 'WebhookVerificationError',
          reason: 'bad_signature',
          message:
            'T-Bank notification is for terminal "1772186527637DEMO", ' +
            'not for this endpoint\'s terminal "1696908061914DEMO"',
        });
      });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<TBankEndpointOptions>): string {
      const error = rejection(() =>
        tbankEndpoint({ name: 'tbank', ...options } as TBankEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers HTTP 200 with the body OK', () => {
      const endpoint = tbankEndpoint({ name: 'tbank', password: PASSWORD });
      expect(endpoint.provider.kind).toBe('tbank');
      expect(endpoint.provider.methods).toBeUndefined();
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: 'OK',
        contentType: 'text/plain; charset=utf-8',
      });
    });

    it('requires a password and refuses blank ones, without quoting them', () => {
      expect(configError({ password: undefined })).toMatch(
        /"tbank" \(tbank\) has no usable password/,
      );
      expect(configError({ password: [PASSWORD, ' '] })).not.toContain(PASSWORD);
    });

    it('refuses an empty terminalKey', () => {
      expect(configError({ password: PASSWORD, terminalKey: '' })).toMatch(
        /terminalKey must be a non-empty string/,
      );
    });

    it.each(['ok', 'OK\n', '<p>OK</p>', ''])(
      'refuses acknowledgement.body %p, which T-Bank would count as a failure',
      (body) => {
        expect(configError({ password: PASSWORD, acknowledgement: { body } })).toMatch(
          /counts a delivery as done only when the answer is HTTP 200 with the body "OK"/,
        );
      },
    );

    it.each([201, 204])('refuses acknowledgement.status %p', (status) => {
      expect(configError({ password: PASSWORD, acknowledgement: { status } })).toMatch(
        /acknowledgement.status 20\d would make T-Bank resend every notification/,
      );
    });

    it('allows an override that keeps 200 and OK', () => {
      const endpoint = tbankEndpoint({
        name: 'tbank',
        password: PASSWORD,
        acknowledgement: { status: 200, body: 'OK', contentType: 'text/plain' },
      });
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: 'OK',
        contentType: 'text/plain',
      });
    });
  });

  describe('normalize', () => {
    function normalize(fields: Record<string, unknown>): NormalizedNotification {
      return notificationsOf(provider().normalize(delivery(notificationBody(fields))))[0];
    }

    it('maps the documented demo notification', () => {
      const result = notificationsOf(
        provider({ password: DEMO_PASSWORD }).normalize(delivery(DEMO_BODY)),
      )[0];
      expect(result).toEqual({
        eventId: '8111987112:AUTHORIZED',
        type: 'payment.authorized',
        nativeType: 'AUTHORIZED',
        paymentRef: '8111987112',
        merchantRef: 'lde1q7xbsoisn1vjj2k6s',
        amount: 1000,
        currency: 'RUB',
        status: 'AUTHORIZED',
        payload: JSON.parse(DEMO_BODY),
      });
    });

    it.each([
      ['AUTHORIZED', 'payment.authorized'],
      ['CONFIRMED', 'payment.succeeded'],
      ['REJECTED', 'payment.failed'],
      ['REVERSED', 'payment.canceled'],
      ['CANCELED', 'payment.canceled'],
      ['REFUNDED', 'refund.succeeded'],
      ['DEADLINE_EXPIRED', 'tbank:DEADLINE_EXPIRED'],
      ['confirmed', 'tbank:confirmed'],
    ])('maps %s to %s, keyed by PaymentId and Status', (status, type) => {
      expect(normalize({ ...CONFIRMED, Status: status })).toMatchObject({
        type,
        nativeType: status,
        status,
        eventId: `8111987112:${status}`,
      });
    });

    it.each([
      ['PARTIAL_REFUNDED', 'refund.succeeded'],
      ['PARTIAL_REVERSED', 'payment.authorized'],
    ])('keys %s by Amount too, so each partial operation is its own event', (status, type) => {
      // NOTE: Amount is what the payment stands at after each operation: 1000, then two of 300.
      const first = normalize({ ...CONFIRMED, Status: status, Amount: 700 });
      const second = normalize({ ...CONFIRMED, Status: status, Amount: 400 });
      expect(first).toMatchObject({ type, eventId: `8111987112:${status}:700` });
      expect(second.eventId).toBe(`8111987112:${status}:400`);
    });

    it('maps PARTIAL_REVERSED to payment.authorized with the hold that remains', () => {
      expect(normalize({ ...CONFIRMED, Status: 'PARTIAL_REVERSED', Amount: 700 })).toMatchObject({
        type: 'payment.authorized',
        amount: 700,
        currency: 'RUB',
      });
    });

    it('gives PARTIAL_REFUNDED no amount: its Amount is what is left, not the refund', () => {
      const result = normalize({ ...CONFIRMED, Status: 'PARTIAL_REFUNDED', Amount: 700 });
      expect(result.amount).toBeUndefined();
      expect(result.currency).toBeUndefined();
      expect(result.payload).toMatchObject({ Amount: 700 });
    });

    it('keeps a Success: false notification, mapped by its Status', () => {
      const result = normalize({
        ...CONFIRMED,
        Status: 'REJECTED',
        Success: false,
        ErrorCode: '1051',
        Message: 'Недостаточно средств на карте',
      });
      expect(result).toMatchObject({
        type: 'payment.failed',
        eventId: '8111987112:REJECTED',
        payload: expect.objectContaining({ Success: false, ErrorCode: '1051' }),
      });
    });

    it('accepts a string PaymentId and a numeric OrderId', () => {
      expect(normalize({ ...CONFIRMED, PaymentId: '3367515924', OrderId: 21090 })).toMatchObject({
        paymentRef: '3367515924',
        merchantRef: '21090',
      });
    });

    it('leaves amount and currency out when the notification has no Amount', () => {
      const { Amount: _amount, ...noAmount } = CONFIRMED;
      const result = normalize(noAmount);
      expect(result.amount).toBeUndefined();
      expect(result.currency).toBeUndefined();
    });

    it.each([
      ['no PaymentId', { PaymentId: undefined }, /PaymentId must be/],
      ['a negative PaymentId', { PaymentId: -5 }, /PaymentId must be/],
      ['an empty PaymentId', { PaymentId: '' }, /PaymentId must be/],
      ['a fractional Amount', { Amount: 10.5 }, /Amount must be a whole/],
      ['a string Amount', { Amount: '100' }, /Amount must be a whole/],
      ['an Amount beyond 2^53', { Amount: 2 ** 60 }, /Amount must be a whole/],
      ['no Status', { Status: undefined }, /^T-Bank notification is not valid: Status/],
      ['no TerminalKey', { TerminalKey: undefined }, /TerminalKey/],
      ['a string Success', { Success: 'true' }, /Success must be a boolean/],
      [
        'a PARTIAL_REFUNDED without Amount',
        { Status: 'PARTIAL_REFUNDED', Amount: undefined },
        /a PARTIAL_REFUNDED notification must carry Amount/,
      ],
    ])('refuses a notification with %s', (_label, change, message) => {
      const error = rejection(() => normalize({ ...CONFIRMED, ...change }));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(message);
    });
  });
});
