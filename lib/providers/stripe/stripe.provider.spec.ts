import { notificationsOf } from '../notifications';
import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { WebhookConfigurationError, WebhookPayloadError } from '../../core/webhook-errors';
import { signStripe } from './stripe.signer';
import { StripeEndpointOptions, stripeEndpoint } from './stripe.provider';
import { InboundWebhook, WebhookProvider } from '../webhook-provider.interface';
import { rejection } from '../../spec-support/rejection';

const SECRET = 'whsec_test_secret';
const OTHER_SECRET = 'whsec_other_secret';
const NOW = 1_700_000_000;

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

function officialHeader(payload: string, secret = SECRET, timestamp = NOW): string {
  return Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp });
}

function provider(options: Partial<StripeEndpointOptions> = {}): WebhookProvider {
  return stripeEndpoint({ name: 'stripe', secret: SECRET, ...options }).provider;
}

function event(type: string, object: Record<string, unknown>, extra: object = {}): string {
  return JSON.stringify({
    id: 'evt_1',
    object: 'event',
    type,
    created: NOW,
    data: { object },
    ...extra,
  });
}

const PAYMENT = event('payment_intent.succeeded', {
  id: 'pi_123',
  object: 'payment_intent',
  amount: 2000,
  currency: 'usd',
  status: 'succeeded',
  metadata: { orderId: 'order-42' },
});

