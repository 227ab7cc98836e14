import DodoPayments from 'dodopayments';
import { Webhook } from 'standardwebhooks';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { dodoPaymentsFixtures } from './dodo-payments.fixtures';
import {
  DodoPaymentsEndpointOptions,
  dodoPaymentsEndpoint,
  dodoPaymentsProvider,
} from './dodo-payments.provider';
import { signDodoPaymentsDelivery } from './dodo-payments.signer';

const SECRET = `whsec_${Buffer.alloc(24, 0x61).toString('base64')}`;
const OTHER_SECRET = `whsec_${Buffer.alloc(24, 0x62).toString('base64')}`;
const NOW = 1_790_000_000;
const MSG_ID = 'msg_2yZk4Qw8Rt6Vb1Xn3Jp5Lm7Hc9D';

/** Headers signed by the official standardwebhooks library, as Dodo Payments signs. */
function dodoHeaders(
  body: string,
  secret = SECRET,
  { id = MSG_ID, at = NOW }: { id?: string; at?: number } = {},
): Record<string, string> {
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(at),
    'webhook-signature': new Webhook(secret).sign(id, new Date(at * 1000), body),
  };
}

function delivery(body: string, headers: Record<string, string>, at = NOW): InboundWebhook {
  return { rawBody: Buffer.from(body, 'utf8'), headers, receivedAt: new Date(at * 1000) };
}

function provider(options: Partial<DodoPaymentsEndpointOptions> = {}): WebhookProvider {
  return dodoPaymentsEndpoint({ name: 'dodo', secret: SECRET, ...options }).provider;
}

const PAYMENT = JSON.stringify(
  dodoPaymentsFixtures.paymentSucceeded({
    orderId: 'order-42',
    amount: 1999,
    currency: 'USD',
    paymentId: 'pay_3Xa9Lm2Qr7Tz5Wk1Nb8Vc',
    createdAt: new Date('2026-09-21T10:00:00.000Z'),
  }),
);

