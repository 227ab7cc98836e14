import Stripe from 'stripe';
import { notificationsOf } from '../notifications';
import { stripeFixtures } from './stripe.fixtures';
import { stripeEndpoint } from './stripe.provider';
import { SignStripeDeliveryOptions, signStripeDelivery } from './stripe.signer';

const SECRET = 'whsec_fixtures';
const { ids } = stripeFixtures;

/** What a Stripe endpoint makes of a fixture delivered as `type`, verified first. */
function normalized(
  type: string,
  object: Readonly<Record<string, unknown>>,
  extra: Partial<SignStripeDeliveryOptions> = {},
) {
  const delivery = signStripeDelivery({ secret: SECRET, type, object, ...extra });
  const { provider } = stripeEndpoint({ name: 'stripe', secret: SECRET });
  const request = {
    rawBody: Buffer.from(delivery.body, 'utf8'),
    headers: delivery.headers,
    receivedAt: new Date(),
  };
  provider.verify(request);
  const [notification] = notificationsOf(provider.normalize(request));
  return notification;
}

describe('stripeFixtures through a Stripe endpoint', () => {
  it.each([
    ['payment_intent.succeeded', 'payment.succeeded', stripeFixtures.paymentIntent()],
    [
      'payment_intent.payment_failed',
      'payment.failed',
      stripeFixtures.paymentIntent('requires_payment_method'),
    ],
    ['payment_intent.canceled', 'payment.canceled', stripeFixtures.paymentIntent('canceled')],
    [
      'payment_intent.amount_capturable_updated',
      'payment.authorized',
      stripeFixtures.paymentIntent('requires_capture'),
    ],
    ['checkout.session.completed', 'payment.succeeded', stripeFixtures.checkoutSession()],
    ['charge.succeeded', 'stripe:charge.succeeded', stripeFixtures.charge()],
  ])('%s is %s of the fixtures’ payment for order-1042', (nativeType, type, object) => {
    expect(normalized(nativeType, object)).toMatchObject({
      type,
      nativeType,
      eventId: expect.stringMatching(/^evt_/),
      paymentRef: ids.paymentIntent,
      merchantRef: 'order-1042',
      amount: 2500,
      currency: 'EUR',
      status: object.object === 'checkout.session' ? object.payment_status : object.status,
    });
  });

  it('a created refund is refund.succeeded of the payment, keyed by the refund', () => {
    expect(normalized('refund.created', stripeFixtures.refund())).toMatchObject({
      eventId: `${ids.refund}:succeeded`,
      type: 'refund.succeeded',
      paymentRef: ids.paymentIntent,
      merchantRef: 'order-1042',
      amount: 2500,
      currency: 'EUR',
    });
  });

  it('a refund updated to failed is refund.failed; without metadata it has no merchantRef', () => {
    const failed = stripeFixtures.refund({ status: 'failed', metadata: {} });
    expect(
      normalized('refund.updated', failed, { previousAttributes: { status: 'pending' } }),
    ).toMatchObject({
      eventId: `${ids.refund}:failed`,
      type: 'refund.failed',
      paymentRef: ids.paymentIntent,
      merchantRef: undefined,
    });
  });

  it('a session still unpaid is not a payment yet; its order comes from client_reference_id', () => {
    const unpaid = stripeFixtures.checkoutSession({ payment_status: 'unpaid', metadata: {} });
    expect(normalized('checkout.session.completed', unpaid)).toMatchObject({
      type: 'stripe:checkout.session.completed',
      paymentRef: ids.paymentIntent,
      merchantRef: 'order-1042',
    });
  });

  it('a dispute opens and closes on the payment, with no merchantRef of its own', () => {
    expect(normalized('charge.dispute.created', stripeFixtures.dispute())).toMatchObject({
      type: 'dispute.opened',
      paymentRef: ids.paymentIntent,
      merchantRef: undefined,
      status: 'needs_response',
    });
    expect(
      normalized('charge.dispute.closed', stripeFixtures.dispute({ status: 'lost' })),
    ).toMatchObject({ type: 'dispute.closed', paymentRef: ids.paymentIntent, status: 'lost' });
  });
});

describe('stripeFixtures', () => {
  it('fill the fields each PaymentIntent status comes with', () => {
    expect(stripeFixtures.paymentIntent()).toMatchObject({
      object: 'payment_intent',
      status: 'succeeded',
      amount_received: 2500,
      latest_charge: ids.charge,
      last_payment_error: null,
    });
    expect(stripeFixtures.paymentIntent('requires_payment_method')).toMatchObject({
      amount_received: 0,
      payment_method: null,
      last_payment_error: { code: 'card_declined', decline_code: 'insufficient_funds' },
    });
    expect(stripeFixtures.paymentIntent('requires_capture')).toMatchObject({
      amount_capturable: 2500,
      amount_received: 0,
      capture_method: 'manual',
    });
    expect(stripeFixtures.paymentIntent('requires_action')).toMatchObject({
      next_action: { type: 'use_stripe_sdk' },
      latest_charge: null,
    });
    expect(stripeFixtures.paymentIntent('canceled')).toMatchObject({
      cancellation_reason: 'requested_by_customer',
      canceled_at: expect.any(Number),
    });
  });

  it('refer to one another, as the objects of one payment do', () => {
    expect(stripeFixtures.charge()).toMatchObject({ payment_intent: ids.paymentIntent });
    expect(stripeFixtures.refund()).toMatchObject({
      payment_intent: ids.paymentIntent,
      charge: ids.charge,
      amount: stripeFixtures.charge().amount,
    });
    expect(stripeFixtures.checkoutSession()).toMatchObject({
      payment_intent: ids.paymentIntent,
      client_reference_id: 'order-1042',
      status: 'complete',
    });
    expect(stripeFixtures.dispute()).toMatchObject({ charge: ids.charge });
  });

  it('hand out a fresh copy each time, with overrides on top', () => {
    const first = stripeFixtures.charge();
    (first.payment_method_details as { card: { last4: string } }).card.last4 = '0000';
    expect(stripeFixtures.charge()).toMatchObject({
      payment_method_details: { card: { last4: '4242' } },
    });
    expect(stripeFixtures.paymentIntent('succeeded', { amount: 1999 })).toMatchObject({
      amount: 1999,
      status: 'succeeded',
    });
  });

  it('make events the Stripe SDK parses, with the fixture as data.object', () => {
    const object = stripeFixtures.checkoutSession();
    const delivery = signStripeDelivery({
      secret: SECRET,
      type: 'checkout.session.completed',
      object,
    });
    const event = Stripe.webhooks.constructEvent(
      delivery.body,
      delivery.headers['stripe-signature'],
      SECRET,
    );
    expect(event.data.object).toEqual(object);
  });
});
