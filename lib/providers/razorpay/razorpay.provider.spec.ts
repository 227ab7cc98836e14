import { createHmac } from 'node:crypto';
import { validateWebhookSignature } from 'razorpay/dist/utils/razorpay-utils';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { razorpayFixtures, RazorpayWebhookEvent } from './razorpay.fixtures';
import { RazorpayEndpointOptions, razorpayEndpoint } from './razorpay.provider';
import { RazorpayStatusClient } from './razorpay-status.client';

const SECRET = 'Shop-Webhook-Secret-2024';
const OLD_SECRET = 'old-webhook-secret-2023';

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
  return delivery(body, { 'x-razorpay-signature': independentSignature(body, secret) });
}

function provider(options: Partial<RazorpayEndpointOptions> = {}): WebhookProvider {
  return razorpayEndpoint({ name: 'razorpay', secret: SECRET, ...options }).provider;
}

// The documented sample of payment.captured (Razorpay's "Payments Webhook Events" page, Netbanking).
const DOCUMENTED_CAPTURE = JSON.stringify({
  entity: 'event',
  account_id: 'acc_BFQ7uQEaa7j2z7',
  event: 'payment.captured',
  contains: ['payment'],
  payload: {
    payment: {
      entity: {
        id: 'pay_DESlfW9H8K9uqM',
        entity: 'payment',
        amount: 100,
        currency: 'INR',
        base_amount: 100,
        status: 'captured',
        order_id: 'order_DESlLckIVRkHWj',
        invoice_id: null,
        international: false,
        method: 'netbanking',
        amount_refunded: 0,
        amount_transferred: 0,
        refund_status: null,
        captured: true,
        description: null,
        card_id: null,
        bank: 'HDFC',
        wallet: null,
        vpa: null,
        email: 'gaurav.kumar@example.com',
        contact: '+919876543210',
        notes: [],
        fee: 2,
        tax: 0,
        error_code: null,
        error_description: null,
        error_source: null,
        error_step: null,
        error_reason: null,
        acquirer_data: { bank_transaction_id: '0125836177' },
        created_at: 1567674599,
      },
    },
  },
  created_at: 1567674606,
});

const ORDER_PAID = JSON.stringify(
  razorpayFixtures.orderPaid({
    orderId: 'order-42',
    amount: 1999,
    paymentId: 'pay_PmqV1tXbFuLk8c',
    razorpayOrderId: 'order_PmqUz4jYw2nQ0a',
    createdAt: new Date('2024-05-12T18:14:14.000Z'),
  }),
);

