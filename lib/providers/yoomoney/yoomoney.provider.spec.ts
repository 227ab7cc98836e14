import { createHash } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { YooMoneyEndpointOptions, yoomoneyEndpoint } from './yoomoney.provider';
import { rejection } from '../../spec-support/rejection';

// NOTE: YooMoney publishes no SDK for Node. This is the vector from the YooMoney docs
// (providers.md §4b), recomputed below with node:crypto.
const DOCS_SECRET = '01234567890ABCDEF01234567890';
const DOCS_STRING =
  'p2p-incoming&1234567&300.00&643&2011-07-01T09:00:00.000+04:00&41001XXXXXXXX&false' +
  '&01234567890ABCDEF01234567890&YM.label.12345';
const DOCS_HASH = 'a2ee4a9195f4a90e893cff4f62eeba0b662321f9';
const DOCS_BODY =
  'notification_type=p2p-incoming&bill_id=&amount=300.00&datetime=2011-07-01T09%3A00%3A00.000%2B04%3A00' +
  `&codepro=false&sender=41001XXXXXXXX&sha1_hash=${DOCS_HASH}&test_notification=false` +
  '&operation_label=&operation_id=1234567&currency=643&label=YM.label.12345' +
  '&withdraw_amount=301.51&unaccepted=false';

const SECRET = 'ym_notification_secret';
const OLD_SECRET = 'ym_previous_secret';

function sha1(text: string): string {
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

function independentHash(fields: Record<string, string>, secret: string): string {
  const names = ['notification_type', 'operation_id', 'amount', 'currency', 'datetime'];
  const get = (name: string) => fields[name] ?? '';
  return sha1([...names.map(get), get('sender'), get('codepro'), secret, get('label')].join('&'));
}

function signedBody(fields: Record<string, string>, secret = SECRET): string {
  return new URLSearchParams({ ...fields, sha1_hash: independentHash(fields, secret) }).toString();
}

function delivery(body: string | Buffer): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    receivedAt: new Date(),
  };
}

function provider(options: Partial<YooMoneyEndpointOptions> = {}): WebhookProvider {
  return yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRET, ...options }).provider;
}

const P2P = {
  notification_type: 'p2p-incoming',
  operation_id: '904035776918098009',
  amount: '995.00',
  withdraw_amount: '1000.00',
  currency: '643',
  datetime: '2024-05-17T10:15:30Z',
  sender: '41001000040',
  codepro: 'false',
  label: 'order-1042',
  unaccepted: 'false',
};

