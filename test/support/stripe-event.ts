import Stripe from 'stripe';

/**
 * Stripe deliveries for the specs, signed by Stripe's own SDK
 * (`stripe.webhooks.generateTestHeaderString`).
 * NOTE: not by `signStripe()` of `nestjs-payment-webhooks/testing`, which makes the same header
 * with the package's own HMAC helper: the verification under test is checked against what
 * Stripe makes, not against the package itself.
 */

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

/** How a signature is made besides its body. */
export interface StripeSignatureOptions {
  /**
   * The signed time in seconds since the epoch (now unless set): an old one makes a stale
   * signature. The SDK takes 0 for unset.
   */
  timestamp?: number;
}

/** What a test may choose of an event; the rest is fresh or fixed. */
export interface StripeEventOptions extends StripeSignatureOptions {
  /** The event's id (`evt_…`, fresh unless set). */
  id?: string;
  /** The Stripe type (`payment_intent.succeeded` unless set). */
  type?: string;
  /** When it happened, in seconds since the epoch (now unless set). */
  created?: number;
  /** `metadata.orderId` of the payment intent, the event's merchant reference. */
  orderId?: string;
  /** The payment intent's id, the event's payment reference (`pi_<event id>` unless set). */
  paymentId?: string;
  /** The payment intent's amount in minor units (1999 unless set). */
  amount?: number;
  /** The payment intent's currency (`usd` unless set). */
  currency?: string;
  /** `data.object` as given, instead of a payment intent: a customer, a refund, `{}`. */
  object?: Record<string, unknown>;
  /** Top-level fields after the event's own (`api_version`, `livemode`, a filler …). */
  extra?: Record<string, unknown>;
}

let sequence = 0;

/** A fresh event id. */
export function stripeEventId(): string {
  // NOTE: the time in base 36, so no id holds a 13-digit run that log masking takes for a card number.
  return `evt_${process.pid}_${Date.now().toString(36)}_${sequence++}`;
}

/** The `stripe-signature` header of `body` as Stripe signs it with `secret`. */
export function stripeSignature(
  body: string,
  secret: string,
  options: StripeSignatureOptions = {},
): Record<string, string> {
  return {
    'stripe-signature': Stripe.webhooks.generateTestHeaderString({
      payload: body,
      secret,
      timestamp: options.timestamp,
    }),
  };
}

/** The exact body of an event: a payment intent unless `options.object` says otherwise. */
function eventBody(id: string, options: StripeEventOptions): string {
  const object = options.object ?? {
    id: options.paymentId ?? `pi_${id}`,
    object: 'payment_intent',
    amount: options.amount ?? 1999,
    currency: options.currency ?? 'usd',
    status: 'succeeded',
    metadata: { orderId: options.orderId ?? `order-${id}` },
  };
  return JSON.stringify({
    id,
    object: 'event',
    type: options.type ?? 'payment_intent.succeeded',
    created: options.created ?? Math.floor(Date.now() / 1000),
    data: { object },
    ...options.extra,
  });
}

/**
 * An event (a `payment_intent.succeeded` unless `options` say otherwise) signed with `secret`
 * by `stripe.webhooks.generateTestHeaderString`.
 */
export function signedStripeEvent(
  secret: string,
  options: StripeEventOptions = {},
): SignedStripeEvent {
  const id = options.id ?? stripeEventId();
  const body = eventBody(id, options);
  return { id, body, headers: stripeSignature(body, secret, options) };
}

/** An event as `signedStripeEvent` makes it, signed anew for each attempt. */
export function stripePaymentEvent(
  secret: string,
  options: Omit<StripeEventOptions, 'timestamp'> = {},
): StripeTestEvent {
  const id = options.id ?? stripeEventId();
  const body = eventBody(id, options);
  return { id, body, headers: () => stripeSignature(body, secret) };
}

/**
 * An event notification (a thin event, `object: 'v2.core.event'`; a `v1.payment_intent.succeeded`
 * unless `fields` say otherwise) as Stripe renders it, signed with `secret` by
 * `stripe.webhooks.generateTestHeaderString`.
 */
export function signedStripeNotification(
  secret: string,
  fields: Record<string, unknown> = {},
): SignedStripeEvent {
  const id = `evt_test_${stripeEventId().slice(4)}`;
  const body = JSON.stringify(
    {
      id,
      object: 'v2.core.event',
      type: 'v1.payment_intent.succeeded',
      livemode: false,
      created: new Date().toISOString(),
      ...fields,
    },
    null,
    2,
  );
  return { id, body, headers: stripeSignature(body, secret) };
}

/** `related_object` naming a PaymentIntent, as a notification about it carries it. */
export function relatedPaymentIntent(id: string): Record<string, unknown> {
  return { related_object: { id, type: 'payment_intent', url: `/v1/payment_intents/${id}` } };
}
