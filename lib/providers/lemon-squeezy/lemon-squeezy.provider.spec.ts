import { createHmac } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { lemonSqueezyFixtures } from './lemon-squeezy.fixtures';
import { LemonSqueezyEndpointOptions, lemonSqueezyEndpoint } from './lemon-squeezy.provider';

// The example order_created request of Lemon Squeezy's "Webhook Requests" page (shortened), its
// signature computed once with Python's hmac module: a known answer from another implementation.
const DOCS_VECTOR = {
  body: '{"meta":{"event_name":"order_created","custom_data":{"customer_id":25}},"data":{"type":"orders","id":"1","attributes":{"store_id":1,"customer_id":1,"identifier":"104e18a2-d755-4d4b-80c4-a6c1dcbe1c10","order_number":1,"user_name":"John Doe","user_email":"johndoe@example.com","currency":"USD","currency_rate":"1.0000","subtotal":999,"discount_total":0,"tax":200,"total":1199,"status":"paid","status_formatted":"Paid","refunded":false,"refunded_at":null,"created_at":"2021-08-11T13:47:29.000000Z","updated_at":"2021-08-11T13:47:29.000000Z"}}}',
  secret: 'signing-secret-example',
  signature: '2004d47393494dfe3437b23d4870dc8516cdbd57657578a1908400fcaa102af7',
};

const SECRET = 'Wm4sQ8rT2vLx9KpB';
const OTHER_SECRET = 'h7Jd2Nq5Rt8Vy3Zc';

