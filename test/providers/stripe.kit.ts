import { stripeEndpoint } from 'nestjs-payment-webhooks';
import { stripeEventId, stripeSignature } from '../support/stripe-event';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'whsec_provider_kit_stripe';

/** A payment intent event of `orderId` as Stripe sends it. */
function paymentIntentEvent(orderId: string, id = stripeEventId()) {
  return {
    id,
    object: 'event',
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `pi_${id}`,
        object: 'payment_intent',
        amount: 1999,
        currency: 'usd',
        status: 'succeeded',
        metadata: { orderId },
      },
    },
  };
}

/** Stripe, signed by Stripe's SDK (`webhooks.generateTestHeaderString`). */
export const kit: ProviderKit = {
  kind: 'stripe',
  signedBy: 'stripe SDK',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    stripeEndpoint({ name, secret: secrets === 'right' ? SECRET : 'whsec_provider_kit_other' }),
  paid(orderId) {
    const event = paymentIntentEvent(orderId);
    const body = JSON.stringify(event);
    return {
      delivery: jsonDelivery('stripe', body, stripeSignature(body, SECRET)),
      expected: {
        eventId: event.id,
        type: 'payment.succeeded',
        paymentRef: event.data.object.id,
        merchantRef: orderId,
        amount: 1999,
        currency: 'USD',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"amount":1999', '"amount":1');
  },
  poison: {
    build(v, n) {
      const eventId = `evt_${n}_${v.id}`;
      const body = JSON.stringify({
        id: eventId,
        object: 'event',
        type: `payment_intent.${v.type}`,
        created: Math.floor(Date.now() / 1000),
        data: {
          object: {
            id: v.paymentRef,
            object: 'payment_intent',
            amount: 1999,
            currency: v.currency,
            status: v.status,
            metadata: { orderId: v.merchantRef },
          },
        },
      });
      return {
        delivery: jsonDelivery('stripe', body, stripeSignature(body, SECRET)),
        expected: [
          {
            eventId,
            nativeType: `payment_intent.${v.type}`,
            paymentRef: v.paymentRef,
            merchantRef: v.merchantRef,
            currency: currencyOf(v.currency),
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET],
    payload: (orderId) => paymentIntentEvent(orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
