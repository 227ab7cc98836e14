import { randomInt, randomUUID } from 'node:crypto';
import { hmacSha256 } from '../../core/hmac';
import { IdentifiedDelivery, SignablePayload } from '../signed-delivery';

/** Options of `signStripe()`. */
export interface SignStripeOptions {
  /** The exact raw body you will send. */
  payload: SignablePayload;
  /** The endpoint signing secret (`whsec_…`), used verbatim as Stripe does. */
  secret: string;
  /**
   * Signed timestamp in Unix seconds.
   * @default now
   */
  timestamp?: number;
}

/**
 * Headers Stripe sends with a delivery. A type alias, not an interface, so it can be passed
 * wherever a `Record<string, string>` of headers is expected.
 */
export type StripeSignatureHeaders = {
  /** `t=<timestamp>,v1=<hex>`. */
  'stripe-signature': string;
};

/**
 * Signs a payload the way Stripe does; the same header as
 * `stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp })`.
 * @example
 * const body = JSON.stringify(event);
 * await request(app).post('/webhooks/stripe').set(signStripe({ payload: body, secret })).send(body);
 */
export function signStripe(options: SignStripeOptions): StripeSignatureHeaders {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = hmacSha256(options.secret, [`${timestamp}.`, options.payload]).toString('hex');
  return { 'stripe-signature': `t=${timestamp},v1=${signature}` };
}

/**
 * The API version a built event is rendered in unless `apiVersion` says otherwise: Stripe's
 * newest, the one the `stripe` SDK among the devDependencies pins (its spec fails when they part).
 */
const STRIPE_API_VERSION = '2026-10-28.endive';

// NOTE: Stripe ids are a prefix and base62 characters; 24 of them for events, 14 for requests.
const ID_ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

function stripeId(prefix: string, length: number): string {
  let id = `${prefix}_`;
  for (let i = 0; i < length; i++) id += ID_ALPHABET[randomInt(ID_ALPHABET.length)];
  return id;
}

/** Options of `signStripeDelivery()`. */
export interface SignStripeDeliveryOptions {
  /** The endpoint signing secret (`whsec_…`), used verbatim as Stripe does. */
  secret: string;
  /** Stripe's own event type, e.g. `'payment_intent.succeeded'`, `'refund.updated'`. */
  type: string;
  /** The event's `data.object`: the PaymentIntent, Charge, Refund, … (see `stripeFixtures`). */
  object: Readonly<Record<string, unknown>>;
  /**
   * For an `….updated` event, `data.previous_attributes`: the fields the update changed, with
   * their old values (e.g. `{ status: 'pending' }` for a refund that now succeeded).
   * @default none
   */
  previousAttributes?: Readonly<Record<string, unknown>>;
  /**
   * The event id, the same on every retry of one event.
   * @default a fresh `evt_…` id on each call
   */
  id?: string;
  /**
   * When the event was created, in Unix seconds.
   * @default now
   */
  created?: number;
  /**
   * Whether the event comes from live mode.
   * @default false
   */
  livemode?: boolean;
  /**
   * The API version the event is rendered in (`api_version`), the endpoint's version at Stripe.
   * @default '2026-10-28.endive'
   */
  apiVersion?: string;
  /**
   * Signed timestamp (`t=`) in Unix seconds; an old one makes a stale delivery.
   * @default now
   */
  timestamp?: number;
}

/**
 * A whole Stripe delivery: the event as Stripe renders it (`id`, `object: 'event'`,
 * `api_version`, `created`, `data.object`, `livemode`, `pending_webhooks`, `request`, `type`,
 * pretty-printed as Stripe sends it), `Stripe-Signature` over those exact bytes, and a JSON
 * content type. The header is the one `stripe.webhooks.generateTestHeaderString()` makes, so
 * `stripe.webhooks.constructEvent(body, headers['stripe-signature'], secret)` accepts it.
 * @example
 * const delivery = signStripeDelivery({
 *   secret: process.env.STRIPE_WEBHOOK_SECRET!,
 *   type: 'payment_intent.succeeded',
 *   object: stripeFixtures.paymentIntent(),
 * });
 * await request(app.getHttpServer()).post('/webhooks/stripe').set(delivery.headers).send(delivery.body);
 */
export function signStripeDelivery(options: SignStripeDeliveryOptions): IdentifiedDelivery {
  const data =
    options.previousAttributes === undefined
      ? { object: options.object }
      : { object: options.object, previous_attributes: options.previousAttributes };
  const event = {
    id: options.id ?? stripeId('evt', 24),
    object: 'event',
    api_version: options.apiVersion ?? STRIPE_API_VERSION,
    created: options.created ?? Math.floor(Date.now() / 1000),
    data,
    livemode: options.livemode ?? false,
    pending_webhooks: 1,
    request: { id: stripeId('req', 14), idempotency_key: randomUUID() },
    type: options.type,
  };
  const body = JSON.stringify(event, null, 2);
  return {
    provider: 'stripe',
    method: 'POST',
    eventId: event.id,
    body,
    headers: {
      'content-type': 'application/json',
      ...signStripe({ payload: body, secret: options.secret, timestamp: options.timestamp }),
    },
  };
}
