import Stripe from 'stripe';
import { WebhookPayloadError } from '../../core/webhook-errors';
import { notificationsOf } from '../notifications';
import { InboundWebhook, NormalizedNotification } from '../webhook-provider.interface';
import { stripeEndpoint } from './stripe.provider';
import { signStripeEventNotification } from './stripe.signer';

const SECRET = 'whsec_thin_destination_secret';
const PI = 'pi_3MtwBwLkdIwHu7ix28a3tqPa';
const NOW = 1_764_660_000;

function notificationBody(fields: Record<string, unknown>): string {
  return JSON.stringify(
    {
      id: 'evt_test_65R9Ijk8d1Y5bbtRhwF5FEBJRTSQ3ygZSF0qTo8pUCV',
      object: 'v2.core.event',
      type: 'v1.payment_intent.succeeded',
      livemode: false,
      created: '2025-12-02T08:00:00.000Z',
      related_object: { id: PI, type: 'payment_intent', url: `/v1/payment_intents/${PI}` },
      ...fields,
    },
    null,
    2,
  );
}

/** The request as Stripe's SDK signs it. */
function signed(body: string, timestamp = NOW): InboundWebhook {
  const header = Stripe.webhooks.generateTestHeaderString({
    payload: body,
    secret: SECRET,
    timestamp,
  });
  return {
    rawBody: Buffer.from(body, 'utf8'),
    headers: { 'stripe-signature': header, 'content-type': 'application/json' },
    receivedAt: new Date(timestamp * 1000),
  };
}

function received(request: InboundWebhook): NormalizedNotification {
  const { provider } = stripeEndpoint({ name: 'stripe', secret: SECRET });
  provider.verify(request);
  const [notification] = notificationsOf(provider.normalize(request));
  return notification;
}

describe('Stripe event notifications (thin events)', () => {
  it('verifies and reads a notification the Stripe SDK parses from the same bytes', () => {
    const body = notificationBody({});
    const request = signed(body, Math.floor(Date.now() / 1000));
    const parsed = new Stripe('sk_test_unused').parseEventNotification(
      body,
      request.headers['stripe-signature']!,
      SECRET,
    );
    expect(parsed.id).toBe('evt_test_65R9Ijk8d1Y5bbtRhwF5FEBJRTSQ3ygZSF0qTo8pUCV');

    expect(received(request)).toEqual({
      eventId: parsed.id,
      type: 'payment.succeeded',
      nativeType: 'v1.payment_intent.succeeded',
      paymentRef: PI,
      occurredAt: new Date('2025-12-02T08:00:00.000Z'),
      payload: JSON.parse(body),
    });
  });

  it('names the snapshot event it copies, and none without one', () => {
    const copy = received(signed(notificationBody({ snapshot_event: 'evt_1Snapshot' }), NOW));
    expect(copy.sameEventAs).toBe('evt_1Snapshot');
    expect(copy.eventId).not.toBe('evt_1Snapshot');
    expect(received(signed(notificationBody({}), NOW)).sameEventAs).toBeUndefined();
    // A refund's update is refund.succeeded or none in its snapshot event, by the object only.
    const update = notificationBody({ type: 'v1.refund.updated', snapshot_event: 'evt_1Refund' });
    expect(received(signed(update, NOW)).sameEventAs).toBeUndefined();
    // NOTE: a field it need not carry never refuses a signed delivery, whatever its value.
    expect(
      received(signed(notificationBody({ snapshot_event: 42 }), NOW)).sameEventAs,
    ).toBeUndefined();
  });

  it.each([
    ['v1.payment_intent.succeeded', 'payment.succeeded'],
    ['v1.payment_intent.payment_failed', 'payment.failed'],
    ['v1.payment_intent.canceled', 'payment.canceled'],
    ['v1.payment_intent.amount_capturable_updated', 'payment.authorized'],
    ['v1.checkout.session.async_payment_succeeded', 'payment.succeeded'],
    ['v1.refund.failed', 'refund.failed'],
    ['v1.charge.dispute.created', 'dispute.opened'],
    ['v1.charge.dispute.closed', 'dispute.closed'],
  ])('normalizes %s as its snapshot type does: %s', (type, normalized) => {
    expect(received(signed(notificationBody({ type }))).type).toBe(normalized);
  });

  it.each([
    // NOTE: paid or not, which refund status: the object would say, and the notification has none.
    'v1.checkout.session.completed',
    'v1.refund.created',
    'v1.refund.updated',
    'v1.charge.succeeded',
    'v2.core.account.updated',
    'v2.core.event_destination.ping',
  ])('keeps %s as its native type', (type) => {
    const notification = received(signed(notificationBody({ type })));
    expect([notification.type, notification.nativeType]).toEqual([`stripe:${type}`, type]);
  });

  it('takes the payment reference only from a related PaymentIntent', () => {
    const charge = { id: 'ch_3MtwBwLkdIwHu7ix0snN0B15', type: 'charge', url: '/v1/charges/ch_1' };
    const refund = { id: 're_3MtwBwLkdIwHu7ix0a1b2c3d', type: 'refund', url: '/v1/refunds/re_1' };
    for (const related_object of [charge, refund, null]) {
      const body = notificationBody({ type: 'v1.refund.failed', related_object });
      expect(received(signed(body)).paymentRef).toBeUndefined();
    }
  });

  it('dedups by the notification id and keeps the whole body as received', () => {
    const body = notificationBody({ id: 'evt_test_one', context: 'acct_1Nv0FGQ9RKHgCVdK' });
    const notification = received(signed(body));
    expect(notification.eventId).toBe('evt_test_one');
    expect(notification.payload).toEqual(JSON.parse(body));
  });

  it('refuses a notification without an id or type, naming the field', () => {
    const body = notificationBody({ id: '' });
    expect(() => received(signed(body))).toThrow(WebhookPayloadError);
    expect(() => received(signed(body))).toThrow(/Stripe event notification is not valid: id/);
  });

  it('still reads a snapshot event on the same endpoint', () => {
    const body = JSON.stringify({
      id: 'evt_snapshot',
      object: 'event',
      type: 'payment_intent.succeeded',
      created: NOW,
      data: { object: { id: PI, object: 'payment_intent', amount: 2500, currency: 'eur' } },
    });
    expect(received(signed(body))).toMatchObject({
      eventId: 'evt_snapshot',
      type: 'payment.succeeded',
      paymentRef: PI,
      amount: 2500,
    });
  });

  it('is refused under another secret, as any Stripe delivery', () => {
    const delivery = signStripeEventNotification({
      secret: 'whsec_snapshot_destination',
      type: 'v1.payment_intent.succeeded',
      relatedObject: { id: PI, type: 'payment_intent' },
    });
    const { provider } = stripeEndpoint({ name: 'stripe', secret: SECRET });
    const request = {
      rawBody: Buffer.from(delivery.body),
      headers: delivery.headers,
      receivedAt: new Date(),
    };
    expect(() => provider.verify(request)).toThrow(/signature/i);
  });
});