function independentSignature(body: string | Buffer, secret = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function delivery(body: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signed(body: string | Buffer, secret = SECRET): InboundWebhook {
  return delivery(body, { 'x-signature': independentSignature(body, secret) });
}

function provider(options: Partial<LemonSqueezyEndpointOptions> = {}): WebhookProvider {
  return lemonSqueezyEndpoint({ name: 'lemon-squeezy', signingSecret: SECRET, ...options })
    .provider;
}

const ORDER = JSON.stringify(
  lemonSqueezyFixtures.orderCreated({
    orderId: 'order-42',
    amount: 1999,
    currency: 'USD',
    id: '1842077',
    createdAt: new Date('2024-05-12T18:14:14.000Z'),
  }),
);

describe('lemonSqueezyEndpoint', () => {
  describe('verify', () => {
    it('accepts the documented example signed by another implementation', () => {
      expect(independentSignature(DOCS_VECTOR.body, DOCS_VECTOR.secret)).toBe(
        DOCS_VECTOR.signature,
      );
      expect(() =>
        provider({ signingSecret: DOCS_VECTOR.secret }).verify(
          delivery(DOCS_VECTOR.body, { 'x-signature': DOCS_VECTOR.signature }),
        ),
      ).not.toThrow();
    });

    it('accepts a delivery signed with node:crypto, raw bytes and multi-byte UTF-8 included', () => {
      expect(() => provider().verify(signed(ORDER))).not.toThrow();
      const body = JSON.stringify({ ...JSON.parse(ORDER), note: 'Café ☕ 東京' });
      expect(() => provider().verify(signed(Buffer.from(body, 'utf8')))).not.toThrow();
    });

    it('accepts the signature written in upper-case hex', () => {
      const headers = { 'x-signature': independentSignature(ORDER).toUpperCase() };
      expect(() => provider().verify(delivery(ORDER, headers))).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ signingSecret: [OTHER_SECRET, SECRET] });
      expect(() => rotating.verify(signed(ORDER, SECRET))).not.toThrow();
      expect(() => rotating.verify(signed(ORDER, OTHER_SECRET))).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const request = signed(ORDER);
      const tampered = Buffer.from(request.rawBody);
      tampered[tampered.indexOf('1999')] = '9'.charCodeAt(0);
      expect(
        rejection(() =>
          provider().verify(delivery(tampered, request.headers as Record<string, string>)),
        ),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const error = rejection(() => provider().verify(signed(ORDER, OTHER_SECRET)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(independentSignature(ORDER));
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-signature': '' }],
      ['blank', { 'x-signature': '  ' }],
      ['only X-Event-Name', { 'x-event-name': 'order_created' }],
    ])('rejects a delivery whose X-Signature is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(ORDER, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing X-Signature header',
      });
    });

    it.each([
      ['base64', createHmac('sha256', SECRET).update(ORDER).digest('base64')],
      ['truncated', independentSignature(ORDER).slice(0, 63)],
      ['prefixed', `sha256=${independentSignature(ORDER)}`],
    ])('rejects a %s signature as malformed', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(ORDER, { 'x-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature', message: expect.stringMatching(/^Malformed/) });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<LemonSqueezyEndpointOptions>): string {
      const error = rejection(() =>
        lemonSqueezyEndpoint({ name: 'lemon-squeezy', ...options } as LemonSqueezyEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers with an empty 200', () => {
      const endpoint = lemonSqueezyEndpoint({ name: 'lemon-squeezy', signingSecret: SECRET });
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
      expect(endpoint.provider.kind).toBe('lemon-squeezy');
    });

    it('requires a signing secret, and refuses one with whitespace without quoting it', () => {
      expect(configError({})).toMatch(/no usable signingSecret/);
      const message = configError({ signingSecret: `${SECRET} ` });
      expect(message).toMatch(/signingSecret contains whitespace/);
      expect(message).not.toContain(SECRET);
    });

    it('refuses an acknowledgement status other than 200, which Lemon Squeezy would retry', () => {
      expect(configError({ signingSecret: SECRET, acknowledgement: { status: 204 } })).toMatch(
        /counts only 200/,
      );
    });

    it.each([[''], [' order_id'], [42]])('refuses merchantRefKey %j', (merchantRefKey) => {
      expect(
        configError({ signingSecret: SECRET, merchantRefKey: merchantRefKey as string }),
      ).toMatch(/no usable merchantRefKey/);
    });
  });

  describe('normalize', () => {
    function normalize(
      event: object | string,
      options: Partial<LemonSqueezyEndpointOptions> = {},
    ): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider(options).normalize(delivery(body, {})))[0];
    }

    it.each([
      ['order_created', lemonSqueezyFixtures.orderCreated(), 'payment.succeeded'],
      [
        'order_created',
        lemonSqueezyFixtures.orderCreated({ status: 'pending' }),
        'lemon-squeezy:order_created',
      ],
      ['order_refunded', lemonSqueezyFixtures.orderRefunded(), 'refund.succeeded'],
      [
        'subscription_payment_success',
        lemonSqueezyFixtures.subscriptionPaymentSuccess(),
        'payment.succeeded',
      ],
      [
        'subscription_payment_failed',
        lemonSqueezyFixtures.subscriptionPaymentFailed(),
        'payment.failed',
      ],
      [
        'subscription_payment_refunded',
        lemonSqueezyFixtures.subscriptionPaymentRefunded(),
        'refund.succeeded',
      ],
      [
        'subscription_updated',
        lemonSqueezyFixtures.subscriptionUpdated(),
        'lemon-squeezy:subscription_updated',
      ],
    ])('maps %s to %s, the native name kept', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({ type, nativeType });
    });

    it('reads an order: id, custom_data.order_id, total in minor units, status, updated_at', () => {
      expect(normalize(ORDER)).toMatchObject({
        eventId: 'order_created:orders:1842077:paid:0:2024-05-12T18:14:14.000000Z',
        type: 'payment.succeeded',
        paymentRef: '1842077',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'USD',
        status: 'paid',
        occurredAt: new Date('2024-05-12T18:14:14.000Z'),
        occurredAtSigned: true,
        payload: JSON.parse(ORDER),
      });
    });

    it('passes totals through as minor units, a zero-decimal currency included', () => {
      expect(
        normalize(lemonSqueezyFixtures.orderCreated({ amount: 3000, currency: 'jpy' })),
      ).toMatchObject({ amount: 3000, currency: 'JPY' });
    });

    it('reads the event name from the signed body, never from X-Event-Name', () => {
      const request = delivery(ORDER, { 'x-event-name': 'order_refunded' });
      expect(notificationsOf(provider().normalize(request))[0]).toMatchObject({
        nativeType: 'order_created',
        type: 'payment.succeeded',
      });
    });

    it('reads merchantRef from the configured custom_data key, a number included', () => {
      const event = lemonSqueezyFixtures.orderCreated();
      event.meta.custom_data = { user_id: 7, cart: 'cart-9' };
      expect(normalize(event, { merchantRefKey: 'cart' }).merchantRef).toBe('cart-9');
      expect(normalize(event, { merchantRefKey: 'user_id' }).merchantRef).toBe('7');
      expect(normalize(event).merchantRef).toBeUndefined();
      expect(normalize(lemonSqueezyFixtures.orderCreated({ orderId: null })).merchantRef).toBe(
        undefined,
      );
    });

    it('gives two partial refunds of one order distinct keys, their refunded amounts so far', () => {
      const at = new Date('2024-06-01T10:00:00.000Z');
      const first = normalize(
        lemonSqueezyFixtures.orderRefunded({
          id: '77',
          status: 'paid',
          refundedAmount: 500,
          updatedAt: at,
        }),
      );
      const second = normalize(
        lemonSqueezyFixtures.orderRefunded({
          id: '77',
          status: 'paid',
          refundedAmount: 1000,
          updatedAt: at,
        }),
      );
      expect(first).toMatchObject({ type: 'refund.succeeded', paymentRef: '77', amount: 500 });
      expect(second).toMatchObject({ type: 'refund.succeeded', paymentRef: '77', amount: 1000 });
      expect(first.eventId).not.toBe(second.eventId);
    });

    it('gives two changes of one subscription distinct keys, and one event the same key on every delivery', () => {
      const change = (minute: number) =>
        lemonSqueezyFixtures.subscriptionUpdated({
          id: '5501',
          updatedAt: new Date(`2024-06-01T10:0${minute}:00.000Z`),
        });
      expect(normalize(change(1)).eventId).not.toBe(normalize(change(2)).eventId);
      const event = JSON.stringify(change(3));
      expect(normalize(event).eventId).toBe(normalize(event).eventId);
    });

    it('keys an order_created and the order_refunded of the same order apart', () => {
      const order = lemonSqueezyFixtures.orderCreated({ id: '9' });
      const refunded = { ...order, meta: { ...order.meta, event_name: 'order_refunded' } };
      expect(normalize(order).eventId).not.toBe(normalize(refunded).eventId);
    });

    it('reads a subscription invoice: the invoice is the payment', () => {
      const event = lemonSqueezyFixtures.subscriptionPaymentSuccess({
        id: '300512',
        amount: 4900,
        currency: 'EUR',
        orderId: null,
      });
      expect(normalize(event)).toMatchObject({
        paymentRef: '300512',
        amount: 4900,
        currency: 'EUR',
        status: 'paid',
        merchantRef: undefined,
      });
    });

    it('gives a subscription no paymentRef', () => {
      expect(normalize(lemonSqueezyFixtures.subscriptionUpdated()).paymentRef).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"meta":'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['without meta', '{"data":{"type":"orders","id":"1"}}'],
      ['without an event name', '{"meta":{},"data":{"type":"orders","id":"1"}}'],
      ['without a data id', '{"meta":{"event_name":"order_created"},"data":{"type":"orders"}}'],
    ])('throws WebhookPayloadError for a body %s', (_label, body) => {
      expect(rejection(() => provider().normalize(delivery(body, {})))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });
  });
});
