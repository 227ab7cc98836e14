import { createHmac } from 'node:crypto';
import { WebhooksHelper } from 'square';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { squareFixtures } from './square.fixtures';
import { signSquareDelivery } from './square.signer';
import { notificationsOf } from '../notifications';
import { SquareEndpointOptions, squareEndpoint } from './square.provider';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

// The two test vectors of the official SDK (providers.md §8, recomputed below with node:crypto).
const VECTOR_1 = {
  body: '{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}',
  key: 'Ibxx_5AKakO-3qeNVR61Dw',
  url: 'https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9',
  signature: 'GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=',
};
const VECTOR_2 = {
  body: '{"data":{"type":"webhooks","id":">id<"}}',
  key: 'signature-key',
  url: 'https://webhook.site/webhooks',
  signature: 'Cxt7+aTi4rKgcA0bC4g9EHdVtLSDWdqccmL5MvihU4U=',
};

const KEY = 'gRjS7mWQ0A1sTq2_vX9zLw';
const OTHER_KEY = 'Zp3yN8bVf5kEw0uH_cQ4Ta';
const NOTIFICATION_URL = 'https://shop.example.com/webhooks/square';

function independentSignature(body: string | Buffer, key = KEY, url = NOTIFICATION_URL): string {
  return createHmac('sha256', key)
    .update(Buffer.concat([Buffer.from(url, 'utf8'), Buffer.from(body)]))
    .digest('base64');
}

function delivery(body: string | Buffer, headers: Record<string, string>): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(),
  };
}

function signed(body: string | Buffer, key = KEY, url = NOTIFICATION_URL): InboundWebhook {
  return delivery(body, { 'x-square-hmacsha256-signature': independentSignature(body, key, url) });
}

function provider(options: Partial<SquareEndpointOptions> = {}): WebhookProvider {
  return squareEndpoint({
    name: 'square',
    signatureKey: KEY,
    notificationUrl: NOTIFICATION_URL,
    ...options,
  }).provider;
}

const PAYMENT = JSON.stringify(
  squareFixtures.paymentUpdated({
    status: 'COMPLETED',
    orderId: 'order-42',
    amount: 1099,
    currency: 'USD',
    eventId: '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc',
    paymentId: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
    createdAt: new Date('2024-05-12T18:14:14.000Z'),
  }),
);

