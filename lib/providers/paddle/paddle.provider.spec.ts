import { createHmac } from 'node:crypto';
import { EventName, Paddle } from '@paddle/paddle-node-sdk';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { paddleFixtures } from './paddle.fixtures';
import { signPaddleDelivery } from './paddle.signer';
import { notificationsOf } from '../notifications';
import { PaddleEndpointOptions, paddleEndpoint } from './paddle.provider';
import {
  InboundWebhook,
  NormalizedNotification,
  WebhookProvider,
} from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

const SECRET = 'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI';
const OTHER_SECRET = 'pdl_ntfset_01hv8wptq8987qeep44cyrewp9_Xb1Wq0vq6lZqfQk3T1yFh6cRdGzPpN2s';
const NOW = 1_700_000_000;

/** The header Paddle sends, computed with node:crypto only. */
function independentHeader(body: string | Buffer, secret = SECRET, timestamp = NOW): string {
  const h1 = createHmac('sha256', secret)
    .update(Buffer.concat([Buffer.from(`${timestamp}:`), Buffer.from(body)]))
    .digest('hex');
  return `ts=${timestamp};h1=${h1}`;
}

function delivery(
  body: string | Buffer,
  headers: Record<string, string>,
  receivedAtSeconds = NOW,
): InboundWebhook {
  return {
    rawBody: Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8'),
    headers,
    receivedAt: new Date(receivedAtSeconds * 1000),
  };
}

function provider(options: Partial<PaddleEndpointOptions> = {}): WebhookProvider {
  return paddleEndpoint({ name: 'paddle', secret: SECRET, ...options }).provider;
}

const COMPLETED = JSON.stringify(
  paddleFixtures.transactionCompleted({
    orderId: 'order-42',
    amount: 1099,
    currency: 'USD',
    eventId: 'evt_01hv8x2acma2gz8he1ffw2b4q8',
    transactionId: 'txn_01hv8wptq8987qeep44cyrewp9',
    occurredAt: new Date(NOW * 1000),
  }),
);

