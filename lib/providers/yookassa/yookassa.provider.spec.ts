import { createSourceAllowlist } from '../../core/source-allowlist';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import {
  YOOKASSA_ORDER_ID,
  YOOKASSA_PAYMENT_ID,
  YOOKASSA_REFUND_ID,
  yookassaDeal,
  yookassaPayment,
  yookassaPayout,
  yookassaRefund,
} from './yookassa.fixtures';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { YOOKASSA_IP_RANGES, YooKassaEndpointOptions, yookassaEndpoint } from './yookassa.provider';
import { rejection } from '../../spec-support/rejection';

const API = {
  shopId: '100500',
  secretKey: 'test_Fh8hUAVVBGUGbjmlzba6TB0iyUbos_lueTHE-axOwM0',
};
const CREDENTIALS = { api: API };
const LOCAL = { verifyWithProvider: false, allowedIps: ['127.0.0.1', '::1'] };

function delivery(body: string | Buffer): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers: { 'content-type': 'application/json' },
    receivedAt: new Date(),
  };
}

function notificationBody(event: string, object: unknown): string {
  return JSON.stringify({ type: 'notification', event, object });
}

function provider(options: Partial<YooKassaEndpointOptions> = {}): WebhookProvider {
  return yookassaEndpoint({ name: 'yookassa', ...LOCAL, ...options }).provider;
}

function normalize(
  event: string,
  object: unknown,
  options: Partial<YooKassaEndpointOptions> = {},
): NormalizedNotification {
  const request = delivery(notificationBody(event, object));
  const yookassa = provider(options);
  yookassa.verify(request);
  const [notification] = notificationsOf(yookassa.normalize(request));
  return notification;
}