describe('squareEndpoint', () => {
  describe('verify', () => {
    it.each([
      ['the first', VECTOR_1],
      ['the second', VECTOR_2],
    ])('accepts %s SDK test vector', async (_label, vector) => {
      expect(independentSignature(vector.body, vector.key, vector.url)).toBe(vector.signature);
      await expect(
        WebhooksHelper.verifySignature({
          requestBody: vector.body,
          signatureHeader: vector.signature,
          signatureKey: vector.key,
          notificationUrl: vector.url,
        }),
      ).resolves.toBe(true);
      const square = provider({ signatureKey: vector.key, notificationUrl: vector.url });
      expect(() =>
        square.verify(delivery(vector.body, { 'x-square-hmacsha256-signature': vector.signature })),
      ).not.toThrow();
    });

    it('accepts a delivery signed with node:crypto, and agrees with the official SDK', async () => {
      expect(() => provider().verify(signed(PAYMENT))).not.toThrow();
      await expect(
        WebhooksHelper.verifySignature({
          requestBody: PAYMENT,
          signatureHeader: independentSignature(PAYMENT),
          signatureKey: KEY,
          notificationUrl: NOTIFICATION_URL,
        }),
      ).resolves.toBe(true);
    });

    it('accepts what signSquareDelivery makes, headers and body as sent', () => {
      const sent = signSquareDelivery({
        payload: squareFixtures.paymentUpdated(),
        signatureKey: KEY,
        notificationUrl: NOTIFICATION_URL,
      });
      expect(() => provider().verify(delivery(sent.body, sent.headers))).not.toThrow();
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const body = JSON.stringify({ ...JSON.parse(PAYMENT), note: 'Café ☕ 東京' });
      expect(() => provider().verify(signed(Buffer.from(body, 'utf8')))).not.toThrow();
    });

    it('accepts either key while two are configured (rotation)', () => {
      const rotating = provider({ signatureKey: [OTHER_KEY, KEY] });
      expect(() => rotating.verify(signed(PAYMENT, KEY))).not.toThrow();
      expect(() => rotating.verify(signed(PAYMENT, OTHER_KEY))).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const request = signed(PAYMENT);
      const tampered = Buffer.from(request.rawBody);
      tampered[tampered.indexOf('1099')] = '9'.charCodeAt(0);
      expect(
        rejection(() =>
          provider().verify(delivery(tampered, request.headers as Record<string, string>)),
        ),
      ).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('rejects a signature made with another key, without echoing key or signature', () => {
      const error = rejection(() => provider().verify(signed(PAYMENT, OTHER_KEY)));
      expect(error.reason).toBe('bad_signature');
      expect(error.message).toMatch(/notificationUrl/);
      expect(error.message).not.toContain(KEY);
      expect(error.message).not.toContain(independentSignature(PAYMENT));
    });

    it.each([
      ['another path', 'https://shop.example.com/webhooks/square2'],
      ['a trailing slash', 'https://shop.example.com/webhooks/square/'],
      ['http instead of https', 'http://shop.example.com/webhooks/square'],
      ['a query string', 'https://shop.example.com/webhooks/square?x=1'],
      ['another host', 'https://shop.example.org/webhooks/square'],
    ])('rejects a delivery signed for %s', (_label, url) => {
      expect(rejection(() => provider().verify(signed(PAYMENT, KEY, url)))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it('uses the configured URL verbatim, never a normalized form', () => {
      // new URL() would lower-case the host and drop the default port; Square signs the text.
      const url = 'https://Shop.Example.com:443/Webhooks/Square?b=2&a=1';
      expect(() =>
        provider({ notificationUrl: url }).verify(signed(PAYMENT, KEY, url)),
      ).not.toThrow();
      expect(
        rejection(() =>
          provider({ notificationUrl: url }).verify(signed(PAYMENT, KEY, new URL(url).href)),
        ),
      ).toMatchObject({ reason: 'bad_signature' });
    });

    it('ignores headers that name another host or URL', () => {
      const request = signed(PAYMENT, KEY, 'https://evil.example/hook');
      const withHost = delivery(PAYMENT, {
        ...(request.headers as Record<string, string>),
        host: 'evil.example',
        'x-forwarded-host': 'evil.example',
        'x-original-url': '/hook',
      });
      expect(rejection(() => provider().verify(withHost))).toMatchObject({
        reason: 'bad_signature',
      });
    });

    it.each([
      ['absent', {}],
      ['empty', { 'x-square-hmacsha256-signature': '' }],
      ['blank', { 'x-square-hmacsha256-signature': ' ' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing x-square-hmacsha256-signature header',
      });
    });

    it('names the legacy HMAC-SHA1 header when only that one is present', () => {
      const legacy = createHmac('sha1', KEY)
        .update(`${NOTIFICATION_URL}${PAYMENT}`)
        .digest('base64');
      const error = rejection(() =>
        provider().verify(delivery(PAYMENT, { 'x-square-signature': legacy })),
      );
      expect(error.reason).toBe('missing_signature');
      expect(error.message).toMatch(/x-square-signature .* is not accepted/);
    });

    it.each([
      [
        'hex instead of base64',
        createHmac('sha256', KEY).update(`${NOTIFICATION_URL}${PAYMENT}`).digest('hex'),
      ],
      ['a truncated signature', independentSignature(PAYMENT).slice(0, 40)],
    ])('rejects %s as bad_signature', (_label, header) => {
      expect(
        rejection(() =>
          provider().verify(delivery(PAYMENT, { 'x-square-hmacsha256-signature': header })),
        ),
      ).toMatchObject({ reason: 'bad_signature' });
    });

    it('rejects the signature written as base64url', () => {
      // NOTE: the first SDK vector's signature has a "/", so its base64url form differs.
      const square = provider({ signatureKey: VECTOR_1.key, notificationUrl: VECTOR_1.url });
      const base64url = VECTOR_1.signature.replace(/\+/g, '-').replace(/\//g, '_');
      expect(base64url).not.toBe(VECTOR_1.signature);
      expect(
        rejection(() =>
          square.verify(delivery(VECTOR_1.body, { 'x-square-hmacsha256-signature': base64url })),
        ),
      ).toMatchObject({ reason: 'bad_signature' });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<SquareEndpointOptions>): string {
      const error = rejection(() =>
        squareEndpoint({ name: 'square', ...options } as SquareEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const endpoint = squareEndpoint({
        name: 'square',
        signatureKey: KEY,
        notificationUrl: NOTIFICATION_URL,
      });
      expect(endpoint).toMatchObject({
        name: 'square',
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      });
      expect(endpoint.provider.kind).toBe('square');
    });

    it('requires a signature key', () => {
      expect(configError({ notificationUrl: NOTIFICATION_URL })).toMatch(
        /"square" \(square\) has no usable signatureKey/,
      );
      expect(configError({ notificationUrl: NOTIFICATION_URL, signatureKey: [KEY, ''] })).toMatch(
        /no usable signatureKey/,
      );
    });

    it('refuses a key with whitespace without quoting it', () => {
      const message = configError({ notificationUrl: NOTIFICATION_URL, signatureKey: `${KEY}\n` });
      expect(message).toMatch(/signatureKey contains whitespace/);
      expect(message).not.toContain(KEY);
    });

    it.each([
      ['missing', undefined],
      ['empty', ''],
      ['relative', '/webhooks/square'],
      ['not http', 'ftp://shop.example.com/webhooks/square'],
      ['padded with spaces', ` ${NOTIFICATION_URL} `],
    ])(
      'refuses a notificationUrl that is %s and says what it must be',
      (_label, notificationUrl) => {
        const message = configError({
          signatureKey: KEY,
          notificationUrl: notificationUrl as string,
        });
        expect(message).toMatch(/has no usable notificationUrl/);
        expect(message).toMatch(/exactly as registered with Square/);
      },
    );
  });

  describe('normalize', () => {
    function normalize(event: object | string): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider().normalize(delivery(body, {})))[0];
    }

    it.each([
      [
        'payment.updated',
        'COMPLETED',
        squareFixtures.paymentUpdated({ status: 'COMPLETED' }),
        'payment.succeeded',
      ],
      [
        'payment.created',
        'COMPLETED',
        squareFixtures.paymentCreated({ status: 'COMPLETED' }),
        'payment.succeeded',
      ],
      [
        'payment.updated',
        'FAILED',
        squareFixtures.paymentUpdated({ status: 'FAILED' }),
        'payment.failed',
      ],
      [
        'payment.updated',
        'CANCELED',
        squareFixtures.paymentUpdated({ status: 'CANCELED' }),
        'payment.canceled',
      ],
      [
        'payment.created',
        'APPROVED',
        squareFixtures.paymentCreated({ status: 'APPROVED' }),
        'payment.authorized',
      ],
      [
        'payment.created',
        'PENDING',
        squareFixtures.paymentCreated({ status: 'PENDING' }),
        'square:payment.created',
      ],
      [
        'refund.updated',
        'COMPLETED',
        squareFixtures.refundUpdated({ status: 'COMPLETED' }),
        'refund.succeeded',
      ],
      [
        'refund.created',
        'COMPLETED',
        squareFixtures.refundCreated({ status: 'COMPLETED' }),
        'refund.succeeded',
      ],
      [
        'refund.updated',
        'FAILED',
        squareFixtures.refundUpdated({ status: 'FAILED' }),
        'refund.failed',
      ],
      [
        'refund.updated',
        'REJECTED',
        squareFixtures.refundUpdated({ status: 'REJECTED' }),
        'refund.failed',
      ],
      ['refund.created', 'PENDING', squareFixtures.refundCreated(), 'square:refund.created'],
      ['dispute.created', 'EVIDENCE_REQUIRED', squareFixtures.disputeCreated(), 'dispute.opened'],
      [
        'dispute.state.updated',
        'WON',
        squareFixtures.disputeStateUpdated({ state: 'WON' }),
        'dispute.closed',
      ],
      [
        'dispute.state.updated',
        'LOST',
        squareFixtures.disputeStateUpdated({ state: 'LOST' }),
        'dispute.closed',
      ],
      [
        'dispute.state.updated',
        'PROCESSING',
        squareFixtures.disputeStateUpdated({ state: 'PROCESSING' }),
        'square:dispute.state.updated',
      ],
    ])('maps %s with %s to its type, keyed by event_id', (nativeType, status, event, type) => {
      const result = normalize(event);
      expect(result).toMatchObject({ type, nativeType, status, eventId: event.event_id });
    });

    it('reads a payment: id, reference_id, amount_money, status, created_at', () => {
      const result = normalize(PAYMENT);
      expect(result).toMatchObject({
        eventId: '6a8f5f28-54a1-4eb0-a98a-3111513fd4fc',
        type: 'payment.succeeded',
        paymentRef: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
        merchantRef: 'order-42',
        amount: 1099,
        currency: 'USD',
        status: 'COMPLETED',
        occurredAt: new Date('2024-05-12T18:14:14.000Z'),
      });
      expect(result.payload).toEqual(JSON.parse(PAYMENT));
    });

    it('marks created_at as signed: the signature covers the whole body', () => {
      expect(normalize(PAYMENT).occurredAtSigned).toBe(true);
    });

    it('reads a refund: the refunded payment, never the refund id', () => {
      const event = squareFixtures.refundUpdated({
        paymentId: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
        amount: 500,
        currency: 'CAD',
      });
      expect(normalize(event)).toMatchObject({
        paymentRef: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
        merchantRef: undefined,
        amount: 500,
        currency: 'CAD',
      });
      expect(event.data.id).toMatch(/^hYy9pRFVxpDsO1FB05SunFWUe9JZY_/);
    });

    it('reads a dispute from data.object.object: the disputed payment and amount, its state', () => {
      const event = squareFixtures.disputeCreated({
        paymentId: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
        amount: 2500,
      });
      expect(normalize(event)).toMatchObject({
        type: 'dispute.opened',
        paymentRef: 'hYy9pRFVxpDsO1FB05SunFWUe9JZY',
        amount: 2500,
        currency: 'USD',
        status: 'EVIDENCE_REQUIRED',
      });
    });

    it('gives the same event id to every delivery of one event, and new ids to new events', () => {
      const event = squareFixtures.paymentUpdated();
      expect(normalize(event).eventId).toBe(normalize(JSON.stringify(event)).eventId);
      expect(normalize(squareFixtures.paymentUpdated()).eventId).not.toBe(event.event_id);
    });

    it('keeps other types native without references', () => {
      expect(normalize(VECTOR_1.body)).toMatchObject({
        eventId: 'ac3ac95b-f97d-458c-a6e6-18981597e05f',
        type: 'square:webhooks.test_notification',
        paymentRef: undefined,
        amount: undefined,
      });
    });

    it('leaves out an amount that is not an integer', () => {
      const event = squareFixtures.paymentUpdated();
      (event.data.object.payment as { amount_money: unknown }).amount_money = {
        amount: '10.99',
        currency: 'USD',
      };
      expect(normalize(event).amount).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"event_id": "x",'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(rejection(() => provider().normalize(delivery(body, {})))).toMatchObject({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
      });
    });

    it.each([
      ['no event_id', { type: 'payment.updated', data: {} }],
      ['an empty event_id', { event_id: '', type: 'payment.updated', data: {} }],
      ['no type', { event_id: 'e1', data: {} }],
      ['no data', { event_id: 'e1', type: 'payment.updated' }],
      ['a numeric created_at', { event_id: 'e1', type: 'x', data: {}, created_at: 5 }],
    ])('throws WebhookPayloadError for an event with %s', (_label, event) => {
      const error = rejection(() => normalize(event));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Square event is not valid: /);
    });
  });
});