describe('dodoPaymentsEndpoint', () => {
  describe('verify', () => {
    it('accepts a genuine delivery, and agrees with the Dodo Payments SDK’s webhooks.unwrap', () => {
      const now = Math.floor(Date.now() / 1000);
      const headers = dodoHeaders(PAYMENT, SECRET, { at: now });
      expect(() => provider().verify(delivery(PAYMENT, headers, now))).not.toThrow();
      const dodo = new DodoPayments({ bearerToken: 'sk_test_unused', webhookKey: SECRET });
      expect(dodo.webhooks.unwrap(PAYMENT, { headers })).toEqual(JSON.parse(PAYMENT));
    });

    it('accepts what signDodoPaymentsDelivery makes, headers and body as sent', () => {
      const sent = signDodoPaymentsDelivery({
        payload: dodoPaymentsFixtures.refundSucceeded(),
        secret: SECRET,
        timestamp: NOW,
      });
      expect(() => provider().verify(delivery(sent.body, { ...sent.headers }))).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      for (const secret of [OTHER_SECRET, SECRET]) {
        expect(() =>
          rotating.verify(delivery(PAYMENT, dodoHeaders(PAYMENT, secret))),
        ).not.toThrow();
      }
    });

    it('rejects a body changed by one byte', () => {
      const tampered = PAYMENT.replace('"total_amount":1999', '"total_amount":1990');
      expect(tampered).not.toBe(PAYMENT);
      expect(
        rejection(() => provider().verify(delivery(tampered, dodoHeaders(PAYMENT)))),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a changed webhook-id: the id is signed', () => {
      const headers = { ...dodoHeaders(PAYMENT), 'webhook-id': 'msg_other' };
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers))).reason).toBe(
        'bad_signature',
      );
    });

    it('rejects a delivery signed with another secret, without echoing either', () => {
      const error = rejection(() =>
        provider().verify(delivery(PAYMENT, dodoHeaders(PAYMENT, OTHER_SECRET))),
      );
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(SECRET.slice(6));
      expect(error.message).not.toContain(OTHER_SECRET.slice(6));
    });

    it.each(['webhook-id', 'webhook-timestamp', 'webhook-signature'])(
      'rejects a delivery without %s as missing_signature',
      (name) => {
        const headers: Record<string, string> = dodoHeaders(PAYMENT);
        delete headers[name];
        expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
          reason: 'missing_signature',
          message: expect.stringContaining(name),
        });
      },
    );

    it.each([
      ['a timestamp in milliseconds', { 'webhook-timestamp': `${NOW}000x` }],
      ['a signature without its v1, prefix', { 'webhook-signature': 'bm90IGEgc2lnbmF0dXJl' }],
      ['an id with a "." in it', { 'webhook-id': 'msg.1' }],
    ])('rejects %s as bad_signature', (_label, change) => {
      const headers = { ...dodoHeaders(PAYMENT), ...change };
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers))).reason).toBe(
        'bad_signature',
      );
    });

    it.each([301, -301])('refuses a genuine delivery %i s off the signed timestamp', (skew) => {
      const request = delivery(PAYMENT, dodoHeaders(PAYMENT), NOW + skew);
      expect(rejection(() => provider().verify(request)).reason).toBe('timestamp_out_of_window');
    });

    it.each([300, -300])('accepts a genuine delivery %i s off, inside the window', (skew) => {
      expect(() =>
        provider().verify(delivery(PAYMENT, dodoHeaders(PAYMENT), NOW + skew)),
      ).not.toThrow();
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<DodoPaymentsEndpointOptions>): string {
      const error = rejection(() =>
        dodoPaymentsEndpoint({ name: 'dodo', ...options } as DodoPaymentsEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const endpoint = dodoPaymentsEndpoint({ name: 'dodo', secret: SECRET });
      expect(endpoint).toMatchObject({
        name: 'dodo',
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      });
      expect(endpoint.provider.kind).toBe('dodo-payments');
      expect(endpoint.provider.storedHeaders).toEqual(
        expect.arrayContaining(['webhook-id', 'webhook-timestamp']),
      );
    });

    it('requires a secret', () => {
      expect(configError({})).toMatch(/"dodo" \(dodo-payments\) has no usable secret/);
    });

    it.each([
      ['an API key', 'sk_live_0123456789abcdef'],
      ['unpadded base64', `whsec_${Buffer.alloc(25, 0x61).toString('base64').replace(/=+$/, '')}`],
    ])('refuses %s as the secret, naming where the signing secret is', (_label, secret) => {
      const message = configError({ secret: [SECRET, secret] });
      expect(message).toMatch(/secret\[1\] is not a signing secret .* Developer → Webhooks/);
      expect(message).not.toContain(secret);
    });

    it('refuses a secret with whitespace without quoting it', () => {
      const message = configError({ secret: `${SECRET}\n` });
      expect(message).toMatch(/secret contains whitespace/);
      expect(message).not.toContain(SECRET.slice(6));
    });
  });

  describe('normalize', () => {
    function normalize(event: object | string, id = MSG_ID, dodo = provider()) {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      const request = delivery(body, { 'webhook-id': id, 'webhook-timestamp': String(NOW) });
      return notificationsOf(dodo.normalize(request))[0] as NormalizedNotification;
    }

    const f = dodoPaymentsFixtures;
    it.each([
      ['payment.succeeded', f.paymentSucceeded(), 'payment.succeeded', 'succeeded'],
      ['payment.failed', f.paymentFailed(), 'payment.failed', 'failed'],
      ['payment.cancelled', f.paymentCancelled(), 'payment.canceled', 'cancelled'],
      [
        'payment.processing',
        f.paymentProcessing(),
        'dodo-payments:payment.processing',
        'processing',
      ],
      ['refund.succeeded', f.refundSucceeded(), 'refund.succeeded', 'succeeded'],
      ['refund.failed', f.refundFailed(), 'refund.failed', 'failed'],
      ['dispute.opened', f.disputeOpened(), 'dispute.opened', 'dispute_opened'],
      ['dispute.won', f.disputeUpdated('won'), 'dispute.closed', 'dispute_won'],
      ['dispute.lost', f.disputeUpdated('lost'), 'dispute.closed', 'dispute_lost'],
      ['dispute.accepted', f.disputeUpdated('accepted'), 'dispute.closed', 'dispute_accepted'],
      ['dispute.cancelled', f.disputeUpdated('cancelled'), 'dispute.closed', 'dispute_cancelled'],
      ['dispute.expired', f.disputeUpdated('expired'), 'dispute.closed', 'dispute_expired'],
      [
        'dispute.challenged',
        f.disputeUpdated('challenged'),
        'dodo-payments:dispute.challenged',
        'dispute_challenged',
      ],
      [
        'subscription.active',
        {
          type: 'subscription.active',
          timestamp: '2026-09-21T10:00:00Z',
          data: { status: 'active' },
        },
        'dodo-payments:subscription.active',
        'active',
      ],
    ])('maps %s to %s, keeping the native type and status', (nativeType, event, type, status) => {
      expect(normalize(event)).toMatchObject({ type, nativeType, status, eventId: MSG_ID });
    });

    it('reads a payment: payment_id, metadata order id, total_amount, currency, timestamp', () => {
      const result = normalize(PAYMENT);
      expect(result).toMatchObject({
        eventId: MSG_ID,
        type: 'payment.succeeded',
        paymentRef: 'pay_3Xa9Lm2Qr7Tz5Wk1Nb8Vc',
        merchantRef: 'order-42',
        amount: 1999,
        currency: 'USD',
        status: 'succeeded',
        occurredAt: new Date('2026-09-21T10:00:00.000Z'),
      });
      expect(result.occurredAtSigned).toBeUndefined();
      expect(result.payload).toEqual(JSON.parse(PAYMENT));
    });

    it.each([
      ['a zero-decimal currency', 'JPY', 1999],
      ['a three-decimal currency', 'KWD', 1999],
    ])('passes %s through in Dodo’s minor units', (_label, currency, amount) => {
      expect(normalize(f.paymentSucceeded({ amount, currency }))).toMatchObject({
        amount,
        currency,
      });
    });

    it('reads a dispute’s string amount as minor units, and nothing from one that is not whole', () => {
      const dispute = f.disputeOpened({ amount: 1999, paymentId: 'pay_x' });
      expect(normalize(dispute)).toMatchObject({ amount: 1999, paymentRef: 'pay_x' });
      const decimal = { ...dispute, data: { ...dispute.data, amount: '19.99' } };
      expect(normalize(decimal).amount).toBeUndefined();
    });

    it('reads the merchantRefKey entry of metadata', () => {
      const event = f.paymentSucceeded();
      const withRef = { ...event, data: { ...event.data, metadata: { cart: 'cart-9' } } };
      expect(normalize(withRef, MSG_ID, provider({ merchantRefKey: 'cart' })).merchantRef).toBe(
        'cart-9',
      );
    });

    it('gives two partial refunds of one payment their own keys and amounts', () => {
      const paymentId = 'pay_3Xa9Lm2Qr7Tz5Wk1Nb8Vc';
      const first = normalize(
        f.refundSucceeded({ paymentId, amount: 500, isPartial: true }),
        'msg_1',
      );
      const second = normalize(
        f.refundSucceeded({ paymentId, amount: 700, isPartial: true }),
        'msg_2',
      );
      expect([first.eventId, second.eventId]).toEqual(['msg_1', 'msg_2']);
      expect([first.paymentRef, second.paymentRef]).toEqual([paymentId, paymentId]);
      expect([first.amount, second.amount]).toEqual([500, 700]);
    });

    it('keys a retry (same webhook-id, new timestamp and signature) as the first delivery', () => {
      const dodo = provider();
      const keys = [NOW, NOW + 5].map((at) => {
        const request = delivery(PAYMENT, dodoHeaders(PAYMENT, SECRET, { at }), at);
        dodo.verify(request);
        return notificationsOf(dodo.normalize(request))[0].eventId;
      });
      expect(keys).toEqual([MSG_ID, MSG_ID]);
    });

    it('refuses a body that is not a Dodo Payments event', () => {
      for (const body of ['[]', '{"type":"payment.succeeded"}', '{"data":{}}', 'not json']) {
        expect(rejection(() => normalize(body)).name).toBe('WebhookPayloadError');
      }
    });
  });
});

describe('dodoPaymentsProvider', () => {
  it('signs for the CLI under its aliases’ kind with a whsec_ secret only', () => {
    const { descriptor } = dodoPaymentsProvider;
    const secret = `whsec_${Buffer.alloc(24, 1).toString('base64')}`;
    const input = { text: '{}', json: {}, secret, options: {}, readFile: () => '' };
    expect(descriptor.signing.sign(input).provider).toBe('dodo-payments');
    expect(() => descriptor.signing.sign({ ...input, secret: 'sk_live_not_a_secret' })).toThrow(
      /whsec_/,
    );
    expect(descriptor.aliases).toEqual(['dodo', 'dodopayments']);
  });
});
