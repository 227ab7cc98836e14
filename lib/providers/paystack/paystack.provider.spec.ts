import { createHmac } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { paystackFixtures, PaystackEvent } from './paystack.fixtures';
import {
  PAYSTACK_IP_ADDRESSES,
  PaystackEndpointOptions,
  paystackEndpoint,
} from './paystack.provider';

const KEY = 'sk_test_4f9c2a7e1b8d3f6a0c5e9b2d7a4f1c8e3b6d0a9f';
const OTHER_KEY = 'sk_live_8e1d4a7c0f3b6e9a2d5c8f1b4e7a0d3c6f9b2e5a';

function delivery(body: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

/** The scheme Paystack's webhook page shows: hex HMAC-SHA512 of the body with the secret key. */
function signature(body: string | Buffer, key = KEY): string {
  return createHmac('sha512', key).update(body).digest('hex');
}

function signed(body: string | Buffer, key = KEY): InboundWebhook {
  return delivery(body, { 'x-paystack-signature': signature(body, key) });
}

function provider(options: Partial<PaystackEndpointOptions> = {}): WebhookProvider {
  return paystackEndpoint({ name: 'paystack', secretKey: KEY, ...options }).provider;
}

const CHARGE = JSON.stringify(
  paystackFixtures.chargeSuccess({
    reference: 'order-42',
    amount: 500000,
    currency: 'NGN',
    transactionId: 4099260516,
    paidAt: new Date('2024-06-01T10:15:30.000Z'),
  }),
);

describe('paystackEndpoint', () => {
  describe('verify', () => {
    it('accepts a delivery signed as Paystack documents it', () => {
      expect(() => provider().verify(signed(CHARGE))).not.toThrow();
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const body = CHARGE.replace('Adaeze', 'Adaèzé 東京');
      expect(() => provider().verify(signed(Buffer.from(body, 'utf8')))).not.toThrow();
    });

    it('accepts the signature in upper-case hex', () => {
      const upper = signature(CHARGE).toUpperCase();
      expect(() =>
        provider().verify(delivery(CHARGE, { 'x-paystack-signature': upper })),
      ).not.toThrow();
    });

    it('rejects a signature made with another key, without echoing key or signature', () => {
      const error = rejection(() => provider().verify(signed(CHARGE, OTHER_KEY)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/sk_live_…/);
      expect(error.message).not.toContain(KEY);
      expect(error.message).not.toContain(signature(CHARGE, OTHER_KEY));
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-paystack-signature': '' }],
      ['blank', { 'x-paystack-signature': ' ' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(CHARGE, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing x-paystack-signature header',
      });
    });

    it.each([
      ['HMAC-SHA256', createHmac('sha256', KEY).update(CHARGE).digest('hex')],
      ['base64', createHmac('sha512', KEY).update(CHARGE).digest('base64')],
      ['a truncated signature', signature(CHARGE).slice(0, 127)],
    ])('rejects %s as a malformed header', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(CHARGE, { 'x-paystack-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature', message: expect.stringMatching(/^Malformed/) });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<PaystackEndpointOptions>): string {
      const error = rejection(() =>
        paystackEndpoint({ name: 'paystack', ...options } as PaystackEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers an empty 200', () => {
      const endpoint = paystackEndpoint({ name: 'paystack', secretKey: KEY });
      expect(endpoint.acknowledgement).toMatchObject({ status: 200, body: '' });
      expect(endpoint.provider.kind).toBe('paystack');
      expect(endpoint.provider.signatureRefusalStatus).toBeUndefined();
    });

    it('refuses the public key and says where the secret key is', () => {
      const message = configError({ secretKey: 'pk_test_0123456789abcdef' });
      expect(message).toMatch(/secretKey is not a Paystack secret key/);
      expect(message).toMatch(/API Keys & Webhooks/);
      expect(message).not.toContain('pk_test_0123456789abcdef');
      expect(configError({ secretKey: [KEY, 'whsec_x'] })).toMatch(/secretKey\[1\]/);
    });

    it('takes PAYSTACK_IP_ADDRESSES as allowedIps: those three addresses and no other', () => {
      expect(PAYSTACK_IP_ADDRESSES).toEqual(['52.31.139.75', '52.49.173.169', '52.214.14.220']);
      const endpoint = paystackEndpoint({
        name: 'paystack',
        secretKey: KEY,
        allowedIps: PAYSTACK_IP_ADDRESSES,
      });
      expect(endpoint.allowedSources?.allows('52.49.173.169')).toBe(true);
      expect(endpoint.allowedSources?.allows('52.49.173.170')).toBe(false);
    });
  });

  describe('normalize', () => {
    function normalize(event: PaystackEvent | string): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider().normalize(delivery(body, {})))[0];
    }

    it.each([
      ['charge.success', paystackFixtures.chargeSuccess(), 'payment.succeeded'],
      ['refund.processed', paystackFixtures.refundProcessed(), 'refund.succeeded'],
      ['refund.failed', paystackFixtures.refundFailed(), 'refund.failed'],
      ['charge.dispute.create', paystackFixtures.disputeCreate(), 'dispute.opened'],
      ['charge.dispute.resolve', paystackFixtures.disputeResolve(), 'dispute.closed'],
      ['refund.pending', paystackFixtures.refundPending(), 'paystack:refund.pending'],
      ['transfer.success', paystackFixtures.transferSuccess(), 'paystack:transfer.success'],
    ])('maps %s to %s', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({ type, nativeType });
    });

    it('reads a charge: id, reference, amount in kobo, currency, status, paid_at', () => {
      expect(normalize(CHARGE)).toMatchObject({
        eventId: 'charge.success:4099260516:success',
        paymentRef: '4099260516',
        merchantRef: 'order-42',
        amount: 500000,
        currency: 'NGN',
        status: 'success',
        occurredAt: new Date('2024-06-01T10:15:30.000Z'),
        occurredAtSigned: true,
      });
      expect(normalize(CHARGE).payload).toEqual(JSON.parse(CHARGE));
    });

    it.each([
      ['GHS', 250075],
      ['KES', 1999],
      ['ZAR', 10050],
      ['USD', 2000],
    ])('keeps %s amounts as sent: already in the subunit', (currency, amount) => {
      expect(normalize(paystackFixtures.chargeSuccess({ currency, amount }))).toMatchObject({
        amount,
        currency,
      });
    });

    it('reads a refund: the charge reference, the amount refunded (integer or digits)', () => {
      const event = paystackFixtures.refundProcessed({ reference: 'order-42', amount: 150000 });
      expect(normalize(event)).toMatchObject({
        merchantRef: 'order-42',
        amount: 150000,
        currency: 'NGN',
        status: 'processed',
        occurredAtSigned: false,
      });
      expect(normalize({ ...event, data: { ...event.data, amount: '150000' } }).amount).toBe(
        150000,
      );
      expect(
        normalize({ ...event, data: { ...event.data, amount: '1500.00' } }).amount,
      ).toBeUndefined();
    });

    it('reads a dispute: the disputed transaction and its amount', () => {
      const event = paystackFixtures.disputeCreate({
        reference: 'order-42',
        transactionId: 4099260516,
        amount: 500000,
      });
      expect(normalize(event)).toMatchObject({
        paymentRef: '4099260516',
        merchantRef: 'order-42',
        amount: 500000,
        currency: 'NGN',
        status: 'awaiting-merchant-feedback',
        occurredAtSigned: false,
      });
    });

    it('gives two partial refunds of one charge, and each state of a refund, their own keys', () => {
      const first = paystackFixtures.refundProcessed({ reference: 'order-42', amount: 1000 });
      const second = paystackFixtures.refundProcessed({ reference: 'order-42', amount: 1000 });
      const pending = paystackFixtures.refundPending({ refundId: first.data.id as number });
      const keys = [first, second, pending].map((event) => normalize(event).eventId);
      expect(new Set(keys).size).toBe(3);
    });

    it('gives a dispute reminder its own key for each update of the dispute', () => {
      const created = paystackFixtures.disputeCreate();
      const remind = (updatedAt: string) => ({
        event: 'charge.dispute.remind',
        data: { ...created.data, updatedAt },
      });
      expect(normalize(remind('2024-06-02T10:00:00.000Z')).eventId).not.toBe(
        normalize(remind('2024-06-03T10:00:00.000Z')).eventId,
      );
    });

    it('gives the same key to every delivery of one event', () => {
      const event = paystackFixtures.chargeSuccess();
      expect(normalize(event).eventId).toBe(normalize(JSON.stringify(event, null, 2)).eventId);
      expect(normalize(paystackFixtures.chargeSuccess()).eventId).not.toBe(
        normalize(event).eventId,
      );
    });

    it('keys an event that names no object by the SHA-256 of its body', () => {
      const body = '{"event":"customeridentification.failed","data":{"email":"a@example.com"}}';
      expect(normalize(body).eventId).toMatch(
        /^customeridentification\.failed:sha256:[0-9a-f]{64}$/,
      );
      expect(normalize(body).eventId).toBe(normalize(body).eventId);
    });

    it.each([
      ['not JSON', '{"event": "charge.success",'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
      ['an event without data', '{"event":"charge.success"}'],
      ['an event without a name', '{"event":"","data":{}}'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(rejection(() => provider().normalize(delivery(body, {})))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });
  });
});