describe('signStripeEventNotification', () => {
  it('builds a notification the Stripe SDK verifies and parses, with its eventId', () => {
    const delivery = signStripeEventNotification({
      secret: SECRET,
      type: 'v1.payment_intent.succeeded',
      relatedObject: { id: PI, type: 'payment_intent' },
      context: 'acct_1Nv0FGQ9RKHgCVdK',
      created: '2026-12-02T10:00:00.000Z',
    });
    const parsed = new Stripe('sk_test_unused').parseEventNotification(
      delivery.body,
      delivery.headers['stripe-signature'],
      SECRET,
    );
    expect(delivery).toMatchObject({ provider: 'stripe', method: 'POST', eventId: parsed.id });
    expect(JSON.parse(delivery.body)).toEqual({
      id: expect.stringMatching(/^evt_test_[0-9A-Za-z]{56}$/),
      object: 'v2.core.event',
      type: 'v1.payment_intent.succeeded',
      livemode: false,
      created: '2026-12-02T10:00:00.000Z',
      related_object: { id: PI, type: 'payment_intent', url: `/v1/payment_intents/${PI}` },
      context: 'acct_1Nv0FGQ9RKHgCVdK',
    });
    expect(String(parsed.context)).toBe('acct_1Nv0FGQ9RKHgCVdK');
    expect(delivery.headers['content-type']).toBe('application/json');
  });

  it('forms the related url of nested and v2 types, and leaves out what is not given', () => {
    const session = signStripeEventNotification({
      secret: SECRET,
      type: 'v1.checkout.session.completed',
      relatedObject: { id: 'cs_1', type: 'checkout.session' },
      livemode: true,
    });
    expect(JSON.parse(session.body)).toMatchObject({
      id: expect.stringMatching(/^evt_[0-9A-Za-z]{56}$/),
      livemode: true,
      related_object: { url: '/v1/checkout/sessions/cs_1' },
    });
    const account = signStripeEventNotification({
      secret: SECRET,
      type: 'v2.core.account.updated',
      relatedObject: { id: 'acct_1', type: 'v2.core.account' },
    });
    expect(JSON.parse(account.body).related_object.url).toBe('/v2/core/accounts/acct_1');
    const ping = JSON.parse(
      signStripeEventNotification({ secret: SECRET, type: 'v2.core.event_destination.ping' }).body,
    );
    expect(Object.keys(ping)).toEqual(['id', 'object', 'type', 'livemode', 'created']);
  });
});
