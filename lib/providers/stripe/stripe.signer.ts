import { randomInt, randomUUID } from 'node:crypto';
import { IdentifiedDelivery, SignablePayload } from '../signed-delivery';
import { stripeProvider, stripeSignature } from './stripe.provider';

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
  const { payload, secret, timestamp } = options;
  return stripeSignature().signAll(payload, [secret], timestamp) as StripeSignatureHeaders;
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
 * `eventId` is the event's id, except for a refund's outcome (`refund.updated` to `succeeded`,
 * …), which the endpoint stores under the refund and its status: `re_…:succeeded`.
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
  return stripeDelivery(event.id, JSON.stringify(event, null, 2), options);
}

/** A Stripe delivery of `body`, signed, with the id the endpoint stores it under. */
function stripeDelivery(
  id: string,
  body: string,
  options: { readonly secret: string; readonly timestamp?: number },
): IdentifiedDelivery {
  return { eventId: id, ...stripeProvider.signed(body, options.secret, options.timestamp) };
}

/** The object an event notification is about, as its `related_object` names it. */
export interface StripeRelatedObject {
  /** The object's id, e.g. `'pi_…'`. */
  id: string;
  /** Its type as Stripe names it there: `'payment_intent'`, `'refund'`, `'v2.core.account'`, … */
  type: string;
  /**
   * The API path it is fetched from.
   * @default its type's collection and its id: `/v1/payment_intents/pi_…`, `/v2/core/accounts/…`
   */
  url?: string;
}

/** Options of `signStripeEventNotification()`. */
export interface SignStripeEventNotificationOptions {
  /** The signing secret (`whsec_…`) of the event destination that sends notifications. */
  secret: string;
  /** The notification's type: `'v1.payment_intent.succeeded'`, `'v2.core.account.updated'`, … */
  type: string;
  /**
   * The object it is about.
   * @default none (`related_object` left out, as for a `v2.core.event_destination.ping`)
   */
  relatedObject?: StripeRelatedObject;
  /**
   * The connected account the event happened on (`context`), as a Connect platform receives it.
   * @default none: the destination's own account
   */
  context?: string;
  /**
   * The notification id, the same on every retry of one notification.
   * @default a fresh `evt_…` id on each call
   */
  id?: string;
  /**
   * When the event was created, as an ISO 8601 time.
   * @default now
   */
  created?: string;
  /**
   * Whether the event comes from live mode.
   * @default false
   */
  livemode?: boolean;
  /**
   * The notification's `reason`, e.g. `{ type: 'request', request: { id, idempotency_key } }`.
   * @default none
   */
  reason?: Readonly<Record<string, unknown>>;
  /**
   * Signed timestamp (`t=`) in Unix seconds; an old one makes a stale delivery.
   * @default now
   */
  timestamp?: number;
}

/** A related object's API path from its type and id, as Stripe forms it. */
function relatedObjectUrl(object: StripeRelatedObject): string {
  const collection = object.type.startsWith('v2.')
    ? object.type.split('.').join('/')
    : `v1/${object.type.split('.').join('/')}`;
  return `/${collection}s/${encodeURIComponent(object.id)}`;
}

/**
 * A whole delivery of a Stripe event notification (a thin event), as an event destination with
 * the thin payload sends it: `object: 'v2.core.event'`, `id`, `type`, `livemode`, `created` (ISO
 * time), `related_object`, `context` and `reason` when given, pretty-printed, with the same
 * `Stripe-Signature` as a snapshot event. `stripe.parseEventNotification(body, header, secret)`
 * accepts it. `eventId` is the notification's id, the key the endpoint stores it under.
 * @example
 * const delivery = signStripeEventNotification({
 *   secret: process.env.STRIPE_THIN_WEBHOOK_SECRET!,
 *   type: 'v1.payment_intent.succeeded',
 *   relatedObject: { id: 'pi_3MtwBwLkdIwHu7ix28a3tqPa', type: 'payment_intent' },
 * });
 * await new WebhookTestClient(app).send('stripe-thin', delivery);
 */
export function signStripeEventNotification(
  options: SignStripeEventNotificationOptions,
): IdentifiedDelivery {
  const livemode = options.livemode ?? false;
  const related = options.relatedObject;
  const notification = {
    id: options.id ?? stripeId(livemode ? 'evt' : 'evt_test', 56),
    object: 'v2.core.event',
    type: options.type,
    livemode,
    created: options.created ?? new Date().toISOString(),
    ...(related && {
      related_object: {
        id: related.id,
        type: related.type,
        url: related.url ?? relatedObjectUrl(related),
      },
    }),
    ...(options.context === undefined ? {} : { context: options.context }),
    ...(options.reason === undefined ? {} : { reason: options.reason }),
  };
  return stripeDelivery(notification.id, JSON.stringify(notification, null, 2), options);
}