describe('paddleEndpoint', () => {
  const paddle = new Paddle('pdl_sdbx_apikey_01hv8x2acma2gz8he1ffw2b4q8_test');

  describe('verify', () => {
    it('accepts a delivery signed with node:crypto', () => {
      expect(() =>
        provider().verify(
          delivery(COMPLETED, { 'paddle-signature': independentHeader(COMPLETED) }),
        ),
      ).not.toThrow();
    });

    it('accepts what the official SDK accepts, and the SDK accepts what the signer makes', async () => {
      const now = Math.floor(Date.now() / 1000);
      const signed = signPaddleDelivery({ payload: COMPLETED, secret: SECRET, timestamp: now });
      const header = signed.headers['paddle-signature'];
      expect(header).toBe(independentHeader(COMPLETED, SECRET, now));
      await expect(paddle.webhooks.isSignatureValid(COMPLETED, SECRET, header)).resolves.toBe(true);
      expect(() => provider().verify(delivery(COMPLETED, signed.headers, now))).not.toThrow();
      const event = await paddle.webhooks.unmarshal(COMPLETED, SECRET, header);
      expect(event.eventType).toBe(EventName.TransactionCompleted);
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const body = JSON.stringify({ ...JSON.parse(COMPLETED), note: 'Café ☕ 東京' });
      const request = delivery(Buffer.from(body, 'utf8'), {
        'paddle-signature': independentHeader(body),
      });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      for (const secret of [SECRET, OTHER_SECRET]) {
        const request = delivery(COMPLETED, {
          'paddle-signature': independentHeader(COMPLETED, secret),
        });
        expect(() => rotating.verify(request)).not.toThrow();
      }
    });

    it('accepts a header with several h1 of which any one matches, where the SDK reads only the last', async () => {
      const current = independentHeader(COMPLETED, SECRET).split(';')[1];
      const stale = independentHeader(COMPLETED, OTHER_SECRET).split(';')[1];
      for (const header of [`ts=${NOW};${stale};${current}`, `ts=${NOW};${current};${stale}`]) {
        expect(() =>
          provider().verify(delivery(COMPLETED, { 'paddle-signature': header })),
        ).not.toThrow();
      }
      const now = Math.floor(Date.now() / 1000);
      const both = signPaddleDelivery({
        payload: COMPLETED,
        secret: [SECRET, OTHER_SECRET],
        timestamp: now,
      }).headers['paddle-signature'];
      expect(both.split(';')).toHaveLength(3);
      expect(() =>
        provider().verify(delivery(COMPLETED, { 'paddle-signature': both }, now)),
      ).not.toThrow();
      // The official SDK keeps only the last h1, so it refuses what Paddle sends while rotating.
      await expect(paddle.webhooks.isSignatureValid(COMPLETED, SECRET, both)).resolves.toBe(false);
    });

    it('accepts upper-case hex and spaces around the items', () => {
      const [ts, h1] = independentHeader(COMPLETED).split(';');
      const header = ` ${ts} ; h1=${h1.slice(3).toUpperCase()} `;
      expect(() =>
        provider().verify(delivery(COMPLETED, { 'paddle-signature': header })),
      ).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const header = independentHeader(COMPLETED);
      const tampered = Buffer.from(COMPLETED, 'utf8');
      tampered[tampered.indexOf('1099')] = '9'.charCodeAt(0);
      expect(
        rejection(() => provider().verify(delivery(tampered, { 'paddle-signature': header }))),
      ).toMatchObject({ name: 'WebhookVerificationError', reason: 'bad_signature' });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const header = independentHeader(COMPLETED, OTHER_SECRET);
      const error = rejection(() =>
        provider().verify(delivery(COMPLETED, { 'paddle-signature': header })),
      );
      expect(error.reason).toBe('bad_signature');
      expect(error.message).not.toContain(SECRET);
      expect(error.message).not.toContain(independentHeader(COMPLETED).split('h1=')[1]);
    });

    it('rejects a signature moved to another timestamp', () => {
      const h1 = independentHeader(COMPLETED).split(';')[1];
      const header = `ts=${NOW + 1};${h1}`;
      expect(
        rejection(() => provider().verify(delivery(COMPLETED, { 'paddle-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature' });
    });

    it.each([
      ['too old', NOW - 301],
      ['too new', NOW + 301],
    ])('rejects a timestamp %s by tolerance + 1', (_label, timestamp) => {
      const header = independentHeader(COMPLETED, SECRET, timestamp);
      expect(
        rejection(() => provider().verify(delivery(COMPLETED, { 'paddle-signature': header }))),
      ).toMatchObject({ reason: 'timestamp_out_of_window' });
    });

    it.each([
      ['old', NOW - 299],
      ['new', NOW + 299],
    ])('accepts a timestamp that is %s by tolerance - 1', (_label, timestamp) => {
      const header = independentHeader(COMPLETED, SECRET, timestamp);
      expect(() =>
        provider().verify(delivery(COMPLETED, { 'paddle-signature': header })),
      ).not.toThrow();
    });

    it('accepts by default a delivery 6 s old that Paddle’s SDK refuses; tolerance 5 refuses it too', async () => {
      const sentAt = Math.floor(Date.now() / 1000) - 6;
      const header = independentHeader(COMPLETED, SECRET, sentAt);
      await expect(paddle.webhooks.isSignatureValid(COMPLETED, SECRET, header)).resolves.toBe(
        false,
      );
      const now = Math.floor(Date.now() / 1000);
      const request = delivery(COMPLETED, { 'paddle-signature': header }, now);
      expect(() => provider().verify(request)).not.toThrow();
      expect(rejection(() => provider({ toleranceSeconds: 5 }).verify(request))).toMatchObject({
        reason: 'timestamp_out_of_window',
      });
    });

    it('honours a custom tolerance, and 0 switches the window off', () => {
      const header = { 'paddle-signature': independentHeader(COMPLETED, SECRET, NOW - 3600) };
      expect(
        rejection(() => provider({ toleranceSeconds: 60 }).verify(delivery(COMPLETED, header))),
      ).toMatchObject({ reason: 'timestamp_out_of_window' });
      expect(() =>
        provider({ toleranceSeconds: 0 }).verify(delivery(COMPLETED, header)),
      ).not.toThrow();
    });

    it.each([
      ['absent', {}],
      ['empty', { 'paddle-signature': '' }],
      ['blank', { 'paddle-signature': '  ' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(COMPLETED, headers)))).toMatchObject({
        reason: 'missing_signature',
        message: 'Missing Paddle-Signature header',
      });
    });

    it.each([
      ['garbage', 'not a signature'],
      ['no ts', `h1=${'a'.repeat(64)}`],
      ['no h1', `ts=${NOW}`],
      ['a non-numeric ts', `ts=yesterday;h1=${'a'.repeat(64)}`],
      ['two ts', `ts=${NOW};ts=${NOW + 1};h1=${'a'.repeat(64)}`],
      ['an h1 that is not 64 hex digits', `ts=${NOW};h1=abc`],
      ['Stripe’s separator', `t=${NOW},v1=${'a'.repeat(64)}`],
    ])('rejects a malformed header (%s) as bad_signature', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(COMPLETED, { 'paddle-signature': header }))),
      ).toMatchObject({ reason: 'bad_signature', message: /^Malformed Paddle-Signature header/ });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<PaddleEndpointOptions>): string {
      const error = rejection(() =>
        paddleEndpoint({ name: 'paddle', ...options } as PaddleEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with an empty 200 as the acknowledgement', () => {
      const endpoint = paddleEndpoint({ name: 'paddle-live', secret: SECRET });
      expect(endpoint).toMatchObject({
        name: 'paddle-live',
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      });
      expect(endpoint.provider.kind).toBe('paddle');
    });

    it('requires a secret', () => {
      expect(configError({ secret: undefined })).toMatch(
        /"paddle" \(paddle\) has no usable secret/,
      );
      expect(configError({ secret: [SECRET, ''] })).toMatch(/no usable secret/);
    });

    it('refuses a secret with whitespace and says where to copy it from, without quoting it', () => {
      const message = configError({ secret: [SECRET, `${OTHER_SECRET}\n`] });
      expect(message).toMatch(/secret\[1\] contains whitespace/);
      expect(message).toMatch(/Developer tools → Notifications/);
      expect(message).not.toContain(OTHER_SECRET);
    });

    it.each([-1, 1.5])('refuses toleranceSeconds %p', (toleranceSeconds) => {
      expect(configError({ secret: SECRET, toleranceSeconds })).toMatch(
        /toleranceSeconds must be a whole number/,
      );
    });

    it('refuses an empty merchantRefKey', () => {
      expect(configError({ secret: SECRET, merchantRefKey: '' })).toMatch(/merchantRefKey must be/);
    });
  });

  describe('normalize', () => {
    function normalize(
      event: object | string,
      options: Partial<PaddleEndpointOptions> = {},
    ): NormalizedNotification {
      const body = typeof event === 'string' ? event : JSON.stringify(event);
      return notificationsOf(provider(options).normalize(delivery(body, {})))[0];
    }

    it.each([
      ['transaction.completed', paddleFixtures.transactionCompleted(), 'payment.succeeded'],
      ['transaction.paid', paddleFixtures.transactionPaid(), 'paddle:transaction.paid'],
      ['transaction.payment_failed', paddleFixtures.transactionPaymentFailed(), 'payment.failed'],
      ['transaction.canceled', paddleFixtures.transactionCanceled(), 'payment.canceled'],
      ['adjustment.updated', paddleFixtures.refund(), 'refund.succeeded'],
      [
        'adjustment.created',
        paddleFixtures.refund({ eventType: 'adjustment.created' }),
        'refund.succeeded',
      ],
      [
        'adjustment.created',
        paddleFixtures.refund({ eventType: 'adjustment.created', status: 'pending_approval' }),
        'paddle:adjustment.created',
      ],
      ['adjustment.updated', paddleFixtures.refund({ status: 'rejected' }), 'refund.failed'],
      ['adjustment.created', paddleFixtures.chargeback(), 'dispute.opened'],
      [
        'adjustment.created',
        paddleFixtures.chargeback({ action: 'chargeback_reverse' }),
        'dispute.closed',
      ],
    ])('maps %s (%#) to its type, keyed by event_id', (nativeType, event, type) => {
      const result = normalize(event);
      expect(result.type).toBe(type);
      expect(result.nativeType).toBe(nativeType);
      expect(result.eventId).toBe(event.event_id);
      expect(result.eventId).toMatch(/^evt_[a-z\d]{26}$/);
    });

    it('leaves a chargeback update and other adjustments unmapped', () => {
      const update = { ...paddleFixtures.chargeback(), event_type: 'adjustment.updated' };
      expect(normalize(update).type).toBe('paddle:adjustment.updated');
      const credit = paddleFixtures.refund();
      credit.data.action = 'credit';
      expect(normalize(credit).type).toBe('paddle:adjustment.updated');
    });

    it('reads a completed transaction: id, custom_data.orderId, grand total, status, time', () => {
      const result = normalize(COMPLETED);
      expect(result).toMatchObject({
        eventId: 'evt_01hv8x2acma2gz8he1ffw2b4q8',
        type: 'payment.succeeded',
        paymentRef: 'txn_01hv8wptq8987qeep44cyrewp9',
        merchantRef: 'order-42',
        amount: 1099,
        currency: 'USD',
        status: 'completed',
        occurredAt: new Date(NOW * 1000),
      });
      expect(result.payload).toEqual(JSON.parse(COMPLETED));
    });

    it('reads a refund: the refunded transaction, the adjustment total and currency', () => {
      const refund = paddleFixtures.refund({
        transactionId: 'txn_01hv8wptq8987qeep44cyrewp9',
        amount: 500,
        currency: 'eur',
      });
      expect(normalize(refund)).toMatchObject({
        type: 'refund.succeeded',
        paymentRef: 'txn_01hv8wptq8987qeep44cyrewp9',
        merchantRef: undefined,
        amount: 500,
        currency: 'EUR',
        status: 'approved',
      });
    });

    it('reads the merchant reference under a custom custom_data key', () => {
      const event = paddleFixtures.transactionCompleted();
      event.data.custom_data = { cart: 'cart-7' };
      expect(normalize(event, { merchantRefKey: 'cart' }).merchantRef).toBe('cart-7');
      expect(normalize(event).merchantRef).toBeUndefined();
    });

    it('has no payment reference for events that are not about a transaction', () => {
      const result = normalize({
        event_id: 'evt_01hv8x2acma2gz8he1ffw2b4q9',
        event_type: 'subscription.canceled',
        occurred_at: '2024-04-12T10:18:49.621022Z',
        data: { id: 'sub_01hv8y5ehszzq0yv20ttx3166y', status: 'canceled' },
      });
      expect(result).toMatchObject({
        type: 'paddle:subscription.canceled',
        paymentRef: undefined,
        amount: undefined,
        status: 'canceled',
      });
    });

    it('gives the same event id to every delivery of one event (dedup key)', () => {
      const event = paddleFixtures.transactionCompleted();
      const first = signPaddleDelivery({ payload: event, secret: SECRET, timestamp: NOW });
      const retry = signPaddleDelivery({ payload: event, secret: SECRET, timestamp: NOW + 60 });
      expect(first.headers['paddle-signature']).not.toBe(retry.headers['paddle-signature']);
      expect(normalize(first.body).eventId).toBe(normalize(retry.body).eventId);
    });

    it('leaves out an amount that is not a string of minor units, and a bad occurred_at', () => {
      const event = paddleFixtures.transactionCompleted();
      (event.data.details as { totals: { grand_total: unknown } }).totals.grand_total = '10.99';
      const result = normalize({ ...event, occurred_at: 'yesterday' });
      expect(result.amount).toBeUndefined();
      expect(result.occurredAt).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"event_id": "evt_1",'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(rejection(() => provider().normalize(delivery(body, {})))).toMatchObject({
        name: 'WebhookPayloadError',
        reason: 'invalid_payload',
      });
    });

    it.each([
      ['no event_id', { event_type: 'transaction.completed', data: {} }],
      ['an empty event_id', { event_id: '', event_type: 'transaction.completed', data: {} }],
      ['no event_type', { event_id: 'evt_1', data: {} }],
      ['no data', { event_id: 'evt_1', event_type: 'transaction.completed' }],
      ['data a string', { event_id: 'evt_1', event_type: 'transaction.completed', data: 'x' }],
    ])('throws WebhookPayloadError for an event with %s', (_label, event) => {
      const error = rejection(() => normalize(event));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.message).toMatch(/^Paddle event is not valid: /);
    });
  });
});
