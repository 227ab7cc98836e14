import { notificationsOf } from '../notifications';
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { WebhookConfigurationError, WebhookPayloadError } from '../../core/webhook-errors';
import { signStandardWebhook } from './standard-webhooks.signer';
import {
  StandardWebhooksEndpointOptions,
  StandardWebhooksProvider,
  standardWebhooksEndpoint,
} from './standard-webhooks.provider';
import { InboundWebhook, WebhookProvider } from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

// The documented vector from the Standard Webhooks and Svix test suites.
const VECTOR = {
  secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
  id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
  timestamp: 1614265330,
  payload: '{"test": 2432232314}',
  signature: 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
};
const SECRET = VECTOR.secret;
const OTHER_SECRET = 'whsec_' + Buffer.from('another secret of 24 byte').toString('base64');
const NOW = 1_700_000_000;
const MSG_ID = 'msg_2b7f';

function delivery(
  payload: string | Buffer,
  headers: Record<string, string>,
  receivedAtSeconds = NOW,
): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(payload) ? payload : Buffer.from(payload, 'utf8'),
    headers,
    receivedAt: new Date(receivedAtSeconds * 1000),
  };
}

/** Headers as a Standard Webhooks sender sends them, signed by the official library. */
function officialHeaders(payload: string, secret = SECRET, timestamp = NOW, id = MSG_ID) {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': new Webhook(secret).sign(id, new Date(timestamp * 1000), payload),
  };
}

function provider(options: Partial<StandardWebhooksEndpointOptions> = {}): WebhookProvider {
  return standardWebhooksEndpoint({ name: 'acme', secret: SECRET, ...options }).provider;
}

const PAYMENT = JSON.stringify({
  type: 'payment.succeeded',
  timestamp: '2023-11-14T22:13:20.000Z',
  data: { orderId: 'order-42', paymentId: 'pay_9', amount: 1250, currency: 'eur', status: 'paid' },
});