describe('stripeEndpoint', () => {
  describe('verify', () => {
    it('accepts a delivery signed by the official Stripe signer', () => {
      const request = delivery(PAYMENT, { 'stripe-signature': officialHeader(PAYMENT) });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts the documented whsec_test_secret vector', () => {
      const payload = JSON.stringify({ id: 'evt_test_webhook', object: 'event' }, null, 2);
      const header =
        't=1700000000,v1=4f1cd7feda9826e746b7d482c4badebb657398df1099e1046364f6196a230150';
      expect(() =>
        provider().verify(delivery(payload, { 'stripe-signature': header })),
      ).not.toThrow();
    });

    it('signs the raw bytes, multi-byte UTF-8 included', () => {
      const payload = event('payment_intent.succeeded', {
        id: 'pi_1',
        description: 'Café ☕ 東京',
      });
      const request = delivery(Buffer.from(payload, 'utf8'), {
        'stripe-signature': officialHeader(payload),
      });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('accepts either secret while two are configured (rotation)', () => {
      const rotating = provider({ secret: [OTHER_SECRET, SECRET] });
      for (const secret of [SECRET, OTHER_SECRET]) {
        const request = delivery(PAYMENT, { 'stripe-signature': officialHeader(PAYMENT, secret) });
        expect(() => rotating.verify(request)).not.toThrow();
      }
    });

    it('accepts a header with two v1 signatures of which one matches', () => {
      const stale = officialHeader(PAYMENT, OTHER_SECRET).split(',')[1];
      const current = officialHeader(PAYMENT, SECRET).split(',')[1];
      for (const header of [`t=${NOW},${stale},${current}`, `t=${NOW},${current},${stale}`]) {
        expect(() =>
          provider().verify(delivery(PAYMENT, { 'stripe-signature': header })),
        ).not.toThrow();
      }
    });

    it('ignores v0 and other schemes, even when they carry the right signature', () => {
      const signature = officialHeader(PAYMENT).split('v1=')[1];
      const vZero = `t=${NOW},v0=${signature}`;
      expect(
        rejection(() => provider().verify(delivery(PAYMENT, { 'stripe-signature': vZero }))),
      ).toMatchObject({
        reason: 'bad_signature',
      });
      const withFakeV0 = `${officialHeader(PAYMENT)},v0=6ffbb59b2300aae63f272406069a9788598b792a944a07aba816edb039989a39`;
      expect(() =>
        provider().verify(delivery(PAYMENT, { 'stripe-signature': withFakeV0 })),
      ).not.toThrow();
    });

    it('rejects a body changed by one byte', () => {
      const header = officialHeader(PAYMENT);
      const tampered = Buffer.from(PAYMENT, 'utf8');
      tampered[tampered.indexOf('2000')] = '3'.charCodeAt(0);
      expect(
        rejection(() => provider().verify(delivery(tampered, { 'stripe-signature': header }))),
      ).toMatchObject({
        name: 'WebhookVerificationError',
        reason: 'bad_signature',
      });
    });

    it('rejects a signature made with another secret, without echoing secret or signature', () => {
      const request = delivery(PAYMENT, {
        'stripe-signature': officialHeader(PAYMENT, OTHER_SECRET),
      });
      const error = rejection(() => provider().verify(request));
      expect(error.reason).toBe('bad_signature');
      const expected = createHmac('sha256', SECRET).update(`${NOW}.${PAYMENT}`).digest('hex');
      expect(error.message).not.toContain(expected);
      expect(error.message).not.toContain(SECRET);
    });

    it.each([
      ['too old', NOW - 301, 'timestamp_out_of_window'],
      ['too new', NOW + 301, 'timestamp_out_of_window'],
    ])('rejects a timestamp %s by tolerance + 1', (_label, timestamp, reason) => {
      const request = delivery(PAYMENT, {
        'stripe-signature': officialHeader(PAYMENT, SECRET, timestamp),
      });
      expect(rejection(() => provider().verify(request))).toMatchObject({ reason });
    });

    it.each([
      ['old', NOW - 299],
      ['new', NOW + 299],
    ])('accepts a timestamp that is %s by tolerance - 1', (_label, timestamp) => {
      const request = delivery(PAYMENT, {
        'stripe-signature': officialHeader(PAYMENT, SECRET, timestamp),
      });
      expect(() => provider().verify(request)).not.toThrow();
    });

    it('honours a custom tolerance, and 0 switches the window off', () => {
      const header = officialHeader(PAYMENT, SECRET, NOW - 3600);
      const verify = (toleranceSeconds: number) => () =>
        provider({ toleranceSeconds }).verify(delivery(PAYMENT, { 'stripe-signature': header }));
      expect(rejection(verify(60))).toMatchObject({ reason: 'timestamp_out_of_window' });
      expect(verify(0)).not.toThrow();
    });

    it.each([
      ['absent', {}],
      ['empty', { 'stripe-signature': '' }],
      ['blank', { 'stripe-signature': '   ' }],
    ])('rejects a delivery whose header is %s as missing_signature', (_label, headers) => {
      expect(rejection(() => provider().verify(delivery(PAYMENT, headers)))).toMatchObject({
        reason: 'missing_signature',
      });
    });

    it.each([
      ['garbage', 'not a signature header'],
      ['no timestamp', 'v1=4f1cd7feda9826e746b7d482c4badebb657398df1099e1046364f6196a230150'],
      ['no v1', `t=${NOW}`],
      ['non-numeric timestamp', 't=yesterday,v1=abc'],
      ['two timestamps', `t=${NOW},t=${NOW + 1},v1=abc`],
      ['empty v1', `t=${NOW},v1=`],
    ])('rejects a malformed header (%s) as bad_signature', (_label, header) => {
      expect(
        rejection(() => provider().verify(delivery(PAYMENT, { 'stripe-signature': header }))),
      ).toMatchObject({
        reason: 'bad_signature',
      });
    });
  });

  describe('configuration', () => {
    function configError(options: Partial<StripeEndpointOptions>): string {
      const error = rejection(() =>
        stripeEndpoint({ name: 'stripe', ...options } as StripeEndpointOptions),
      );
      expect(error.name).toBe(WebhookConfigurationError.name);
      return error.message;
    }

    it('builds the endpoint record with the documented acknowledgement', () => {
      const endpoint = stripeEndpoint({ name: 'stripe-live', secret: SECRET });
      expect(endpoint).toMatchObject({
        name: 'stripe-live',
        maxBodyBytes: 1024 * 1024,
        acknowledgement: { status: 200, body: '', contentType: 'text/plain; charset=utf-8' },
      });
      expect(endpoint.provider.kind).toBe('stripe');
    });

    it('requires a secret', () => {
      expect(configError({ secret: undefined })).toMatch(
        /"stripe" \(stripe\) has no usable secret/,
      );
      expect(configError({ secret: [] })).toMatch(/no usable secret/);
    });

    it('refuses a blank secret or a blank entry in the rotation list', () => {
      expect(configError({ secret: '   ' })).toMatch(/no usable secret/);
      expect(configError({ secret: [SECRET, ''] })).toMatch(/no usable secret/);
    });

    it('refuses a secret without whsec_ and says where to find the right one', () => {
      const message = configError({ secret: 'test_secret_value' });
      expect(message).toMatch(/does not start with "whsec_"/);
      expect(message).toMatch(/Signing secret/);
      expect(message).not.toContain('test_secret_value');
    });

    it('recognizes an API key passed as the secret', () => {
      const message = configError({ secret: 'sk_test_51Habc' });
      expect(message).toMatch(/looks like an API key/);
      expect(message).not.toContain('sk_test_51Habc');
    });

    it('refuses a secret with whitespace (a copy-paste with a line break)', () => {
      expect(configError({ secret: [SECRET, 'whsec_abc\n'] })).toMatch(
        /secret\[1\] contains whitespace/,
      );
    });

    it('refuses a bare whsec_ prefix', () => {
      expect(configError({ secret: 'whsec_' })).toMatch(/whsec_/);
    });

    it.each([-1, 1.5, Number.NaN])('refuses toleranceSeconds %p', (toleranceSeconds) => {
      expect(configError({ secret: SECRET, toleranceSeconds })).toMatch(
        /toleranceSeconds must be a whole number/,
      );
    });

    it('refuses an empty merchantRefKey', () => {
      expect(configError({ secret: SECRET, merchantRefKey: '' })).toMatch(/merchantRefKey must be/);
    });

    it('refuses an endpoint name that cannot be used in a URL', () => {
      expect(configError({ name: 'my stripe', secret: SECRET })).toMatch(/is not usable in a URL/);
    });
  });

  describe('normalize', () => {
    function normalize(payload: string, options: Partial<StripeEndpointOptions> = {}) {
      return notificationsOf(provider(options).normalize(delivery(payload, {})))[0];
    }

    it.each([
      ['payment_intent.succeeded', {}, 'payment.succeeded'],
      ['payment_intent.payment_failed', {}, 'payment.failed'],
      ['payment_intent.canceled', {}, 'payment.canceled'],
      ['payment_intent.amount_capturable_updated', {}, 'payment.authorized'],
      ['payment_intent.processing', {}, 'stripe:payment_intent.processing'],
      ['checkout.session.completed', { payment_status: 'paid' }, 'payment.succeeded'],
      [
        'checkout.session.completed',
        { payment_status: 'unpaid' },
        'stripe:checkout.session.completed',
      ],
      [
        'checkout.session.completed',
        { payment_status: 'no_payment_required' },
        'stripe:checkout.session.completed',
      ],
      ['checkout.session.async_payment_succeeded', {}, 'payment.succeeded'],
      ['checkout.session.async_payment_failed', {}, 'payment.failed'],
      ['checkout.session.expired', {}, 'payment.canceled'],
      ['charge.refunded', {}, 'stripe:charge.refunded'],
      ['refund.updated', { status: 'pending' }, 'stripe:refund.updated'],
      ['charge.dispute.created', {}, 'dispute.opened'],
      ['charge.dispute.closed', {}, 'dispute.closed'],
      ['charge.dispute.funds_withdrawn', {}, 'stripe:charge.dispute.funds_withdrawn'],
      ['invoice.paid', {}, 'stripe:invoice.paid'],
    ])('maps %s %j to %s', (type, object, expected) => {
      const result = normalize(event(type, { id: 'obj_1', ...object }));
      expect(result.type).toBe(expected);
      expect(result.nativeType).toBe(type);
      expect(result.eventId).toBe('evt_1');
    });

    it('extracts references, amount, currency, status and time from a PaymentIntent', () => {
      const result = normalize(PAYMENT);
      expect(result).toMatchObject({
        eventId: 'evt_1',
        paymentRef: 'pi_123',
        merchantRef: 'order-42',
        amount: 2000,
        currency: 'USD',
        status: 'succeeded',
        occurredAt: new Date(NOW * 1000),
      });
      expect(result.payload).toEqual(JSON.parse(PAYMENT));
    });

    it('checks the envelope of a body with __proto__ and constructor keys like any other', () => {
      const hostile = `{"__proto__":{"id":""},"constructor":{"name":"x"},${PAYMENT.slice(1)}`;
      const result = normalize(hostile);
      expect(result).toMatchObject({ eventId: 'evt_1', paymentRef: 'pi_123' });
      const blankId = `{"constructor":1,${event('payment_intent.succeeded', {}, { id: '' }).slice(1)}`;
      expect(() => normalize(blankId)).toThrow(/id should not be empty/);
    });

    it('reads the merchant reference under a custom metadata key', () => {
      const payload = event('payment_intent.succeeded', {
        id: 'pi_1',
        metadata: { order_ref: 'A-7' },
      });
      expect(normalize(payload, { merchantRefKey: 'order_ref' }).merchantRef).toBe('A-7');
      expect(normalize(payload).merchantRef).toBeUndefined();
    });

    it('reads a Checkout Session: payment intent, client_reference_id, amount_total, payment_status', () => {
      const payload = event('checkout.session.completed', {
        id: 'cs_1',
        payment_intent: 'pi_9',
        client_reference_id: 'cart-5',
        metadata: {},
        amount_total: 4999,
        currency: 'eur',
        status: 'complete',
        payment_status: 'paid',
      });
      expect(normalize(payload)).toMatchObject({
        type: 'payment.succeeded',
        paymentRef: 'pi_9',
        merchantRef: 'cart-5',
        amount: 4999,
        currency: 'EUR',
        status: 'paid',
      });
    });

    it('prefers metadata over client_reference_id and falls back to the session id', () => {
      const payload = event('checkout.session.expired', {
        id: 'cs_2',
        payment_intent: null,
        client_reference_id: 'cart-5',
        metadata: { orderId: 'order-9' },
      });
      expect(normalize(payload)).toMatchObject({ paymentRef: 'cs_2', merchantRef: 'order-9' });
    });

    describe('refunds', () => {
      /** A Refund as Stripe sends it in refund.* and charge.refund.updated events. */
      function refund(status: string, extra: Record<string, unknown> = {}) {
        return {
          id: 're_3P0',
          object: 'refund',
          amount: 300,
          charge: 'ch_3P0',
          currency: 'usd',
          payment_intent: 'pi_3P0',
          status,
          metadata: { orderId: 'order-7' },
          ...extra,
        };
      }

      /** A Charge of 1,000 with 300 of it refunded, as charge.refunded carries it. */
      const CHARGE = {
        id: 'ch_3P0',
        object: 'charge',
        amount: 1000,
        amount_refunded: 300,
        currency: 'usd',
        payment_intent: 'pi_3P0',
        refunded: false,
        status: 'succeeded',
        metadata: { orderId: 'order-7' },
      };

      it.each([
        ['refund.created', 'succeeded', undefined, 'refund.succeeded'],
        ['refund.created', 'failed', undefined, 'refund.failed'],
        ['refund.created', 'pending', undefined, 'stripe:refund.created'],
        ['refund.created', 'requires_action', undefined, 'stripe:refund.created'],
        ['refund.updated', 'succeeded', { status: 'pending' }, 'refund.succeeded'],
        ['refund.updated', 'failed', { status: 'succeeded' }, 'refund.failed'],
        ['refund.updated', 'canceled', { status: 'requires_action' }, 'refund.failed'],
        ['refund.updated', 'succeeded', { metadata: {} }, 'stripe:refund.updated'],
        ['refund.updated', 'succeeded', undefined, 'refund.succeeded'],
        ['charge.refund.updated', 'succeeded', { status: 'pending' }, 'refund.succeeded'],
        [
          'charge.refund.updated',
          'succeeded',
          { receipt_number: null },
          'stripe:charge.refund.updated',
        ],
        ['refund.failed', 'failed', { status: 'succeeded' }, 'refund.failed'],
      ])('maps %s of a %s refund (previous %j) to %s', (type, status, previous, expected) => {
        const data = previous === undefined ? {} : { previous_attributes: previous };
        const result = normalize(
          event(type, refund(status), { data: { object: refund(status), ...data } }),
        );
        expect(result.type).toBe(expected);
        expect(result.eventId).toBe(expected.startsWith('refund.') ? `re_3P0:${status}` : 'evt_1');
      });

      it('names the snapshot event as the event its notification copies, not the refund key', () => {
        const payload = event('refund.updated', refund('succeeded'), {
          data: { object: refund('succeeded'), previous_attributes: { status: 'pending' } },
        });
        expect(normalize(payload)).toMatchObject({
          eventId: 're_3P0:succeeded',
          sameEventAs: 'evt_1',
        });
      });

      it('reports the refund’s own amount, id, payment and order, not the charge’s', () => {
        const payload = event('refund.updated', refund('succeeded'), {
          data: { object: refund('succeeded'), previous_attributes: { status: 'pending' } },
        });
        expect(normalize(payload)).toMatchObject({
          eventId: 're_3P0:succeeded',
          type: 'refund.succeeded',
          paymentRef: 'pi_3P0',
          merchantRef: 'order-7',
          amount: 300,
          currency: 'USD',
          status: 'succeeded',
        });
      });

      it('keeps charge.refunded, sent as soon as a refund is created, under its native type', () => {
        const result = normalize(event('charge.refunded', CHARGE));
        expect(result).toMatchObject({
          eventId: 'evt_1',
          type: 'stripe:charge.refunded',
          paymentRef: 'pi_3P0',
          amount: 1000,
        });
      });

      it('gives every Stripe event about one refund reaching succeeded the same dedup key', () => {
        const keys = [
          event('refund.created', refund('succeeded'), { id: 'evt_a' }),
          event('refund.updated', refund('succeeded'), {
            id: 'evt_b',
            data: { object: refund('succeeded'), previous_attributes: { status: 'pending' } },
          }),
          event('charge.refund.updated', refund('succeeded'), {
            id: 'evt_c',
            data: { object: refund('succeeded'), previous_attributes: { status: 'pending' } },
          }),
        ].map((payload) => normalize(payload).eventId);
        expect(new Set(keys)).toEqual(new Set(['re_3P0:succeeded']));
        const other = refund('succeeded', { id: 're_3P1' });
        expect(normalize(event('refund.created', other)).eventId).toBe('re_3P1:succeeded');
      });
    });

    it('takes the payment intent of a charge, or the charge id when there is none', () => {
      const refunded = event('charge.refunded', {
        id: 'ch_1',
        payment_intent: 'pi_2',
        amount: 500,
      });
      expect(normalize(refunded)).toMatchObject({ paymentRef: 'pi_2', amount: 500 });
      const legacy = event('charge.succeeded', { id: 'ch_3', payment_intent: null });
      expect(normalize(legacy).paymentRef).toBe('ch_3');
    });

    it('takes an expanded payment_intent by its id', () => {
      const payload = event('charge.refunded', { id: 'ch_1', payment_intent: { id: 'pi_exp' } });
      expect(normalize(payload).paymentRef).toBe('pi_exp');
    });

    it('never takes the id of a refund or dispute as the payment reference', () => {
      expect(
        normalize(event('refund.updated', { id: 're_1', status: 'succeeded' })).paymentRef,
      ).toBeUndefined();
      expect(normalize(event('charge.dispute.created', { id: 'du_1' })).paymentRef).toBeUndefined();
      expect(
        normalize(event('charge.dispute.created', { id: 'du_1', payment_intent: 'pi_4' }))
          .paymentRef,
      ).toBe('pi_4');
    });

    it('leaves out an amount that is not an integer and a missing created', () => {
      const payload = JSON.stringify({
        id: 'evt_2',
        type: 'payment_intent.succeeded',
        data: { object: { id: 'pi_1', amount: '20.00' } },
      });
      const result = normalize(payload);
      expect(result.amount).toBeUndefined();
      expect(result.occurredAt).toBeUndefined();
    });

    it.each([
      ['not JSON', '{"id": "evt_1",'],
      ['not UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d])],
      ['a JSON array', '[]'],
      ['a JSON string', '"evt_1"'],
    ])('throws WebhookPayloadError for a body that is %s', (_label, body) => {
      expect(() => provider().normalize(delivery(body, {}))).toThrow(WebhookPayloadError);
    });

    it.each([
      ['no id', { type: 'payment_intent.succeeded', data: { object: {} } }],
      ['an empty id', { id: '', type: 'payment_intent.succeeded', data: { object: {} } }],
      ['a numeric id', { id: 7, type: 'payment_intent.succeeded', data: { object: {} } }],
      ['no type', { id: 'evt_1', data: { object: {} } }],
      ['no data', { id: 'evt_1', type: 'payment_intent.succeeded' }],
      ['no data.object', { id: 'evt_1', type: 'payment_intent.succeeded', data: {} }],
      [
        'data.object a string',
        { id: 'evt_1', type: 'payment_intent.succeeded', data: { object: 'pi_1' } },
      ],
      ['a fractional created', { id: 'evt_1', type: 'x', created: 1.5, data: { object: {} } }],
    ])('throws WebhookPayloadError for an envelope with %s', (_label, body) => {
      const error = rejection(() => normalize(JSON.stringify(body)));
      expect(error.name).toBe('WebhookPayloadError');
      expect(error.reason).toBe('invalid_payload');
      expect(error.message).toMatch(/^Stripe event (data )?is not valid: /);
    });
  });

  describe('signStripe', () => {
    it('produces the same header as the official Stripe signer', () => {
      for (const [payload, secret, timestamp] of [
        [PAYMENT, SECRET, NOW],
        [JSON.stringify({ id: 'evt_test_webhook', object: 'event' }, null, 2), SECRET, 1700000000],
        ['{"note":"Café ☕"}', OTHER_SECRET, 1234567890],
      ] as const) {
        expect(signStripe({ payload, secret, timestamp })['stripe-signature']).toBe(
          officialHeader(payload, secret, timestamp),
        );
      }
    });

    it('is accepted by the verifier, for string and Buffer payloads', () => {
      expect(() =>
        provider().verify(
          delivery(PAYMENT, signStripe({ payload: PAYMENT, secret: SECRET, timestamp: NOW })),
        ),
      ).not.toThrow();
      const bytes = Buffer.from(PAYMENT, 'utf8');
      expect(() =>
        provider().verify(
          delivery(bytes, signStripe({ payload: bytes, secret: SECRET, timestamp: NOW })),
        ),
      ).not.toThrow();
    });

    it('defaults the timestamp to now', () => {
      const headers = signStripe({ payload: PAYMENT, secret: SECRET });
      const request = delivery(PAYMENT, headers, Math.floor(Date.now() / 1000));
      expect(() => provider().verify(request)).not.toThrow();
    });
  });
});
