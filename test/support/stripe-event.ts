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

/** What a test may choose of a `payment_intent.*` event; the rest is fresh or fixed. */
export interface StripeEventOptions {
  /** The Stripe type (`payment_intent.succeeded` unless set). */
  type?: string;
  /** `metadata.orderId`, the event's merchant reference. */
  orderId?: string;
  /** The payment intent's id, the event's payment reference (`pi_<event id>` unless set). */
  paymentId?: string;
  /** When it happened, in seconds since the epoch (now unless set). */
  created?: number;
}

function paymentIntentEvent(options: StripeEventOptions): {
  id: string;
  body: string;
} {
  // NOTE: the time in base 36, so no id holds a 13-digit run that log masking takes for a card number.
  const id = `evt_${process.pid}_${Date.now().toString(36)}_${sequence++}`;
  const body = JSON.stringify({
    id,
    object: 'event',
    type: options.type ?? 'payment_intent.succeeded',
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: {
      object: {
        id: options.paymentId ?? `pi_${id}`,
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
  options: StripeEventOptions = {},
): SignedStripeEvent {
  const { id, body } = paymentIntentEvent(options);
  return { id, body, headers: sign(body, secret) };
}

/** A `payment_intent.succeeded` event with a fresh id, signed anew for each attempt. */
export function stripePaymentEvent(secret: string): StripeTestEvent {
  const { id, body } = paymentIntentEvent({});
  return { id, body, headers: () => sign(body, secret) };
}
