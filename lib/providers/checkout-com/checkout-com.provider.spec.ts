import { createHmac } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { checkoutComMinorUnits } from './checkout-com-amounts';
import { checkoutComFixtures } from './checkout-com.fixtures';
import { CheckoutComEndpointOptions, checkoutComEndpoint } from './checkout-com.provider';

// Checkout.com's documented payment_captured example (shortened), its signature computed once
// with Python's hmac module: a known answer from another implementation.
const DOCS_VECTOR = {
  body: '{"id":"evt_fkfqht6yonme7bk7jawrgzbbxq","source":"gwc_notifier1","type":"payment_captured","timestamp":"2023-05-24T09:12:32.357+00:00","version":"1.0.29","data":{"id":"pay_vti5layihapu5bhbn5tjtk6eem","action_id":"act_uqlj3642dyyuroivzdwfg2fysq","reference":"ORD-5023-4E89","amount":20,"processed_on":"2023-05-24T09:12:27.4695512Z","response_code":"10000","response_summary":"Approved","metadata":{"coupon_code":"NY2018","partner_id":"123989"},"currency":"EUR"}}',
  key: 'cko-signature-key-example',
  signature: 'c3594670d3ff4968624d11062cac0e643bb808304ee5bbf12ea4e538ac100a22',
};

const KEY = 'b7f2c3a9-5e1d-4f0a-9c3b-2d8e6f1a4c7e';
const OTHER_KEY = 'e1d4a7c2-9b3f-4e6a-8d1c-5f2b7a9e3c0d';
const AUTHORIZATION = 'cko-auth-3f9a1c7e5b2d';

function independentSignature(body: string | Buffer, key = KEY): string {
  return createHmac('sha256', key).update(body).digest('hex');
}

