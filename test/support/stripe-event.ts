import Stripe from 'stripe';

/** A Stripe event to deliver, and the headers of one attempt as Stripe signs it. */
export interface StripeTestEvent {
  readonly id: string;
  readonly body: string;
  /** Signed by Stripe's own SDK, anew on each call, as each delivery attempt is. */
  headers(): Record<string, string>;
}

let sequence = 0;

/** A `payment_intent.succeeded` event with a fresh id, signed with `secret`. */
export function stripePaymentEvent(secret: string): StripeTestEvent {
  const id = `evt_test_${process.pid}_${sequence++}`;
  const body = JSON.stringify({
    id,
    type: 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: { object: { id: `pi_${id}`, amount: 900, currency: 'eur', metadata: {} } },
  });
  return {
    id,
    body,
    headers: () => ({
      'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
    }),
  };
}
