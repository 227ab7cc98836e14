import { createHmac } from 'node:crypto';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';
import { goCardlessFixtures, GoCardlessEvent } from './gocardless.fixtures';
import { GoCardlessEndpointOptions, goCardlessEndpoint } from './gocardless.provider';

// NOTE: the SDK's root entry also loads its API client, which needs an ES-module-only uuid; its
// webhooks entry is CommonJS alone. TypeScript finds the types through the root entry.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { parse } = require('gocardless-nodejs/webhooks') as Pick<
  typeof import('gocardless-nodejs'),
  'parse'
>;

// The official SDK's test vector (gocardless-nodejs src/__tests__/webhooks.test.ts): its fixture
// body as JSON.stringify writes it, its secret and the signature it expects.
const SDK_VECTOR = {
  body: JSON.stringify({
    events: [
      {
        id: 'EV00BD05S5VM2T',
        created_at: '2018-07-05T09:13:51.404Z',
        resource_type: 'subscriptions',
        action: 'created',
        links: { subscription: 'SB0003JJQ2MR06' },
        details: {
          origin: 'api',
          cause: 'subscription_created',
          description: 'Subscription created via the API.',
        },
        metadata: {},
      },
      {
        id: 'EV00BD05TB8K63',
        created_at: '2018-07-05T09:13:56.893Z',
        resource_type: 'mandates',
        action: 'created',
        links: { mandate: 'MD000AMA19XGEC' },
        details: {
          origin: 'api',
          cause: 'mandate_created',
          description: 'Mandate created via the API.',
        },
        metadata: {},
      },
    ],
  }),
  secret: 'ED7D658C-D8EB-4941-948B-3973214F2D49',
  signature: '2693754819d3e32d7e8fcb13c729631f316c6de8dc1cf634d6527f1c07276e7e',
};

const SECRET = 'gc_whsec_Jx4tQm0ZyP8rVb2Ns6Lh';
const OTHER_SECRET = 'gc_whsec_Wq7eRt1UiO3pAs5Df9Gh';