describe('yookassaEndpoint', () => {
  describe('source allowlist', () => {
    it('publishes the documented ranges', () => {
      expect([...YOOKASSA_IP_RANGES]).toEqual([
        '185.71.76.0/27',
        '185.71.77.0/27',
        '77.75.153.0/25',
        '77.75.156.11',
        '77.75.156.35',
        '77.75.154.128/25',
        '2a02:5180::/32',
      ]);
      expect(Object.isFrozen(YOOKASSA_IP_RANGES)).toBe(true);
    });

    it('every documented range builds a valid allowlist', () => {
      expect(() => createSourceAllowlist('yookassa', YOOKASSA_IP_RANGES)).not.toThrow();
    });

    it('allows only YooKassa addresses by default', () => {
      const endpoint = yookassaEndpoint({ name: 'yookassa', ...CREDENTIALS });
      const allowlist = endpoint.allowedSources!;
      for (const ip of [
        '185.71.76.0',
        '185.71.76.31',
        '185.71.77.17',
        '77.75.153.127',
        '77.75.156.11',
        '77.75.156.35',
        '77.75.154.200',
        '::ffff:185.71.76.5',
        '2a02:5180:0:1509::17',
        '2a02:5180:ffff::1',
      ]) {
        expect([ip, allowlist.allows(ip)]).toEqual([ip, true]);
      }
      for (const ip of [
        '185.71.76.32',
        '77.75.153.128',
        '77.75.156.12',
        '77.75.154.127',
        '127.0.0.1',
        '::1',
        '2a02:5181::1',
        undefined,
      ]) {
        expect([ip, allowlist.allows(ip)]).toEqual([ip, false]);
      }
    });

    it('uses the endpoint allowedIps instead when given', () => {
      const endpoint = yookassaEndpoint({
        name: 'yookassa',
        ...CREDENTIALS,
        allowedIps: ['10.0.0.0/8'],
      });
      expect(endpoint.allowedSources!.allows('10.1.2.3')).toBe(true);
      expect(endpoint.allowedSources!.allows('185.71.76.5')).toBe(false);
    });

    it('refuses a malformed allowedIps entry at startup', () => {
      expect(() =>
        yookassaEndpoint({ name: 'yookassa', ...CREDENTIALS, allowedIps: ['185.71.76.0/33'] }),
      ).toThrow(/allowedIps entry "185.71.76.0\/33" is not an IP address or CIDR range/);
    });
  });

  describe('configuration', () => {
    function configError(options: object): string {
      const error = rejection(() =>
        yookassaEndpoint({ name: 'yookassa', ...options } as YooKassaEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers exactly 200 with an empty body', () => {
      const endpoint = yookassaEndpoint({ name: 'yookassa', ...CREDENTIALS });
      expect(endpoint.provider.kind).toBe('yookassa');
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
    });

    it.each([201, 202, 204])('refuses acknowledgement status %p', (status) => {
      expect(configError({ ...CREDENTIALS, acknowledgement: { status } })).toMatch(
        /counts only exactly HTTP 200/,
      );
    });

    it.each([
      ['neither', {}],
      ['no secretKey', { api: { shopId: '100500' } }],
      ['no shopId', { api: { secretKey: API.secretKey } }],
    ])(
      'asks for api: { shopId, secretKey } (or verifyWithProvider: false) when %s is set',
      (_label, options) => {
        const message = configError(options);
        expect(message).toMatch(/set api: \{ shopId, secretKey \}/);
        expect(message).toMatch(/verifyWithProvider: false/);
        expect(configError({ ...options, verifyWithProvider: true })).toBe(message);
      },
    );

    it('needs no credentials with verifyWithProvider: false (allowlist alone)', () => {
      const endpoint = yookassaEndpoint({ name: 'yookassa', verifyWithProvider: false });
      expect(endpoint.verifyWithProvider).toBe(false);
      expect(endpoint.allowedSources!.allows('185.71.76.5')).toBe(true);
    });

    it.each([
      ['an empty shopId', { shopId: ' ', secretKey: 'test_x' }],
      ['a numeric shopId', { shopId: 100500 as unknown as string, secretKey: 'test_x' }],
      ['an empty secretKey', { shopId: '100500', secretKey: '' }],
      ['a secretKey with a trailing line break', { shopId: '100500', secretKey: 'test_x\n' }],
    ])('refuses %s without quoting the secret', (_label, api) => {
      const message = configError({ api, verifyWithProvider: false });
      expect(message).toMatch(/must be a non-empty string/);
      expect(message).not.toContain('test_x');
    });

    it.each([['ftp://api.yookassa.ru/v3'], ['api.yookassa.ru/v3'], [42]])(
      'refuses apiUrl %p',
      (apiUrl) => {
        expect(configError({ api: { ...API, apiUrl } })).toMatch(
          /api.apiUrl must be an http\(s\) URL/,
        );
      },
    );

    it('accepts an apiUrl of a local stub server', () => {
      expect(() =>
        yookassaEndpoint({ name: 'yookassa', api: { ...API, apiUrl: 'http://127.0.0.1:8089/v3' } }),
      ).not.toThrow();
    });

    it('names the credentials when the options are missing altogether', () => {
      expect(() => yookassaEndpoint(undefined as unknown as YooKassaEndpointOptions)).toThrow(
        /set api: \{ shopId, secretKey \}/,
      );
    });

    it('refuses an empty merchantRefKey', () => {
      expect(configError({ ...LOCAL, merchantRefKey: '' })).toMatch(
        /merchantRefKey must be a non-empty string/,
      );
    });
  });

  describe('verify', () => {
    it('accepts a well-formed notification whatever its headers or receive time', () => {
      const request = {
        rawBody: Buffer.from(notificationBody('payment.succeeded', yookassaPayment())),
        headers: {},
        receivedAt: new Date('2001-01-01T00:00:00Z'),
      };
      expect(() => provider().verify(request)).not.toThrow();
    });

    it.each([
      ['not JSON', 'type=notification'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0x7d])],
      ['a JSON array', '[]'],
      ['without type', JSON.stringify({ event: 'payment.succeeded', object: { id: 'x' } })],
      [
        'of another type',
        JSON.stringify({ type: 'event', event: 'payment.succeeded', object: { id: 'x' } }),
      ],
      ['without event', JSON.stringify({ type: 'notification', object: { id: 'x' } })],
      ['with an empty event', notificationBody('', { id: 'x' })],
      ['without object', JSON.stringify({ type: 'notification', event: 'payment.succeeded' })],
      ['with an array object', notificationBody('payment.succeeded', [{ id: 'x' }])],
      ['with an object without id', notificationBody('payment.succeeded', { status: 'succeeded' })],
      ['with an empty object id', notificationBody('payment.succeeded', { id: '' })],
      ['with a numeric object id', notificationBody('payment.succeeded', { id: 42 })],
    ])('refuses a body %s with WebhookPayloadError', (_label, body) => {
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
      });
    });
  });

  describe('normalize', () => {
    it('maps payment.succeeded with every field a handler reads', () => {
      const object = yookassaPayment('succeeded');
      expect(normalize('payment.succeeded', object)).toEqual({
        eventId: `payment.succeeded:${YOOKASSA_PAYMENT_ID}`,
        type: 'payment.succeeded',
        nativeType: 'payment.succeeded',
        paymentRef: YOOKASSA_PAYMENT_ID,
        merchantRef: YOOKASSA_ORDER_ID,
        amount: 10000,
        currency: 'RUB',
        status: 'succeeded',
        occurredAt: new Date('2025-03-14T09:16:05.104Z'),
        payload: { type: 'notification', event: 'payment.succeeded', object },
      });
    });

    it('maps payment.waiting_for_capture to payment.authorized', () => {
      expect(
        normalize('payment.waiting_for_capture', yookassaPayment('waiting_for_capture')),
      ).toMatchObject({
        type: 'payment.authorized',
        eventId: `payment.waiting_for_capture:${YOOKASSA_PAYMENT_ID}`,
        status: 'waiting_for_capture',
        paymentRef: YOOKASSA_PAYMENT_ID,
        occurredAt: new Date('2025-03-14T09:15:32.318Z'),
      });
    });

    it('maps payment.canceled to payment.canceled, dated by created_at', () => {
      expect(normalize('payment.canceled', yookassaPayment('canceled'))).toMatchObject({
        type: 'payment.canceled',
        eventId: `payment.canceled:${YOOKASSA_PAYMENT_ID}`,
        status: 'canceled',
        amount: 10000,
        occurredAt: new Date('2025-03-14T09:15:32.318Z'),
      });
    });

    it('maps refund.succeeded to refund.succeeded, referring to the refunded payment', () => {
      expect(normalize('refund.succeeded', yookassaRefund())).toMatchObject({
        type: 'refund.succeeded',
        nativeType: 'refund.succeeded',
        eventId: `refund.succeeded:${YOOKASSA_REFUND_ID}`,
        paymentRef: YOOKASSA_PAYMENT_ID,
        merchantRef: undefined,
        amount: 10000,
        currency: 'RUB',
        status: 'succeeded',
        occurredAt: new Date('2025-03-15T11:02:47.517Z'),
      });
    });

    it.each([
      ['payout.succeeded', yookassaPayout(), 32000],
      ['payout.canceled', yookassaPayout({ status: 'canceled' }), 32000],
      ['deal.closed', yookassaDeal(), undefined],
      ['payment_method.active', { id: '2f6c0d7a-000f-5000-8000-1a2b3c4d5e6f' }, undefined],
      ['payment.pending', yookassaPayment('pending'), 10000],
    ])('keeps %s as yookassa:<event>, with no payment reference', (event, object, amount) => {
      const result = normalize(event, object);
      expect(result).toMatchObject({
        type: `yookassa:${event}`,
        nativeType: event,
        eventId: `${event}:${(object as { id: string }).id}`,
        amount,
      });
      if (!event.startsWith('payment.')) {
        expect(result.paymentRef).toBeUndefined();
      }
    });

    it('reads the order id from the configured metadata key', () => {
      const object = yookassaPayment('succeeded', { metadata: { order_id: 'A-77' } });
      expect(normalize('payment.succeeded', object).merchantRef).toBeUndefined();
      expect(
        normalize('payment.succeeded', object, { merchantRefKey: 'order_id' }).merchantRef,
      ).toBe('A-77');
    });

    it.each([
      ['100.00', 'RUB', 10000],
      ['0.01', 'RUB', 1],
      ['2.5', 'RUB', 250],
      ['7', 'RUB', 700],
      ['1000000.10', 'USD', 100000010],
      ['0.29', 'RUB', 29],
      ['1.000000', 'RUB', 100],
      ['90071992547409.91', 'RUB', 9007199254740991],
      ['1500', 'JPY', 1500],
      ['12.345', 'KWD', 12345],
      ['100.00', 'rub', 10000],
    ])('converts amount %s %s to %p minor units exactly', (value, currency, minor) => {
      const object = yookassaPayment('succeeded', { amount: { value, currency } });
      expect(normalize('payment.succeeded', object)).toMatchObject({
        amount: minor,
        currency: currency.toUpperCase(),
      });
    });

    it.each([
      ['a negative value', { value: '-1.00', currency: 'RUB' }],
      ['a comma decimal', { value: '100,00', currency: 'RUB' }],
      ['exponent notation', { value: '1e3', currency: 'RUB' }],
      ['a numeric value', { value: 100, currency: 'RUB' }],
      ['sub-kopeck digits', { value: '1.001', currency: 'RUB' }],
      ['a value beyond exact numbers', { value: '90071992547409.92', currency: 'RUB' }],
      ['no currency', { value: '100.00' }],
      ['an unknown currency', { value: '100.00', currency: 'RUBLES' }],
    ])('refuses an amount with %s', (_label, amount) => {
      const body = notificationBody(
        'payment.succeeded',
        yookassaPayment('succeeded', { amount } as never),
      );
      const error = rejection(() => provider().normalize(delivery(body)));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^YooKassa notification (amount|object) is not valid/);
    });

    it('ignores an unparseable date rather than inventing one', () => {
      const object = yookassaPayment('canceled', { created_at: 'yesterday' });
      expect(normalize('payment.canceled', object).occurredAt).toBeUndefined();
    });

    it('keys a re-delivery of the same event alike and different events apart', () => {
      const succeeded = normalize('payment.succeeded', yookassaPayment('succeeded'));
      const again = normalize(
        'payment.succeeded',
        yookassaPayment('succeeded', { description: 'changed' }),
      );
      const authorized = normalize(
        'payment.waiting_for_capture',
        yookassaPayment('waiting_for_capture'),
      );
      expect(again.eventId).toBe(succeeded.eventId);
      expect(authorized.eventId).not.toBe(succeeded.eventId);
    });
  });
});