function delivery(body: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signed(body: string | Buffer, key = KEY, extra: Record<string, string> = {}) {
  return delivery(body, { 'cko-signature': independentSignature(body, key), ...extra });
}

function provider(options: Partial<CheckoutComEndpointOptions> = {}): WebhookProvider {
  return checkoutComEndpoint({ name: 'checkout-com', signatureKey: KEY, ...options }).provider;
}

const CAPTURED = JSON.stringify(
  checkoutComFixtures.paymentCaptured({
    reference: 'order-42',
    amount: 1999,
    currency: 'USD',
    eventId: 'evt_az5sblvku4ge3dwpztvyizgcau',
    paymentId: 'pay_mbabizu24mvu3mela5njyhpit4',
    createdOn: new Date('2024-05-12T18:14:14.000Z'),
  }),
);

describe('checkoutComEndpoint', () => {
  describe('verify', () => {
    it('accepts the documented example signed by another implementation', () => {
      expect(independentSignature(DOCS_VECTOR.body, DOCS_VECTOR.key)).toBe(DOCS_VECTOR.signature);
      expect(() =>
        provider({ signatureKey: DOCS_VECTOR.key }).verify(
          delivery(DOCS_VECTOR.body, { 'cko-signature': DOCS_VECTOR.signature }),
        ),
      ).not.toThrow();
    });

    it('accepts a delivery signed with node:crypto, multi-byte UTF-8 (©, ®, ™) included', () => {
      expect(() => provider().verify(signed(CAPTURED))).not.toThrow();
      const body = JSON.stringify({ ...JSON.parse(CAPTURED), note: 'Acme© Widget® Pro™ 東京' });
      expect(() => provider().verify(signed(Buffer.from(body, 'utf8')))).not.toThrow();
    });

    it('accepts either key while two are configured (rotation), upper-case hex too', () => {
      const rotating = provider({ signatureKey: [OTHER_KEY, KEY] });
      expect(() => rotating.verify(signed(CAPTURED, KEY))).not.toThrow();
      expect(() => rotating.verify(signed(CAPTURED, OTHER_KEY))).not.toThrow();
      const upper = { 'cko-signature': independentSignature(CAPTURED).toUpperCase() };
      expect(() => provider().verify(delivery(CAPTURED, upper))).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const request = signed(CAPTURED);
      const tampered = Buffer.from(request.rawBody);
      tampered[tampered.indexOf('1999')] = '9'.charCodeAt(0);
      expect(
        rejection(() =>
          provider().verify(delivery(tampered, request.headers as Record<string, string>)),
        ),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another key, without echoing key or signature', () => {
      const error = rejection(() => provider().verify(signed(CAPTURED, OTHER_KEY)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(KEY);
      expect(error.message).not.toContain(independentSignature(CAPTURED));
    });

    it.each([
      ['absent', {}],
      ['empty', { 'cko-signature': '' }],
      ['blank', { 'cko-signature': ' ' }],
    ])('rejects a delivery whose Cko-Signature is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(CAPTURED, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing Cko-Signature header',
      });
    });

    it.each([
      ['base64', createHmac('sha256', KEY).update(CAPTURED).digest('base64')],
      ['truncated', independentSignature(CAPTURED).slice(1)],
    ])('rejects a %s signature as malformed', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(CAPTURED, { 'cko-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature', message: expect.stringMatching(/^Malformed/) });
    });

    describe('with an Authorization key configured', () => {
      const guarded = () => provider({ authorization: AUTHORIZATION });

      it('accepts a signed delivery that carries it', () => {
        const request = signed(CAPTURED, KEY, { authorization: AUTHORIZATION });
        expect(() => guarded().verify(request)).not.toThrow();
      });

      it('refuses a signed delivery without it as missing, with another one as bad', () => {
        expect(rejection(() => guarded().verify(signed(CAPTURED)))).toMatchObject({
          reason: 'missing_signature',
          message: expect.stringMatching(/^Missing Authorization header/),
        });
        const wrong = signed(CAPTURED, KEY, { authorization: `${AUTHORIZATION}x` });
        const error = rejection(() => guarded().verify(wrong));
        expect(error).toMatchObject({ reason: 'bad_signature' });
        expect(error.message).not.toContain(AUTHORIZATION);
      });

      it('still checks the signature when the Authorization header is right', () => {
        const request = signed(CAPTURED, OTHER_KEY, { authorization: AUTHORIZATION });
        expect(rejection(() => guarded().verify(request))).toMatchObject({
          reason: 'bad_signature',
        });
      });

      it('accepts either of two keys while replacing it', () => {
        const rotating = provider({ authorization: ['cko-auth-old', AUTHORIZATION] });
        for (const authorization of ['cko-auth-old', AUTHORIZATION]) {
          expect(() => rotating.verify(signed(CAPTURED, KEY, { authorization }))).not.toThrow();
        }
      });
    });

    it('ignores an Authorization header when none is configured', () => {
      expect(() =>
        provider().verify(signed(CAPTURED, KEY, { authorization: 'anything' })),
      ).not.toThrow();
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<CheckoutComEndpointOptions>): string {
      const error = rejection(() =>
        checkoutComEndpoint({ name: 'checkout-com', ...options } as CheckoutComEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers with an empty 200', () => {
      const endpoint = checkoutComEndpoint({ name: 'checkout-com', signatureKey: KEY });
      expect(endpoint.acknowledgement).toEqual({
        status: 200,
        body: '',
        contentType: 'text/plain; charset=utf-8',
      });
      expect(endpoint.provider.kind).toBe('checkout-com');
    });

    it('requires a signature key, and refuses one with whitespace without quoting it', () => {
      expect(configError({})).toMatch(/no usable signatureKey/);
      const message = configError({ signatureKey: `${KEY}\n` });
      expect(message).toMatch(/signatureKey contains whitespace/);
      expect(message).not.toContain(KEY);
    });

    it.each([[''], [' '], [[]], [[AUTHORIZATION, '']]])(
      'refuses authorization %j and says where to find it',
      (authorization) => {
        expect(configError({ signatureKey: KEY, authorization: authorization as string })).toMatch(
          /no usable authorization: set it to the Authorization header key/,
        );
      },
    );
  });

  describe('normalize', () => {
    function normalize(event: object | string): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider().normalize(delivery(body, {})))[0];
    }

    it.each([
      ['payment_approved', checkoutComFixtures.paymentApproved(), 'payment.authorized'],
      ['payment_captured', checkoutComFixtures.paymentCaptured(), 'payment.succeeded'],
      ['payment_declined', checkoutComFixtures.paymentDeclined(), 'payment.failed'],
      ['payment_voided', checkoutComFixtures.paymentVoided(), 'payment.canceled'],
      ['payment_refunded', checkoutComFixtures.paymentRefunded(), 'refund.succeeded'],
      ['payment_refund_declined', checkoutComFixtures.paymentRefundDeclined(), 'refund.failed'],
      [
        'dispute_evidence_required',
        checkoutComFixtures.disputeEvidenceRequired(),
        'dispute.opened',
      ],
      ['dispute_won', checkoutComFixtures.disputeWon(), 'dispute.closed'],
      ['dispute_lost', checkoutComFixtures.disputeLost(), 'dispute.closed'],
    ])('maps %s to %s, keyed by the event id', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({ type, nativeType, eventId: event.id });
    });

    it.each([
      ['payment_canceled', 'payment.canceled'],
      ['payment_paid', 'payment.succeeded'],
      ['payment_capture_declined', 'payment.failed'],
      ['dispute_received', 'dispute.opened'],
      ['dispute_resolved', 'dispute.closed'],
      ['dispute_accepted', 'dispute.closed'],
      ['payment_pending', 'checkout-com:payment_pending'],
      ['payment_chargeback', 'checkout-com:payment_chargeback'],
      ['constructor', 'checkout-com:constructor'],
    ])('maps %s to %s', (nativeType, type) => {
      const event = { ...checkoutComFixtures.paymentCaptured(), type: nativeType };
      expect(normalize(event)).toMatchObject({ type, nativeType });
    });

    it('reads a payment: id, reference, amount in minor units, created_on', () => {
      expect(normalize(CAPTURED)).toMatchObject({
        eventId: 'evt_az5sblvku4ge3dwpztvyizgcau',
        paymentRef: 'pay_mbabizu24mvu3mela5njyhpit4',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'USD',
        occurredAt: new Date('2024-05-12T18:14:14.000Z'),
        occurredAtSigned: true,
        payload: JSON.parse(CAPTURED),
      });
    });

    it('reads the documented example, whose event time is `timestamp`', () => {
      expect(normalize(DOCS_VECTOR.body)).toMatchObject({
        eventId: 'evt_fkfqht6yonme7bk7jawrgzbbxq',
        type: 'payment.succeeded',
        paymentRef: 'pay_vti5layihapu5bhbn5tjtk6eem',
        merchantRef: 'ORD-5023-4E89',
        amount: 20,
        currency: 'EUR',
        occurredAt: new Date('2023-05-24T09:12:32.357Z'),
        occurredAtSigned: true,
      });
    });

    it('reads a dispute: the disputed payment and its reference, never the dispute id', () => {
      const event = checkoutComFixtures.disputeEvidenceRequired({
        paymentId: 'pay_mbabizu24mvu3mela5njyhpit4',
        reference: 'order-42',
        amount: 2500,
        currency: 'GBP',
      });
      expect(normalize(event)).toMatchObject({
        paymentRef: 'pay_mbabizu24mvu3mela5njyhpit4',
        merchantRef: 'order-42',
        amount: 2500,
        currency: 'GBP',
      });
    });

    it('keeps amounts in minor units: zero-decimal JPY and three-decimal KWD as sent', () => {
      expect(
        normalize(checkoutComFixtures.paymentCaptured({ amount: 5000, currency: 'JPY' })),
      ).toMatchObject({ amount: 5000, currency: 'JPY' });
      expect(
        normalize(checkoutComFixtures.paymentCaptured({ amount: 1250, currency: 'KWD' })),
      ).toMatchObject({ amount: 1250, currency: 'KWD' });
    });

    it('turns a CLP amount, divided by 100 at Checkout.com, into whole pesos', () => {
      expect(
        normalize(checkoutComFixtures.paymentCaptured({ amount: 150000, currency: 'CLP' })),
      ).toMatchObject({ amount: 1500, currency: 'CLP' });
      expect(checkoutComMinorUnits(150050, 'CLP')).toBeUndefined();
      expect(checkoutComMinorUnits(1999, 'usd')).toBe(1999);
      expect(checkoutComMinorUnits('1999', 'USD')).toBeUndefined();
    });

    it('gives two partial refunds of one payment their own events, and a retry the same key', () => {
      const paymentId = 'pay_mbabizu24mvu3mela5njyhpit4';
      const first = checkoutComFixtures.paymentRefunded({ paymentId, amount: 500 });
      const second = checkoutComFixtures.paymentRefunded({ paymentId, amount: 500 });
      expect(normalize(first).eventId).not.toBe(normalize(second).eventId);
      expect(normalize(first)).toMatchObject({ paymentRef: paymentId, amount: 500 });
      expect(normalize(JSON.stringify(first)).eventId).toBe(first.id);
    });

    it('keeps an event without data (issuing events carry event_data) native, unreferenced', () => {
      const event = {
        id: 'evt_az5sblvku4ge3dwpztvyizgcau',
        type: 'issuing_dispute_closed',
        version: '2.0.0',
        created_on: '2025-01-21T09:41:53.1665936Z',
        event_data: { dispute_id: 'idsp_c66fzwkbeegenwuhmfkzu5rs3y', status: 'won' },
      };
      expect(normalize(event)).toMatchObject({
        type: 'checkout-com:issuing_dispute_closed',
        paymentRef: undefined,
        amount: undefined,
        occurredAt: new Date('2025-01-21T09:41:53.166Z'),
      });
    });

    it.each([
      ['not JSON', '{"id":'],
      ['without an id', '{"type":"payment_captured","data":{}}'],
      ['with a numeric type', '{"id":"evt_1","type":7}'],
      ['with data that is a list', '{"id":"evt_1","type":"payment_captured","data":[]}'],
    ])('throws WebhookPayloadError for a body %s', (_label, body) => {
      expect(rejection(() => provider().normalize(delivery(body, {})))).toMatchObject({
        name: 'WebhookPayloadError',
      });
    });
  });
});