describe('standardWebhooksEndpoint', () => {
  describe('verify', () => {
    it('accepts the documented vector (received near its timestamp)', () => {
      const request = delivery(
        VECTOR.payload,
        {
          'webhook-id': VECTOR.id,
          'webhook-timestamp': String(VECTOR.timestamp),
          'webhook-signature': VECTOR.signature,
        },
        VECTOR.timestamp + 10,
      );
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts a delivery signed by the official standardwebhooks signer', () => {
      expect(() => provider().verify(delivery(PAYMENT, officialHeaders(PAYMENT)))).not.toThrow();
    });

    it('accepts a secret configured without the whsec_ prefix', () => {
      const bare = provider({ secret: SECRET.slice('whsec_'.length) });
      expect(() => bare.verify(delivery(PAYMENT, officialHeaders(PAYMENT)))).not.toThrow();
    });

    it('accepts the svix-* header names and prefers them over webhook-*', () => {
      const signed = officialHeaders(PAYMENT);
      const svix = {
        'svix-id': signed['webhook-id'],
        'svix-timestamp': signed['webhook-timestamp'],
        'svix-signature': signed['webhook-signature'],
      };
      expect(() => provider().verify(delivery(PAYMENT, svix))).not.toThrow();
      const conflicting = { ...svix, 'webhook-id': 'msg_other', 'webhook-signature': 'v1,AAAA' };
      expect(() => provider().verify(delivery(PAYMENT, conflicting))).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      for (const secret of [SECRET, OTHER_SECRET]) {
        expect(() =>
          rotating.verify(delivery(PAYMENT, officialHeaders(PAYMENT, secret))),
        ).not.toThrow();
      }
    });

    it('accepts a header with two v1 entries of which one matches, skipping v1a', () => {
      const current = officialHeaders(PAYMENT)['webhook-signature'];
      const stale = officialHeaders(PAYMENT, OTHER_SECRET)['webhook-signature'];
      const asymmetric =
        'v1a,hnO3f9T8Ytu9HwrXslvumlUpqtNVqkhqw/enGzPCXe5BdqzCInXqYXFymVJaA7AZdpXwVLPo3mNl8EM+m7TBAg==';
      for (const header of [
        `${stale} ${current}`,
        `${current} ${stale}`,
        `${asymmetric} ${stale} ${current}`,
      ]) {
        const headers = { ...officialHeaders(PAYMENT), 'webhook-signature': header };
        expect(() => provider().verify(delivery(PAYMENT, headers))).not.toThrow();
      }
    });

    it('rejects a header whose only entries are not v1', () => {
      const signature = officialHeaders(PAYMENT)['webhook-signature'].slice('v1,'.length);
      const headers = {
        ...officialHeaders(PAYMENT),
        'webhook-signature': `v1a,${signature} v2,${signature}`,
      };
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('rejects a body changed by one byte', () => {
      const tampered = Buffer.from(PAYMENT, 'utf8');
      tampered[tampered.indexOf('1250')] = '9'.charCodeAt(0);
      expect(
        rejection(() => provider().verify(delivery(tampered, officialHeaders(PAYMENT)))),
      ).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('rejects a changed webhook-id, since the id is signed', () => {
      const headers = { ...officialHeaders(PAYMENT), 'webhook-id': 'msg_replayed' };
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const error = rejection(() =>
        provider().verify(delivery(PAYMENT, officialHeaders(PAYMENT, OTHER_SECRET))),
      );
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(officialHeaders(PAYMENT)['webhook-signature'].slice(3));
      expect(error.message).not.toContain(SECRET.slice(6));
    });

    it.each([
      ['too old', NOW - 301],
      ['too new', NOW + 301],
    ])('rejects a timestamp %s by tolerance + 1', (_label, timestamp) => {
      expect(
        rejection(() =>
          provider().verify(delivery(PAYMENT, officialHeaders(PAYMENT, SECRET, timestamp))),
        ),
      ).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
    });

    it.each([
      ['old', NOW - 299],
      ['new', NOW + 299],
    ])('accepts a timestamp that is %s by tolerance - 1', (_label, timestamp) => {
      expect(() =>
        provider().verify(delivery(PAYMENT, officialHeaders(PAYMENT, SECRET, timestamp))),
      ).not.toThrow();
    });

    it('honours a custom tolerance, and 0 switches the window off', () => {
      const request = delivery(PAYMENT, officialHeaders(PAYMENT, SECRET, NOW - 3600));
      expect(rejection(() => provider({ toleranceSeconds: 60 }).verify(request))).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
      expect(() => provider({ toleranceSeconds: 0 }).verify(request)).not.toThrow();
    });

    it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
      'rejects a delivery without %s as missing_signature',
      (name) => {
        const headers: Record<string, string> = officialHeaders(PAYMENT);
        delete headers[name];
        const error = rejection(() => provider().verify(delivery(PAYMENT, headers)));
        expect(error.reason).toBe('missing_signature');
        expect(error.message).toContain(name);
      },
    );

    it.each([
      ['an id with a dot', { 'webhook-id': 'msg.1' }],
      ['a non-integer timestamp', { 'webhook-timestamp': `${NOW}.5` }],
      ['a word for a timestamp', { 'webhook-timestamp': 'now' }],
      [
        'a signature without version',
        { 'webhook-signature': 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=' },
      ],
      ['a v1 entry that is not base64', { 'webhook-signature': 'v1,not*base64!' }],
      ['an empty v1 entry', { 'webhook-signature': 'v1,' }],
    ])('rejects %s as bad_signature', (_label, override) => {
      const headers = { ...officialHeaders(PAYMENT), ...override };
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
        reason: 'bad_signature',
      });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<StandardWebhooksEndpointOptions>): string {
      const error = rejection(() =>
        standardWebhooksEndpoint({ name: 'acme', ...options } as StandardWebhooksEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with the provider kind and an empty 200', () => {
      const endpoint = standardWebhooksEndpoint({ name: 'acme', secret: SECRET, kind: 'acme' });
      expect(endpoint.provider).toBeInstanceOf(StandardWebhooksProvider);
      expect(endpoint.provider.kind).toBe('acme');
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
      expect(standardWebhooksEndpoint({ name: 'x', secret: SECRET }).provider.kind).toBe(
        'standard',
      );
    });

    it('requires a secret and refuses blank ones', () => {
      expect(configError({ secret: undefined })).toMatch(/no usable secret/);
      expect(configError({ secret: ' ' })).toMatch(/no usable secret/);
      expect(configError({ secret: [SECRET, ''] })).toMatch(/no usable secret/);
    });

    it.each([
      ['not base64', 'whsec_not-base64_at*all'],
      ['unpadded base64', 'whsec_YWI'],
      ['nothing after the prefix', 'whsec_'],
      ['whitespace inside', 'whsec_MfKQ9r8GKYqr TwjUPD8ILPZIo2LaLaSw'],
    ])('refuses a malformed whsec_ secret (%s) and names the fix', (_label, secret) => {
      const message = configError({ secret });
      expect(message).toMatch(/malformed whsec_ secret/);
      expect(message).toMatch(/copy the secret exactly as the sender shows it/);
      const secretPart = secret.slice('whsec_'.length);
      if (secretPart.length > 0) {
        expect(message).not.toContain(secretPart);
      }
    });

    it('says which entry of a rotation list is malformed', () => {
      expect(configError({ secret: [SECRET, 'whsec_%%%%'] })).toMatch(/secret\[1\] is a malformed/);
    });

    it.each(['', 'a:b', 'has space'])('refuses kind %p', (kind) => {
      expect(configError({ secret: SECRET, kind })).toMatch(/kind must be/);
    });

    it('refuses a negative tolerance', () => {
      expect(configError({ secret: SECRET, toleranceSeconds: -5 })).toMatch(
        /toleranceSeconds must be/,
      );
    });

    it('refuses an endpoint name that cannot be used in a URL', () => {
      expect(configError({ name: 'acme/hooks', secret: SECRET })).toMatch(/is not usable in a URL/);
    });
  });

  describe('normalize', () => {
    function normalize(
      payload: string,
      options: Partial<StandardWebhooksEndpointOptions> = {},
      id = MSG_ID,
    ) {
      return notificationsOf(
        provider(options).normalize(delivery(payload, { 'webhook-id': id })),
      )[0];
    }

    it('takes the event id from webhook-id and fields from data', () => {
      const result = normalize(PAYMENT);
      expect(result).toMatchObject({
        eventId: MSG_ID,
        type: 'payment.succeeded',
        nativeType: 'payment.succeeded',
        merchantRef: 'order-42',
        paymentRef: 'pay_9',
        amount: 1250,
        currency: 'EUR',
        status: 'paid',
        occurredAt: new Date('2023-11-14T22:13:20.000Z'),
      });
      expect(result.payload).toEqual(JSON.parse(PAYMENT));
    });

    it('takes the event id from svix-id too', () => {
      const result = notificationsOf(
        provider().normalize(delivery(PAYMENT, { 'svix-id': 'msg_svix' })),
      )[0];
      expect(result.eventId).toBe('msg_svix');
    });

    it.each([
      ['payment.succeeded', 'standard', 'payment.succeeded'],
      ['refund.failed', 'standard', 'refund.failed'],
      ['dispute.opened', 'acme', 'dispute.opened'],
      ['invoice.paid', 'standard', 'standard:invoice.paid'],
      ['payment.refunded', 'acme', 'acme:payment.refunded'],
    ])('maps type %s (kind %s) to %s', (type, kind, expected) => {
      const result = normalize(JSON.stringify({ type, data: {} }), { kind });
      expect(result.type).toBe(expected);
      expect(result.nativeType).toBe(type);
    });

    it('reads a numeric order id and leaves out what is absent or invalid', () => {
      const payload = JSON.stringify({
        type: 'payment.failed',
        timestamp: 'yesterday',
        data: { orderId: 1042, amount: 12.5 },
      });
      const result = normalize(payload);
      expect(result.merchantRef).toBe('1042');
      expect(result.amount).toBeUndefined();
      expect(result.occurredAt).toBeUndefined();
      expect(result.paymentRef).toBeUndefined();
      expect(normalize(JSON.stringify({ type: 'ping' })).merchantRef).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"type":'],
      ['a JSON array', '[{"type":"payment.succeeded"}]'],
      ['without type', JSON.stringify({ data: {} })],
      ['with a numeric type', JSON.stringify({ type: 3 })],
      ['with data an array', JSON.stringify({ type: 'x', data: [] })],
      ['with a numeric timestamp', JSON.stringify({ type: 'x', timestamp: 1700000000 })],
    ])('throws WebhookPayloadError for a body %s', (_label, body) => {
      expect(() => normalize(body)).toThrow(WebhookPayloadError);
    });

    it('throws WebhookPayloadError when there is no webhook-id to use as event id', () => {
      expect(() => provider().normalize(delivery(PAYMENT, {}))).toThrow(WebhookPayloadError);
    });
  });

  describe('signStandardWebhook', () => {
    it('produces the documented vector', () => {
      const headers = signStandardWebhook({
        id: VECTOR.id,
        payload: VECTOR.payload,
        secret: VECTOR.secret,
        timestamp: VECTOR.timestamp,
      });
      expect(headers).toEqual({
        'webhook-id': VECTOR.id,
        'webhook-timestamp': String(VECTOR.timestamp),
        'webhook-signature': VECTOR.signature,
      });
    });

    it('produces the same signature as the official signer', () => {
      for (const [payload, secret, timestamp] of [
        [PAYMENT, SECRET, NOW],
        ['{"note":"Café ☕"}', OTHER_SECRET, 1234567890],
      ] as const) {
        const ours = signStandardWebhook({ id: MSG_ID, payload, secret, timestamp });
        expect(ours).toEqual(officialHeaders(payload, secret, timestamp));
      }
    });

    it('is accepted by the verifier and by the official verifier', () => {
      const headers = signStandardWebhook({ id: MSG_ID, payload: PAYMENT, secret: SECRET });
      const now = Math.floor(Date.now() / 1000);
      expect(() => provider().verify(delivery(PAYMENT, headers, now))).not.toThrow();
      expect(new Webhook(SECRET).verify(PAYMENT, headers)).toEqual(JSON.parse(PAYMENT));
    });

    it('can emit the svix-* header names', () => {
      const headers = signStandardWebhook({
        id: MSG_ID,
        payload: PAYMENT,
        secret: SECRET,
        timestamp: NOW,
        headerPrefix: 'svix',
      });
      expect(Object.keys(headers).sort()).toEqual(['svix-id', 'svix-signature', 'svix-timestamp']);
      expect(() => provider().verify(delivery(PAYMENT, headers))).not.toThrow();
    });

    it('signs Buffer payloads byte for byte', () => {
      const bytes = Buffer.from(PAYMENT, 'utf8');
      const headers = signStandardWebhook({
        id: MSG_ID,
        payload: bytes,
        secret: SECRET,
        timestamp: NOW,
      });
      const key = Buffer.from(SECRET.slice(6), 'base64');
      const expected = createHmac('sha256', key)
        .update(Buffer.concat([Buffer.from(`${MSG_ID}.${NOW}.`), bytes]))
        .digest('base64');
      expect(headers['webhook-signature']).toBe(`v1,${expected}`);
    });
  });
});
