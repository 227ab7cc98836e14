import { Webhook } from 'standardwebhooks';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { polarFixtures } from './polar.fixtures';
import { PolarEndpointOptions, polarEndpoint } from './polar.provider';
import { signPolarDelivery } from './polar.signer';

// NOTE: the SDK's webhooks entry is found through its package exports, which this project's
// TypeScript resolution does not read; the types come from the CommonJS build's own path.
const { validateEvent } =
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  require('@polar-sh/sdk/webhooks') as typeof import('@polar-sh/sdk/dist/commonjs/webhooks');

// NOTE: an older endpoint's secret (whsec_ + 43-character token, signed with its UTF-8 bytes)
// and a newer one in the spec's form (whsec_ + base64 of 32 bytes, signed with those bytes).
const UTF8_SECRET = 'whsec_q7Xv2b9LkP0sYc4Nw8Zt1Hd6Rf3Jm5Ga_Ue-Qo2Vy8I';
const STANDARD_SECRET = `whsec_${Buffer.alloc(32, 0x5c).toString('base64')}`;
const OTHER_SECRET = 'whsec_Zp3yN8bVf5kEw0uH_cQ4TaLm2Rx7Ds1Gk9Wj6Yb0Pq';
const NOW = 1_790_000_000;
const EVENT_ID = '8a3e3c4f-6d2b-4a51-9f0e-2c6b1d7e9a40';

/**
 * Headers signed by the official standardwebhooks library the way Polar's server signs: the
 * spec secret as is, an older secret as the base64 of its UTF-8 bytes.
 */
function polarHeaders(
  body: string,
  secret = UTF8_SECRET,
  { id = EVENT_ID, at = NOW, scheme = 'utf8' }: { id?: string; at?: number; scheme?: string } = {},
): Record<string, string> {
  const key = scheme === 'utf8' ? Buffer.from(secret, 'utf8').toString('base64') : secret;
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': new Webhook(key).sign(id, new Date(at * 1000), body),
  };
}

function delivery(body: string, headers: Record<string, string>, at = NOW): InboundWebhook {
  return { rawBody: Buffer.from(body, 'utf8'), headers, receivedAt: new Date(at * 1000) };
}

function provider(options: Partial<PolarEndpointOptions> = {}): WebhookProvider {
  return polarEndpoint({ name: 'polar', secret: UTF8_SECRET, ...options }).provider;
}

const ORDER_PAID = JSON.stringify(
  polarFixtures.orderPaid({
    orderId: 'order-42',
    amount: 1999,
    currency: 'usd',
    polarOrderId: 'b2a2f1a5-7d0c-4c4e-9d53-3f4a3c2e1b10',
    createdAt: new Date('2026-09-21T10:00:00.000Z'),
  }),
);