describe('yoomoneyEndpoint', () => {
  describe('verify', () => {
    it('recomputes the documented vector independently', () => {
      expect(sha1(DOCS_STRING)).toBe(DOCS_HASH);
    });

    it('accepts the documented notification', () => {
      expect(() =>
        provider({ notificationSecret: DOCS_SECRET }).verify(delivery(DOCS_BODY)),
      ).not.toThrow();
    });

    it('accepts an upper-case sha1_hash', () => {
      const body = DOCS_BODY.replace(DOCS_HASH, DOCS_HASH.toUpperCase());
      expect(() =>
        provider({ notificationSecret: DOCS_SECRET }).verify(delivery(body)),
      ).not.toThrow();
    });

    it('hashes a card payment with an empty sender and a missing label as empty strings', () => {
      const { label: _label, ...card } = {
        ...P2P,
        notification_type: 'card-incoming',
        sender: '',
      };
      expect(() => provider().verify(delivery(signedBody(card)))).not.toThrow();
    });

    it('hashes the values as sent: "300.00" is not "300"', () => {
      const body = signedBody({ ...P2P, amount: '300.00' }).replace('amount=300.00', 'amount=300');
      expect(rejection(() => provider().verify(delivery(body))).reason).toBe('bad_signature');
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ notificationSecret: [OLD_SECRET, SECRET] });
      expect(() => rotating.verify(delivery(signedBody(P2P, SECRET)))).not.toThrow();
      expect(() => rotating.verify(delivery(signedBody(P2P, OLD_SECRET)))).not.toThrow();
    });

    it.each([
      ['amount', DOCS_BODY.replace('amount=300.00', 'amount=3000.00')],
      ['label', DOCS_BODY.replace('YM.label.12345', 'YM.label.12346')],
      ['codepro', DOCS_BODY.replace('codepro=false', 'codepro=true')],
      ['sender', DOCS_BODY.replace('41001XXXXXXXX', '41001YYYYYYYY')],
    ])('rejects a notification whose %s was changed', (_label, body) => {
      expect(
        rejection(() => provider({ notificationSecret: DOCS_SECRET }).verify(delivery(body))),
      ).toEqual({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
        message: 'sha1_hash does not match the YooMoney notification and the notification secret',
      });
    });

    it('does not cover withdraw_amount and unaccepted, as YooMoney does not', () => {
      const body = DOCS_BODY.replace('withdraw_amount=301.51', 'withdraw_amount=1.00');
      expect(() =>
        provider({ notificationSecret: DOCS_SECRET }).verify(delivery(body)),
      ).not.toThrow();
    });

    it('rejects a hash made with another secret, without echoing secret or hash', () => {
      const error = rejection(() => provider().verify(delivery(DOCS_BODY)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(DOCS_HASH);
      expect(error.message).not.toContain(SECRET);
    });

    it('has no timestamp window: a notification from 2011 still verifies', () => {
      const request = { ...delivery(DOCS_BODY), receivedAt: new Date('2030-01-01T00:00:00Z') };
      expect(() => provider({ notificationSecret: DOCS_SECRET }).verify(request)).not.toThrow();
    });

    it.each([
      ['absent', DOCS_BODY.replace(`&sha1_hash=${DOCS_HASH}`, '')],
      ['empty', DOCS_BODY.replace(DOCS_HASH, '')],
    ])('rejects a notification whose sha1_hash is %s as missing_signature', (_label, body) => {
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        reason: 'missing_signature',
        message: 'YooMoney notification has no sha1_hash',
      });
    });

    it.each([
      ['not hex', 'g'.repeat(40)],
      ['a SHA-256', 'a'.repeat(64)],
    ])('rejects a sha1_hash that is %s as bad_signature', (_label, hash) => {
      expect(
        rejection(() => provider().verify(delivery(DOCS_BODY.replace(DOCS_HASH, hash)))),
      ).toMatchObject({
        reason: 'bad_signature',
        message: 'Malformed sha1_hash in the YooMoney notification: expected 40 hex digits',
      });
    });

    it('refuses a notification missing a hashed field', () => {
      const body = DOCS_BODY.replace('&codepro=false', '');
      expect(rejection(() => provider().verify(delivery(body)))).toEqual({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
        message: 'YooMoney notification is not valid: codepro is missing',
      });
    });

    it('refuses a field given twice', () => {
      const body = `${DOCS_BODY}&label=other`;
      expect(rejection(() => provider().verify(delivery(body)))).toMatchObject({
        name: 'WebhookPayloadError',
        message: expect.stringMatching(/"label" more than once/),
      });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<YooMoneyEndpointOptions>): string {
      const error = rejection(() =>
        yoomoneyEndpoint({ name: 'yoomoney', ...options } as YooMoneyEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers exactly 200 with an empty body, to POST only', () => {
      const endpoint = yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: SECRET });
      expect(endpoint.provider.kind).toBe('yoomoney');
      expect(endpoint.provider.methods).toBeUndefined();
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
    });

    it('requires a notificationSecret and refuses blank ones', () => {
      expect(configError({})).toMatch(/"yoomoney" \(yoomoney\) has no usable notificationSecret/);
      expect(configError({ notificationSecret: [SECRET, ''] })).not.toContain(SECRET);
    });

    it.each([201, 204])('refuses acknowledgement status %p', (status) => {
      expect(configError({ notificationSecret: SECRET, acknowledgement: { status } })).toMatch(
        /counts only exactly HTTP 200 as delivered/,
      );
    });
  });

  describe('normalize', () => {
    function normalize(fields: Record<string, string>): NormalizedNotification {
      return notificationsOf(provider().normalize(delivery(signedBody(fields))))[0];
    }

    it('maps the documented notification to payment.succeeded, keyed by operation_id', () => {
      const result = notificationsOf(
        provider({ notificationSecret: DOCS_SECRET }).normalize(delivery(DOCS_BODY)),
      )[0];
      expect(result).toEqual({
        eventId: '1234567',
        type: 'payment.succeeded',
        nativeType: 'p2p-incoming',
        paymentRef: '1234567',
        merchantRef: 'YM.label.12345',
        amount: 30000,
        currency: 'RUB',
        occurredAt: new Date('2011-07-01T05:00:00.000Z'),
        occurredAtSigned: true,
        payload: Object.fromEntries(new URLSearchParams(DOCS_BODY)),
      });
    });

    it('marks datetime as signed: sha1_hash covers it, so it bounds a replay', () => {
      const result = normalize(P2P);
      expect(result.occurredAtSigned).toBe(true);
      expect(result.occurredAt).toEqual(new Date(P2P.datetime));
    });

    it('stores the credited amount, not what the payer paid', () => {
      expect(normalize(P2P)).toMatchObject({ amount: 99500 });
      expect((normalize(P2P).payload as Record<string, string>).withdraw_amount).toBe('1000.00');
    });

    it('maps card-incoming to payment.succeeded', () => {
      expect(normalize({ ...P2P, notification_type: 'card-incoming', sender: '' })).toMatchObject({
        type: 'payment.succeeded',
        nativeType: 'card-incoming',
        eventId: P2P.operation_id,
      });
    });

    it('maps another notification type to yoomoney:<type>', () => {
      expect(normalize({ ...P2P, notification_type: 'p2p-outgoing' })).toMatchObject({
        type: 'yoomoney:p2p-outgoing',
        nativeType: 'p2p-outgoing',
      });
    });

    it.each([
      ['unaccepted=true', { unaccepted: 'true' }],
      ['codepro=true', { codepro: 'true' }],
    ])('maps a transfer not credited yet (%s) to yoomoney:unaccepted, never a success', (_l, f) => {
      expect(normalize({ ...P2P, ...f })).toMatchObject({
        type: 'yoomoney:unaccepted',
        nativeType: 'unaccepted',
        eventId: `${P2P.operation_id}:unaccepted`,
        merchantRef: 'order-1042',
      });
    });

    it('keeps the credited notification of an operation apart from its unaccepted one', () => {
      const pending = normalize({ ...P2P, unaccepted: 'true' });
      const credited = normalize(P2P);
      expect(pending.eventId).not.toBe(credited.eventId);
      expect(credited).toMatchObject({ type: 'payment.succeeded', eventId: P2P.operation_id });
    });

    it('maps a test from the wallet settings to yoomoney:test_notification', () => {
      expect(
        normalize({
          ...P2P,
          operation_id: 'test-notification',
          label: '',
          test_notification: 'true',
        }),
      ).toMatchObject({
        type: 'yoomoney:test_notification',
        nativeType: 'test_notification',
        eventId: 'test-notification',
        merchantRef: undefined,
      });
    });

    it.each([
      ['300', 30000],
      ['300.5', 30050],
      ['0.01', 1],
      ['12345678.99', 1234567899],
    ])('reads amount %s as %p kopecks', (amount, kopecks) => {
      expect(normalize({ ...P2P, amount }).amount).toBe(kopecks);
    });

    it('leaves the currency out for anything but 643', () => {
      expect(normalize({ ...P2P, currency: '840' }).currency).toBeUndefined();
    });

    it('leaves occurredAt out when datetime does not parse', () => {
      expect(normalize({ ...P2P, datetime: 'yesterday' }).occurredAt).toBeUndefined();
    });

    it.each([
      ['a comma amount', { amount: '300,00' }, /amount must be roubles/],
      ['three decimals', { amount: '1.005' }, /amount must be roubles/],
      ['a negative amount', { amount: '-1.00' }, /amount must be roubles/],
      ['an empty operation_id', { operation_id: '' }, /operation_id is missing or empty/],
      ['an empty notification_type', { notification_type: '' }, /notification_type is missing/],
      ['an empty datetime', { datetime: '' }, /datetime is missing or empty/],
    ])('refuses a notification with %s', (_label, change, message) => {
      const error = rejection(() => normalize({ ...P2P, ...change }));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^YooMoney notification is not valid: /);
      expect(error.message).toMatch(message);
    });
  });
});