function delivery(body: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signature(body: string | Buffer, secret = SECRET): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

function signed(body: string | Buffer, secret = SECRET): InboundWebhook {
  return delivery(body, { 'webhook-signature': signature(body, secret) });
}

function provider(options: Partial<GoCardlessEndpointOptions> = {}): WebhookProvider {
  return goCardlessEndpoint({ name: 'gocardless', secret: SECRET, ...options }).provider;
}

const CONFIRMED = goCardlessFixtures.paymentConfirmed({
  eventId: 'EV01J7QRF0KJWR',
  paymentId: 'PM0004RZ68FD1A',
  orderId: 'order-42',
  createdAt: new Date('2024-03-22T17:05:25.054Z'),
});
const WEBHOOK = JSON.stringify(goCardlessFixtures.webhook(CONFIRMED));

describe('goCardlessEndpoint', () => {
  describe('verify', () => {
    it('accepts the official SDK test vector, as the SDK does', () => {
      expect(signature(SDK_VECTOR.body, SDK_VECTOR.secret)).toBe(SDK_VECTOR.signature);
      expect(parse(SDK_VECTOR.body, SDK_VECTOR.secret, SDK_VECTOR.signature)).toHaveLength(2);
      const gocardless = provider({ secret: SDK_VECTOR.secret });
      expect(() =>
        gocardless.verify(delivery(SDK_VECTOR.body, { 'webhook-signature': SDK_VECTOR.signature })),
      ).not.toThrow();
    });

    it('accepts a delivery signed with node:crypto, which the SDK accepts too', () => {
      expect(() => provider().verify(signed(WEBHOOK))).not.toThrow();
      expect(parse(WEBHOOK, SECRET, signature(WEBHOOK))[0].id).toBe('EV01J7QRF0KJWR');
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const body = WEBHOOK.replace('order-42', 'commande-été-東京');
      expect(() => provider().verify(signed(Buffer.from(body, 'utf8')))).not.toThrow();
    });

    it('accepts the signature in upper-case hex, as the SDK does', () => {
      const upper = signature(WEBHOOK).toUpperCase();
      expect(() => parse(WEBHOOK, SECRET, upper)).not.toThrow();
      expect(() =>
        provider().verify(delivery(WEBHOOK, { 'webhook-signature': upper })),
      ).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      expect(() => rotating.verify(signed(WEBHOOK, SECRET))).not.toThrow();
      expect(() => rotating.verify(signed(WEBHOOK, OTHER_SECRET))).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const request = signed(WEBHOOK);
      const tampered = WEBHOOK.replace('order-42', 'order-43');
      expect(
        rejection(() =>
          provider().verify(delivery(tampered, request.headers as Record<string, string>)),
        ),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const error = rejection(() => provider().verify(signed(WEBHOOK, OTHER_SECRET)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/does not match/);
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(signature(WEBHOOK, OTHER_SECRET));
    });

    it.each([
      ['absent', {}],
      ['empty', { 'webhook-signature': '' }],
      ['blank', { 'webhook-signature': '  ' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(WEBHOOK, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing Webhook-Signature header',
      });
    });

    it.each([
      ['base64 instead of hex', createHmac('sha256', SECRET).update(WEBHOOK).digest('base64')],
      ['a truncated signature', signature(WEBHOOK).slice(0, 63)],
      ['trailing characters the SDK would drop', `${signature(WEBHOOK)}zz`],
      ['HMAC-SHA512', createHmac('sha512', SECRET).update(WEBHOOK).digest('hex')],
    ])('rejects %s as a malformed header', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(WEBHOOK, { 'webhook-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature', message: expect.stringMatching(/^Malformed/) });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<GoCardlessEndpointOptions>): string {
      const error = rejection(() =>
        goCardlessEndpoint({ name: 'gocardless', ...options } as GoCardlessEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('answers 204 No Content, and refuses a bad signature with 498 Token Invalid', () => {
      const endpoint = goCardlessEndpoint({ name: 'gocardless', secret: SECRET });
      expect(endpoint.acknowledgement).toMatchObject({ status: 204, body: '' });
      expect(endpoint.provider.signatureRefusalStatus).toBe(498);
      expect(endpoint.provider.kind).toBe('gocardless');
    });

    it('requires a secret', () => {
      expect(configError({})).toMatch(/"gocardless" \(gocardless\) has no usable secret/);
      expect(configError({ secret: [SECRET, ''] })).toMatch(/no usable secret/);
    });

    it('refuses a secret with whitespace without quoting it, and says where to copy it', () => {
      const message = configError({ secret: `${SECRET}\n` });
      expect(message).toMatch(/secret contains whitespace/);
      expect(message).toMatch(/Webhook endpoints/);
      expect(message).not.toContain(SECRET);
    });

    it('refuses an empty merchantRefKey', () => {
      expect(configError({ secret: SECRET, merchantRefKey: '' })).toMatch(/merchantRefKey/);
    });
  });

  describe('normalize', () => {
    function normalizeAll(body: object | string): readonly NormalizedNotification[] {
      const text = typeof body === 'string' ? body : JSON.stringify(body);
      return notificationsOf(provider().normalize(delivery(text, {})));
    }
    function normalize(event: GoCardlessEvent): NormalizedNotification {
      return normalizeAll(goCardlessFixtures.webhook(event))[0];
    }

    it.each([
      ['payments.confirmed', goCardlessFixtures.paymentConfirmed(), 'payment.succeeded'],
      ['payments.failed', goCardlessFixtures.paymentFailed(), 'payment.failed'],
      ['payments.cancelled', goCardlessFixtures.paymentCancelled(), 'payment.canceled'],
      ['payments.charged_back', goCardlessFixtures.paymentChargedBack(), 'dispute.opened'],
      ['refunds.paid', goCardlessFixtures.refundPaid(), 'refund.succeeded'],
      ['refunds.failed', goCardlessFixtures.refundFailed(), 'refund.failed'],
      ['payments.paid_out', goCardlessFixtures.paymentPaidOut(), 'gocardless:payments.paid_out'],
    ])('maps %s to %s, keyed by the event id', (nativeType, event, type) => {
      expect(normalize(event)).toMatchObject({ type, nativeType, eventId: event.id });
    });

    it('maps a chargeback cancelled to dispute.closed and keeps other types native', () => {
      const cancelled = {
        ...goCardlessFixtures.paymentChargedBack(),
        action: 'chargeback_cancelled',
      };
      const mandate = {
        ...goCardlessFixtures.paymentConfirmed(),
        resource_type: 'mandates',
        action: 'active',
      };
      expect(normalize(cancelled).type).toBe('dispute.closed');
      expect(normalize(mandate)).toMatchObject({
        type: 'gocardless:mandates.active',
        nativeType: 'mandates.active',
      });
    });

    it('reads a payment event: links.payment, the order id from resource_metadata, the action, created_at', () => {
      const [result] = normalizeAll(WEBHOOK);
      expect(result).toMatchObject({
        eventId: 'EV01J7QRF0KJWR',
        type: 'payment.succeeded',
        paymentRef: 'PM0004RZ68FD1A',
        merchantRef: 'order-42',
        status: 'confirmed',
        occurredAt: new Date('2024-03-22T17:05:25.054Z'),
        occurredAtSigned: true,
      });
    });

    it('carries no amount or currency: GoCardless events only link to the payment', () => {
      const [result] = normalizeAll(WEBHOOK);
      expect(result.amount).toBeUndefined();
      expect(result.currency).toBeUndefined();
    });

    it('reads the order id under merchantRefKey', () => {
      const event = { ...CONFIRMED, resource_metadata: { invoice: 'INV-7' } };
      const gocardless = provider({ merchantRefKey: 'invoice' });
      const [result] = notificationsOf(
        gocardless.normalize(delivery(JSON.stringify(goCardlessFixtures.webhook(event)), {})),
      );
      expect(result.merchantRef).toBe('INV-7');
      expect(normalize(event).merchantRef).toBeUndefined();
    });

    it('reads a refund: the refunded payment from links.payment', () => {
      const event = goCardlessFixtures.refundPaid({ paymentId: 'PM0004RZ68FD1A' });
      expect(normalize(event)).toMatchObject({ paymentRef: 'PM0004RZ68FD1A', status: 'paid' });
    });

    it('gives each event of a batch its own notification, stored alone as a one-event webhook', () => {
      const paymentId = 'PM0004RZ68FD1A';
      const refunds = [
        goCardlessFixtures.refundPaid({ paymentId }),
        goCardlessFixtures.refundPaid({ paymentId }),
      ];
      const body = goCardlessFixtures.webhook(
        goCardlessFixtures.paymentConfirmed({ paymentId }),
        ...refunds,
      );
      const results = normalizeAll(body);
      expect(results.map((r) => r.eventId)).toEqual(body.events.map((e) => e.id));
      expect(new Set(results.map((r) => r.eventId)).size).toBe(3);
      results.forEach((result, index) => {
        const stored = JSON.parse(result.storedBody!);
        expect(stored).toEqual({ events: [body.events[index]], meta: body.meta });
        expect(result.payload).toEqual(stored);
        // NOTE: a stored event is normalized again on replay, from its stored body alone.
        expect(normalizeAll(result.storedBody!)).toEqual([result]);
      });
    });

    it('gives the same key to every delivery of one event, whatever batch carries it', () => {
      const alone = normalizeAll(goCardlessFixtures.webhook(CONFIRMED))[0];
      const batched = normalizeAll(
        goCardlessFixtures.webhook(goCardlessFixtures.paymentFailed(), CONFIRMED),
      )[1];
      expect(batched.eventId).toBe(alone.eventId);
    });

    it('refuses the whole batch for one malformed event', () => {
      const body = goCardlessFixtures.webhook(
        goCardlessFixtures.paymentConfirmed(),
        { ...goCardlessFixtures.paymentConfirmed(), id: '' },
        goCardlessFixtures.paymentFailed(),
      );
      expect(rejection(() => normalizeAll(body))).toMatchObject({
        name: 'WebhookPayloadError',
        message: expect.stringMatching(/^GoCardless event 1 is not valid: id should not be empty/),
      });
    });

    it.each([
      ['not JSON', '{"events": ['],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
      ['a webhook with no events', '{"events":[]}'],
      ['an event that is not an object', '{"events":["EV123"]}'],
      ['an event without an action', '{"events":[{"id":"EV1","resource_type":"payments"}]}'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(
        rejection(() => provider().normalize(delivery(body as string | Buffer, {}))),
      ).toMatchObject({ name: 'WebhookPayloadError' });
    });
  });
});