describe('polarEndpoint', () => {
  describe('verify', () => {
    it('accepts an older endpoint’s delivery, as the Polar SDK’s validateEvent does', () => {
      const headers = polarHeaders(ORDER_PAID);
      expect(() => provider().verify(delivery(ORDER_PAID, headers))).not.toThrow();
      jest.useFakeTimers({ now: NOW * 1000 });
      try {
        expect(validateEvent(ORDER_PAID, headers, UTF8_SECRET)).toMatchObject({
          type: 'order.paid',
        });
      } finally {
        jest.useRealTimers();
      }
    });

    it('accepts a spec secret’s delivery, signed with the decoded key', () => {
      const headers = polarHeaders(ORDER_PAID, STANDARD_SECRET, { scheme: 'standard' });
      const polar = provider({ secret: STANDARD_SECRET });
      expect(() => polar.verify(delivery(ORDER_PAID, headers))).not.toThrow();
    });

    it('accepts a spec-form secret signed with its UTF-8 bytes too (an endpoint made before the change)', () => {
      const headers = polarHeaders(ORDER_PAID, STANDARD_SECRET, { scheme: 'utf8' });
      const polar = provider({ secret: STANDARD_SECRET });
      expect(() => polar.verify(delivery(ORDER_PAID, headers))).not.toThrow();
    });

    it('accepts what signPolarDelivery makes, headers and body as sent', () => {
      for (const secret of [UTF8_SECRET, STANDARD_SECRET]) {
        const sent = signPolarDelivery({ payload: polarFixtures.orderPaid(), secret });
        const request = { ...delivery(sent.body, { ...sent.headers }), receivedAt: new Date() };
        expect(() => provider({ secret }).verify(request)).not.toThrow();
      }
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, UTF8_SECRET] });
      for (const secret of [OTHER_SECRET, UTF8_SECRET]) {
        expect(() =>
          rotating.verify(delivery(ORDER_PAID, polarHeaders(ORDER_PAID, secret))),
        ).not.toThrow();
      }
    });

    it('rejects a body changed by one byte', () => {
      const headers = polarHeaders(ORDER_PAID);
      const tampered = ORDER_PAID.replace('"total_amount":1999', '"total_amount":1990');
      expect(tampered).not.toBe(ORDER_PAID);
      expect(rejection(() => provider().verify(delivery(tampered, headers)))).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('rejects a changed webhook-id: the id is signed', () => {
      const headers = { ...polarHeaders(ORDER_PAID), 'webhook-id': 'another-event' };
      expect(rejection(() => provider().verify(delivery(ORDER_PAID, headers)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('rejects a delivery signed with another secret, without echoing either', () => {
      const error = rejection(() =>
        provider().verify(delivery(ORDER_PAID, polarHeaders(ORDER_PAID, OTHER_SECRET))),
      );
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(UTF8_SECRET);
      expect(error.message).not.toContain(OTHER_SECRET);
    });

    it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
      'rejects a delivery without %s as missing_signature',
      (name) => {
        const headers: Record<string, string> = polarHeaders(ORDER_PAID);
        delete headers[name];
        expect(rejection(() => provider().verify(delivery(ORDER_PAID, headers)))).toMatchObject({
          reason: 'missing_signature',
          message: expect.stringContaining(name),
        });
      },
    );

    it.each([
      ['a timestamp that is not Unix seconds', { 'webhook-timestamp': '2026-09-21T10:00:00Z' }],
      ['a signature without its v1, prefix', { 'webhook-signature': 'bm90IGEgc2lnbmF0dXJl' }],
      ['a hex signature', { 'webhook-signature': `v1,${'ab'.repeat(32)}` }],
    ])('rejects %s as bad_signature', (_label, change) => {
      const headers = { ...polarHeaders(ORDER_PAID), ...change };
      expect(rejection(() => provider().verify(delivery(ORDER_PAID, headers)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['301 s late', 301],
      ['301 s early', -301],
    ])('refuses a genuine delivery whose signed timestamp is %s', (_label, skew) => {
      const request = delivery(ORDER_PAID, polarHeaders(ORDER_PAID), NOW + skew);
      expect(rejection(() => provider().verify(request))).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
    });

    it.each([299, -299])('accepts a genuine delivery %i s off, inside the window', (skew) => {
      const request = delivery(ORDER_PAID, polarHeaders(ORDER_PAID), NOW + skew);
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('takes another tolerance, and 0 for none', () => {
      const late = delivery(ORDER_PAID, polarHeaders(ORDER_PAID), NOW + 3600);
      expect(rejection(() => provider({ toleranceSeconds: 600 }).verify(late)).reason).toBe(
        'timestamp_out_of_window',
      );
      expect(() => provider({ toleranceSeconds: 0 }).verify(late)).not.toThrow();
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<PolarEndpointOptions>): string {
      const error = rejection(() =>
        polarEndpoint({ name: 'polar', ...options } as PolarEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const endpoint = polarEndpoint({ name: 'polar', secret: UTF8_SECRET });
      expect(endpoint).toMatchObject({
        name: 'polar',
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      });
      expect(endpoint.provider.kind).toBe('polar');
      expect(endpoint.provider.storedHeaders).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp']),
      );
    });

    it('requires a secret', () => {
      expect(configError({})).toMatch(/"polar" \(polar\) has no usable secret/);
      expect(configError({ secret: [UTF8_SECRET, ''] })).toMatch(/no usable secret/);
    });

    it('refuses a secret with whitespace without quoting it', () => {
      const message = configError({ secret: `${UTF8_SECRET}\n` });
      expect(message).toMatch(/secret contains whitespace.*Polar → Settings → Webhooks/);
      expect(message).not.toContain(UTF8_SECRET);
    });

    it('refuses a tolerance that is not whole seconds', () => {
      expect(configError({ secret: UTF8_SECRET, toleranceSeconds: -1 })).toMatch(/tolerance/);
    });
  });

  describe('normalize', () => {
    function normalize(event: object | string, id = EVENT_ID, polar = provider()) {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      const request = delivery(body, { 'webhook-id': id, 'webhook-timestamp': String(NOW) });
      return notificationsOf(polar.normalize(request))[0] as NormalizedNotification;
    }

    it.each([
      ['order.paid', polarFixtures.orderPaid(), 'payment.succeeded'],
      ['order.created', polarFixtures.orderCreated(), 'polar:order.created'],
      ['order.refunded', polarFixtures.orderRefunded(), 'polar:order.refunded'],
      ['refund.created', polarFixtures.refundCreated({ status: 'succeeded' }), 'refund.succeeded'],
      [
        'refund.created',
        polarFixtures.refundCreated({ status: 'pending' }),
        'polar:refund.created',
      ],
      ['refund.updated', polarFixtures.refundUpdated({ status: 'succeeded' }), 'refund.succeeded'],
      ['refund.updated', polarFixtures.refundUpdated({ status: 'failed' }), 'refund.failed'],
      ['refund.updated', polarFixtures.refundUpdated({ status: 'canceled' }), 'refund.failed'],
      [
        'subscription.active',
        { type: 'subscription.active', timestamp: '2026-09-21T10:00:00Z', data: { id: 's' } },
        'polar:subscription.active',
      ],
      [
        'checkout.updated',
        { type: 'checkout.updated', timestamp: '2026-09-21T10:00:00Z', data: { id: 'c' } },
        'polar:checkout.updated',
      ],
    ])('maps %s to %s, keeping the native type', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({ type, nativeType, eventId: EVENT_ID });
    });

    it('reads an order.paid: order id, metadata order id, total with tax, currency, timestamp', () => {
      const result = normalize(ORDER_PAID);
      expect(result).toMatchObject({
        eventId: EVENT_ID,
        type: 'payment.succeeded',
        paymentRef: 'b2a2f1a5-7d0c-4c4e-9d53-3f4a3c2e1b10',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'USD',
        status: 'paid',
        occurredAt: new Date('2026-09-21T10:00:00.000Z'),
      });
      expect(result.occurredAtSigned).toBeUndefined();
      expect(result.payload).toEqual(JSON.parse(ORDER_PAID));
    });

    it('passes amounts through as Polar’s minor units, a zero-decimal currency included', () => {
      expect(normalize(polarFixtures.orderPaid({ amount: 1999, currency: 'jpy' }))).toMatchObject({
        amount: 1999,
        currency: 'JPY',
      });
    });

    it('reads the merchantRefKey entry of metadata, a whole number included', () => {
      const event = polarFixtures.orderPaid();
      const withRef = { ...event, data: { ...event.data, metadata: { cartId: 1042 } } };
      expect(normalize(withRef, EVENT_ID, provider({ merchantRefKey: 'cartId' })).merchantRef).toBe(
        '1042',
      );
      expect(normalize(withRef).merchantRef).toBeUndefined();
    });

    it('gives two partial refunds of one order their own keys, ids and amounts with tax', () => {
      const orderId = 'b2a2f1a5-7d0c-4c4e-9d53-3f4a3c2e1b10';
      const first = normalize(
        polarFixtures.refundCreated({ polarOrderId: orderId, amount: 595 }),
        'e1',
      );
      const second = normalize(
        polarFixtures.refundCreated({ polarOrderId: orderId, amount: 1190 }),
        'e2',
      );
      expect([first.eventId, second.eventId]).toEqual(['e1', 'e2']);
      expect([first.paymentRef, second.paymentRef]).toEqual([orderId, orderId]);
      expect([first.amount, second.amount]).toEqual([595, 1190]);
      expect((first.payload as { data: { id: string } }).data.id).not.toBe(
        (second.payload as { data: { id: string } }).data.id,
      );
    });

    it('keys a retry (same webhook-id, new timestamp and signature) as the first delivery', () => {
      const polar = provider();
      const keys = [NOW, NOW + 40].map((at) => {
        const request = delivery(ORDER_PAID, polarHeaders(ORDER_PAID, UTF8_SECRET, { at }), at);
        polar.verify(request);
        return notificationsOf(polar.normalize(request))[0].eventId;
      });
      expect(keys).toEqual([EVENT_ID, EVENT_ID]);
    });

    it('refuses a body that is not a Polar event', () => {
      for (const body of ['[]', '{"type":"order.paid"}', '{"data":{}}', 'not json']) {
        expect(rejection(() => normalize(body)).name).toBe('WebhookPayloadError');
      }
    });
  });
});
