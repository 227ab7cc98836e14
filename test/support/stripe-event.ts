import Stripe from 'stripe';

/** A Stripe event ready to POST: its id, the exact body, and the header Stripe's SDK signs. */
export interface SignedStripeEvent {
  readonly id: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

/** A Stripe event to deliver, and the headers of one attempt as Stripe signs it. */
export interface StripeTestEvent {
  readonly id: string;
  readonly body: string;
  /** Signed by Stripe's own SDK, anew on each call, as each delivery attempt is. */
  headers(): Record<string, string>;
}

let sequence = 0;

function paymentIntentEvent(options: { type?: string; orderId?: string }): {
  id: string;
  body: string;
} {
  const id = `evt_${process.pid}_${Date.now()}_${sequence++}`;
  const body = JSON.stringify({
    id,
    object: 'event',
    type: options.type ?? 'payment_intent.succeeded',
    created: Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: `pi_${id}`,
        object: 'payment_intent',
        amount: 1999,
        currency: 'usd',
        status: 'succeeded',
        metadata: { orderId: options.orderId ?? `order-${id}` },
      },
    },
  });
  return { id, body };
}

function sign(body: string, secret: string): Record<string, string> {
  return {
    'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret }),
  };
}

/**
 * A `payment_intent.*` event (succeeded unless `type` says otherwise) for `orderId`, signed
 * with `secret` by `stripe.webhooks.generateTestHeaderString`.
 */
export function signedStripeEvent(
  secret: string,
  options: { type?: string; orderId?: string } = {},
): SignedStripeEvent {
  const { id, body } = paymentIntentEvent(options);
  return { id, body, headers: sign(body, secret) };
}

/** A `payment_intent.succeeded` event with a fresh id, signed anew for each attempt. */
export function stripePaymentEvent(secret: string): StripeTestEvent {
  const { id, body } = paymentIntentEvent({});
  return { id, body, headers: () => sign(body, secret) };
}