describe('razorpayEndpoint', () => {
  describe('verify', () => {
    it('accepts a delivery signed with node:crypto, and agrees with the official SDK', () => {
      expect(() => provider().verify(signed(DOCUMENTED_CAPTURE))).not.toThrow();
      expect(
        validateWebhookSignature(
          DOCUMENTED_CAPTURE,
          independentSignature(DOCUMENTED_CAPTURE),
          SECRET,
        ),
      ).toBe(true);
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const body = JSON.stringify({ ...JSON.parse(ORDER_PAID), note: 'Café ☕ मुंबई' });
      expect(() => provider().verify(signed(Buffer.from(body, 'utf8')))).not.toThrow();
    });

    it('accepts the old and the new secret while both are configured (rotation)', () => {
      const rotating = provider({ secret: [SECRET, OLD_SECRET] });
      expect(() => rotating.verify(signed(ORDER_PAID, SECRET))).not.toThrow();
      expect(() => rotating.verify(signed(ORDER_PAID, OLD_SECRET))).not.toThrow();
      expect(rejection(() => provider().verify(signed(ORDER_PAID, OLD_SECRET)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('rejects a body changed by one byte, which the SDK rejects too', () => {
      const request = signed(ORDER_PAID);
      const tampered = ORDER_PAID.replace('"amount":1999', '"amount":1990');
      expect(tampered).not.toBe(ORDER_PAID);
      const signature = request.headers['x-razorpay-signature'] as string;
      expect(validateWebhookSignature(tampered, signature, SECRET)).toBe(false);
      expect(
        rejection(() =>
          provider().verify(delivery(tampered, { 'x-razorpay-signature': signature })),
        ),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const error = rejection(() => provider().verify(signed(ORDER_PAID, 'another-secret')));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/not the API Key Secret/);
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(independentSignature(ORDER_PAID, 'another-secret'));
    });

    it('rejects a signature over the re-serialized body instead of the bytes sent', () => {
      const pretty = JSON.stringify(JSON.parse(ORDER_PAID), null, 2);
      const header = independentSignature(ORDER_PAID);
      expect(
        rejection(() => provider().verify(delivery(pretty, { 'x-razorpay-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature' });
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-razorpay-signature': '' }],
      ['blank', { 'x-razorpay-signature': '  ' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(ORDER_PAID, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing X-Razorpay-Signature header',
      });
    });

    it.each([
      ['base64 instead of hex', createHmac('sha256', SECRET).update(ORDER_PAID).digest('base64')],
      ['upper-case hex', independentSignature(ORDER_PAID).toUpperCase()],
      ['a truncated signature', independentSignature(ORDER_PAID).slice(0, 63)],
      ['a prefixed signature', `sha256=${independentSignature(ORDER_PAID)}`],
    ])('rejects %s as a malformed header', (_label, header) => {
      expect(
        rejection(() =>
          provider().verify(delivery(ORDER_PAID, { 'x-razorpay-signature': header })),
        ),
      ).toMatchObject({
        reason: 'bad_signature',
        message: 'Malformed X-Razorpay-Signature header: expected 64 lower-case hex digits',
      });
    });

    it('trims the header as HTTP does', () => {
      const header = ` ${independentSignature(ORDER_PAID)} `;
      expect(() =>
        provider().verify(delivery(ORDER_PAID, { 'x-razorpay-signature': header })),
      ).not.toThrow();
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<RazorpayEndpointOptions>): string {
      const error = rejection(() =>
        razorpayEndpoint({ name: 'razorpay', ...options } as RazorpayEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const endpoint = razorpayEndpoint({ name: 'razorpay', secret: SECRET });
      expect(endpoint).toMatchObject({
        name: 'razorpay',
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
        verifyWithProvider: false,
        statusClient: undefined,
      });
      expect(endpoint.provider.kind).toBe('razorpay');
      expect(endpoint.provider.storedHeaders).toBeUndefined();
    });

    it('requires a secret', () => {
      expect(configError({})).toMatch(/"razorpay" \(razorpay\) has no usable secret/);
      expect(configError({ secret: [SECRET, ''] })).toMatch(/no usable secret/);
    });

    it('refuses a secret padded with whitespace without quoting it', () => {
      const message = configError({ secret: [OLD_SECRET, `${SECRET}\n`] });
      expect(message).toMatch(/secret\[1\] has spaces or line breaks around it/);
      expect(message).not.toContain(SECRET);
    });

    it('keeps a space inside a secret: Razorpay secrets are typed by the merchant', () => {
      expect(() => razorpayEndpoint({ name: 'razorpay', secret: 'two words' })).not.toThrow();
    });

    it('refuses an API Key Id given as the secret, saying where the secret is', () => {
      const message = configError({ secret: 'rzp_live_ILgsfZCZoFIKMb' });
      expect(message).toMatch(/looks like an API Key Id/);
      expect(message).toMatch(/Account & Settings → Webhooks/);
    });

    it('refuses an empty merchantRefKey', () => {
      expect(configError({ secret: SECRET, merchantRefKey: '' })).toMatch(/merchantRefKey/);
    });

    it('builds a status client from api, for verifyWithProvider', () => {
      const endpoint = razorpayEndpoint({
        name: 'razorpay',
        secret: SECRET,
        api: { keyId: 'rzp_test_1DP5mmOlF5G5ag', keySecret: 'thisisnotarealsecret' },
        verifyWithProvider: true,
      });
      expect(endpoint.statusClient).toBeInstanceOf(RazorpayStatusClient);
      expect(endpoint.verifyWithProvider).toBe(true);
      expect(configError({ secret: SECRET, verifyWithProvider: true })).toMatch(
        /verifyWithProvider on but no API credentials/,
      );
    });
  });

  describe('normalize', () => {
    function normalize(
      event: object | string,
      options: Partial<RazorpayEndpointOptions> = {},
    ): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider(options).normalize(delivery(body, {})))[0];
    }

    it.each<[string, RazorpayWebhookEvent, string]>([
      ['payment.authorized', razorpayFixtures.paymentAuthorized(), 'payment.authorized'],
      ['payment.captured', razorpayFixtures.paymentCaptured(), 'payment.succeeded'],
      ['payment.failed', razorpayFixtures.paymentFailed(), 'payment.failed'],
      ['order.paid', razorpayFixtures.orderPaid(), 'payment.succeeded'],
      ['refund.created', razorpayFixtures.refundCreated(), 'razorpay:refund.created'],
      ['refund.processed', razorpayFixtures.refundProcessed(), 'refund.succeeded'],
      ['refund.failed', razorpayFixtures.refundFailed(), 'refund.failed'],
      ['payment.dispute.created', razorpayFixtures.dispute('created'), 'dispute.opened'],
      ['payment.dispute.won', razorpayFixtures.dispute('won'), 'dispute.closed'],
      ['payment.dispute.lost', razorpayFixtures.dispute('lost'), 'dispute.closed'],
      ['payment.dispute.closed', razorpayFixtures.dispute('closed'), 'dispute.closed'],
      [
        'payment.dispute.under_review',
        razorpayFixtures.dispute('under_review'),
        'razorpay:payment.dispute.under_review',
      ],
      [
        'payment.dispute.action_required',
        razorpayFixtures.dispute('action_required'),
        'razorpay:payment.dispute.action_required',
      ],
    ])('maps %s, keeping the native type', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({ type, nativeType });
    });

    it('reads the documented payment.captured sample: ids, paise, status, created_at', () => {
      expect(normalize(DOCUMENTED_CAPTURE)).toMatchObject({
        eventId: 'payment.captured:pay_DESlfW9H8K9uqM:1567674606',
        type: 'payment.succeeded',
        paymentRef: 'pay_DESlfW9H8K9uqM',
        merchantRef: undefined,
        amount: 100,
        currency: 'INR',
        status: 'captured',
        occurredAt: new Date(1567674606 * 1000),
        occurredAtSigned: true,
      });
    });

    it('reads order.paid: the receipt as merchantRef, the payment as paymentRef and amount', () => {
      const result = normalize(ORDER_PAID);
      expect(result).toMatchObject({
        eventId: 'order.paid:order_PmqUz4jYw2nQ0a:1715537654',
        type: 'payment.succeeded',
        paymentRef: 'pay_PmqV1tXbFuLk8c',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'INR',
        status: 'paid',
        occurredAt: new Date('2024-05-12T18:14:14.000Z'),
      });
      expect(result.payload).toEqual(JSON.parse(ORDER_PAID));
    });

    it('prefers the receipt to the notes, and reads merchantRefKey from the payment notes', () => {
      const event = razorpayFixtures.orderPaid({ orderId: 'receipt-1' });
      event.payload.payment.entity.notes = { shopOrder: 'note-1' };
      expect(normalize(event).merchantRef).toBe('receipt-1');
      const captured = razorpayFixtures.paymentCaptured({ orderId: 'order-77' });
      expect(normalize(captured).merchantRef).toBe('order-77');
      captured.payload.payment.entity.notes = { shopOrder: 'note-1' };
      expect(normalize(captured, { merchantRefKey: 'shopOrder' }).merchantRef).toBe('note-1');
      expect(normalize(captured).merchantRef).toBeUndefined();
    });

    it('reads a refund: the refunded payment and the refund amount, keyed by the refund', () => {
      const event = razorpayFixtures.refundProcessed({
        paymentId: 'pay_PmqV1tXbFuLk8c',
        refundId: 'rfnd_PmrA5bLw3cTnQe',
        amount: 1999,
        refundAmount: 500,
        orderId: 'order-42',
      });
      expect(normalize(event)).toMatchObject({
        eventId: `refund.processed:rfnd_PmrA5bLw3cTnQe:${event.created_at}`,
        paymentRef: 'pay_PmqV1tXbFuLk8c',
        merchantRef: 'order-42',
        amount: 500,
        currency: 'INR',
        status: 'processed',
      });
    });

    it('reads a dispute: the disputed payment, the dispute amount and status', () => {
      const event = razorpayFixtures.dispute('created', {
        paymentId: 'pay_PmqV1tXbFuLk8c',
        disputeId: 'disp_PmsQ2vYc8dTn1A',
        amount: 2500,
      });
      expect(normalize(event)).toMatchObject({
        eventId: `payment.dispute.created:disp_PmsQ2vYc8dTn1A:${event.created_at}`,
        type: 'dispute.opened',
        paymentRef: 'pay_PmqV1tXbFuLk8c',
        amount: 2500,
        status: 'open',
      });
    });

    it.each([
      ['JPY, which has no minor unit', 'JPY', 295],
      ['KWD, which has three decimals', 'KWD', 295990],
    ])('keeps amounts as sent: Razorpay already sends the smallest unit (%s)', (_l, code, n) => {
      const result = normalize(razorpayFixtures.paymentCaptured({ currency: code, amount: n }));
      expect(result).toMatchObject({ amount: n, currency: code });
    });

    it('gives two partial refunds of one payment two keys', () => {
      const at = new Date('2024-05-12T18:14:14.000Z');
      const options = { paymentId: 'pay_PmqV1tXbFuLk8c', refundAmount: 500, createdAt: at };
      const first = normalize(razorpayFixtures.refundProcessed(options));
      const second = normalize(razorpayFixtures.refundProcessed(options));
      expect(first.paymentRef).toBe(second.paymentRef);
      expect(first.eventId).not.toBe(second.eventId);
    });

    it('gives two events of one payment two keys (payment.failed, then payment.captured)', () => {
      const at = new Date('2024-05-12T18:14:14.000Z');
      const failed = normalize(
        razorpayFixtures.paymentFailed({ paymentId: 'pay_PmqV1tXbFuLk8c', createdAt: at }),
      );
      const captured = normalize(
        razorpayFixtures.paymentCaptured({ paymentId: 'pay_PmqV1tXbFuLk8c', createdAt: at }),
      );
      expect(failed.eventId).not.toBe(captured.eventId);
    });

    it('gives one event the same key again when it comes back later, as it was or re-sent', () => {
      const event = razorpayFixtures.paymentCaptured();
      const first = provider().normalize(delivery(JSON.stringify(event), {}));
      const retry = provider().normalize({
        ...delivery(JSON.stringify(event, null, 2), { 'x-razorpay-event-id': 'KlmZ1VJk0dU8cs' }),
        receivedAt: new Date(Date.now() + 3_600_000),
      });
      expect(notificationsOf(retry)[0].eventId).toBe(notificationsOf(first)[0].eventId);
    });

    it('does not let the unsigned x-razorpay-event-id make a captured delivery a new event', () => {
      const body = JSON.stringify(razorpayFixtures.paymentCaptured());
      const keys = ['Kc2VYb8Zp0cE3z', 'Kc2VYb8Zp0cE40'].map(
        (id) =>
          notificationsOf(provider().normalize(delivery(body, { 'x-razorpay-event-id': id })))[0]
            .eventId,
      );
      expect(keys[0]).toBe(keys[1]);
    });

    it('keys an event about no entity by its type, time and body', () => {
      const event = {
        entity: 'event',
        event: 'account.app.authorization_revoked',
        contains: [],
        payload: {},
        created_at: 1715537654,
      };
      const other = { ...event, account_id: 'acc_Other1234567' };
      const key = normalize(event).eventId;
      expect(key).toMatch(/^account\.app\.authorization_revoked:1715537654:[0-9a-f]{64}$/);
      expect(normalize(other).eventId).not.toBe(key);
      expect(normalize(event)).toMatchObject({
        type: 'razorpay:account.app.authorization_revoked',
        paymentRef: undefined,
      });
    });

    it('finds the entity of other events: a downtime, a subscription charge', () => {
      const downtime = {
        entity: 'event',
        event: 'payment.downtime.started',
        contains: ['payment.downtime'],
        payload: {
          'payment.downtime': { entity: { id: 'down_F7LroRQAAFuswd', status: 'started' } },
        },
        created_at: 1715537654,
      };
      expect(normalize(downtime)).toMatchObject({
        eventId: 'payment.downtime.started:down_F7LroRQAAFuswd:1715537654',
        paymentRef: undefined,
        status: 'started',
      });
      const charged = {
        entity: 'event',
        event: 'subscription.charged',
        contains: ['subscription', 'payment'],
        payload: {
          subscription: { entity: { id: 'sub_F5SGVMu1CxAzQd', status: 'active' } },
          payment: razorpayFixtures.paymentCaptured({ paymentId: 'pay_F5SGXs6HYGbaY1' }).payload
            .payment,
        },
        created_at: 1715537654,
      };
      expect(normalize(charged)).toMatchObject({
        eventId: 'subscription.charged:sub_F5SGVMu1CxAzQd:1715537654',
        type: 'razorpay:subscription.charged',
        paymentRef: 'pay_F5SGXs6HYGbaY1',
      });
    });

    it('reads no notes from a notes list: Razorpay sends [] for none', () => {
      expect(normalize(DOCUMENTED_CAPTURE).merchantRef).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"event": "x",'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(rejection(() => provider().normalize(delivery(body, {})))).toMatchObject({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
      });
    });

    it.each([
      ['no event', { payload: {}, created_at: 1 }],
      ['an empty event', { event: '', payload: {}, created_at: 1 }],
      ['no payload', { event: 'payment.captured', created_at: 1 }],
      ['no created_at', { event: 'payment.captured', payload: {} }],
      ['a created_at as text', { event: 'payment.captured', payload: {}, created_at: '1' }],
    ])('throws WebhookPayloadError for an event with %s', (_label, event) => {
      const error = rejection(() => normalize(event));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Razorpay event is not valid: /);
    });
  });
});
