import Stripe from 'stripe';

/** A Stripe event ready to POST: its id, the exact body, and the header Stripe's SDK signs. */
export interface SignedStripeEvent {
  readonly id: string;
  readonly body: string;
  readonly headers: Record<string, string>;
}

let sequence = 0;

/**
 * A `payment_intent.*` event (succeeded unless `type` says otherwise) for `orderId`, signed
 * with `secret` by `stripe.webhooks.generateTestHeaderString`.
 */
export function signedStripeEvent(
  secret: string,
  options: { type?: string; orderId?: string } = {},
): SignedStripeEvent {
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
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
  return { id, body, headers: { 'stripe-signature': signature } };
}
