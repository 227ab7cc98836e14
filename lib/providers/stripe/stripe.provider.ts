import { StripeStatusClient, StripeStatusClientOptions } from './stripe-status.client';
import { StripeEventLog, StripePayloadStyle } from './stripe-event-log';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { PaymentEventType } from '../../core/payment-event-types';
import { isEventNotification, normalizeEventNotification } from './stripe-event-notification';
import { FIXED_TYPES, REFUND_STATUS_EVENTS, mapSnapshotType } from './stripe-event-types';
import { LivemodePolicy, livemodeSkipReason, resolveLivemode } from './stripe-livemode';
import { plainTextAcknowledgement } from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { integer, jsonObject, nonEmptyString, optional } from '../envelope-rules';
import {
  JsonObject,
  fromUnixSeconds,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import {
  DEFAULT_TOLERANCE_SECONDS,
  resolveNonEmptyString,
  resolveTolerance,
} from '../provider-options';
import { TimestampedSignatureHeader } from '../signature-header';
import { TimestampedSignatureScheme, timestampedHmacSignature } from '../timestamped-signature';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../webhook-provider.interface';

const KIND = 'stripe';
const SIGNATURE_HEADER: TimestampedSignatureHeader = {
  name: 'Stripe-Signature',
  separator: ',',
  timestampKey: 't',
  // NOTE: v0 and any other scheme are ignored on purpose, to prevent downgrade attacks.
  signatureKey: 'v1',
  signatureShape: 'v1',
  readSignature: (value) => (value.length > 0 ? value : undefined),
  signedPrefix: (timestampText) => `${timestampText}.`,
};
const SECRET_PREFIX = 'whsec_';
const HOW_TO_COPY =
  'Copy the signing secret (whsec_…) of this endpoint from Stripe Dashboard → Developers → ' +
  'Webhooks → your endpoint → Signing secret, or from the output of `stripe listen`,';

/** Options of the Stripe protocol, shared by `stripeEndpoint()` and `stripeProvider`. */
export interface StripeProviderOptions {
  /**
   * The endpoint's signing secret (`whsec_…`, Dashboard → Developers → Webhooks → Signing secret),
   * used verbatim. Pass a list while rolling a secret: a delivery is accepted when any secret
   * matches any of its `v1` signatures. Required.
   */
  secret: string | readonly string[];
  /**
   * Largest distance in seconds between the signed `t=` timestamp and the receive time, in either
   * direction; `0` switches the check off.
   * @default 300
   * @advanced
   */
  toleranceSeconds?: number;
  /**
   * The timestamp window in seconds, under its name before 1.0.
   * @deprecated use `toleranceSeconds` (the same number of seconds); read until 2.0.
   */
  tolerance?: number;
  /**
   * Key of the `metadata` entry (set by your app when creating the PaymentIntent, Checkout
   * Session, …) that holds your order id; it becomes `merchantRef`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
  /**
   * Which Stripe modes the endpoint takes events of: `'live'`, `'test'` or `'any'`. An event of
   * another mode is answered `200` (Stripe stops sending it), not stored, and journaled as
   * `skipped` with the reason, so a test-mode event never reaches a handler of a live shop.
   * Stripe sends an account's own events only to endpoints of their mode, but test-mode events
   * of connected accounts also to a platform's live Connect endpoints.
   * @default a live API key (`api.apiKey` `sk_live_…`/`rk_live_…`): `'live'`; a test key:
   * `'any'`; no key: the account's own events of both modes and only the live events of
   * connected accounts
   */
  livemode?: 'live' | 'test' | 'any';
}

/** Options of `stripeEndpoint()`. */
export interface StripeEndpointOptions extends BaseEndpointOptions, StripeProviderOptions {
  /**
   * Stripe API access for "ask the provider" (`verifyWithProvider`, `ctx.fetchStatus()`,
   * reconciliation): a restricted key with read access to PaymentIntents and Refunds is enough;
   * for `ctx.fetchEvent()` and `ctx.fetchRelatedObject()` of event notifications, also to Events
   * and to the objects they name. Its mode (`sk_live_…` or `sk_test_…`) is `livemode`'s default.
   * @example api: { apiKey: process.env.STRIPE_SECRET_KEY! }
   */
  api?: StripeStatusClientOptions;
  /**
   * The payload style of the Stripe event destination that sends to this endpoint (Dashboard →
   * Developers → Event destinations → your destination → Payload style): `'snapshot'` or
   * `'thin'`. Recovering missed events reads the matching log: `GET /v1/events` for snapshot
   * events, `GET /v2/core/events` for thin ones. Deliveries of either style are taken either way.
   * @default 'snapshot'
   */
  payloadStyle?: StripePayloadStyle;
  /**
   * For an endpoint of event notifications (thin events): the `name` of the endpoint that
   * receives the snapshot events of the same Stripe account. The two copies Stripe sends of one
   * event, the snapshot event `evt_X` there and the notification naming `evt_X` as
   * `snapshot_event` here, are then one event: whichever comes first is stored and runs its
   * handlers, the other is answered as a duplicate of it. Unset, each endpoint stores its own
   * events, as every endpoint not paired does. The endpoint named must be a Stripe endpoint
   * without a `snapshotEndpoint` of its own.
   * @default none: not paired, each copy is an event of its own
   * @example snapshotEndpoint: 'stripe'
   */
  snapshotEndpoint?: string;
}

/** The snapshot endpoint an endpoint's options name, checked. */
function resolveSnapshotEndpoint(endpointName: string, value: unknown): string | undefined {
  if (value === undefined || (typeof value === 'string' && value !== '')) {
    return value;
  }
  throw new WebhookConfigurationError(
    `Webhook endpoint "${endpointName}" (stripe): snapshotEndpoint must be the name of the ` +
      `endpoint that receives the snapshot events of the same account (got ${JSON.stringify(value)}).`,
  );
}

/** The payload style an endpoint's options give, checked. */
function resolvePayloadStyle(endpointName: string, value: unknown): StripePayloadStyle {
  if (value === undefined || value === 'snapshot' || value === 'thin') {
    return value ?? 'snapshot';
  }
  throw new WebhookConfigurationError(
    `Webhook endpoint "${endpointName}" (stripe): payloadStyle must be 'snapshot' or 'thin', ` +
      `as the event destination's Payload style says (got ${JSON.stringify(value)}).`,
  );
}

const STRIPE_EVENT = defineEnvelope({
  id: nonEmptyString(),
  type: nonEmptyString(),
  created: optional(integer()),
  data: jsonObject(),
});

const STRIPE_EVENT_DATA = defineEnvelope({ object: jsonObject() });

/**
 * The dedup key: the event id, except for a refund's outcome, which is keyed by the refund and
 * its status. Stripe announces one refund reaching `succeeded` in more than one event
 * (`refund.created`, `refund.updated`, `charge.refund.updated`), each with its own id; keyed by
 * the refund, the second is a duplicate and refund handlers run once per refund and outcome.
 */
function dedupKeyOf(
  event: { readonly id: string; readonly type: string },
  type: PaymentEventType | undefined,
  refund: JsonObject,
): string {
  const carriesRefund = REFUND_STATUS_EVENTS.has(event.type) || event.type === 'refund.failed';
  const refundId = readString(refund, 'id');
  const status = readString(refund, 'status');
  return carriesRefund && type?.startsWith('refund.') && refundId && status
    ? `${refundId}:${status}`
    : event.id;
}

/** Which Stripe object an event type carries, as far as the references are concerned. */
function objectFamily(type: string): 'payment_intent' | 'charge' | 'checkout' | 'other' {
  if (type.startsWith('payment_intent.')) return 'payment_intent';
  if (type.startsWith('checkout.session.')) return 'checkout';
  // NOTE: charge.dispute.* and charge.refund.* carry a dispute or refund, whose own id is no payment.
  if (type.startsWith('charge.dispute.') || type.startsWith('charge.refund.')) return 'other';
  if (type.startsWith('charge.')) return 'charge';
  return 'other';
}

function paymentIntentId(object: JsonObject): string | undefined {
  const value = object.payment_intent;
  if (typeof value === 'string') return value.length > 0 ? value : undefined;
  // NOTE: an expanded payment_intent is the whole object; its id is the reference.
  return readString(readObject(object, 'payment_intent'), 'id');
}

/** The parts of the options a Stripe delivery is read with. */
interface StripeReading {
  readonly merchantRefKey: string;
  readonly livemode: LivemodePolicy;
}

/**
 * Parses a Stripe event, a snapshot event or an event notification (a thin event, `object:
 * 'v2.core.event'`), and maps it to the normalized vocabulary.
 * @throws WebhookPayloadError
 */
function normalizeStripe(request: InboundWebhook, reading: StripeReading): NormalizedNotification {
  const body = parseJsonObject(request.rawBody, 'Stripe event body');
  // NOTE: a destination sends one shape, and either may be pointed at any endpoint: both are
  // read, so a signed delivery is never refused for its shape (Stripe would disable it).
  const notification = isEventNotification(body)
    ? normalizeEventNotification(body)
    : normalizeSnapshot(body, reading.merchantRefKey);
  const skip = livemodeSkipReason(reading.livemode, body.livemode, notification.account);
  return skip === undefined ? notification : { ...notification, skip };
}

function normalizeSnapshot(body: JsonObject, merchantRefKey: string): NormalizedNotification {
  const event = checkEnvelope(STRIPE_EVENT, body, 'Stripe event');
  const data = checkEnvelope(STRIPE_EVENT_DATA, event.data, 'Stripe event data');
  const { object } = data;
  const family = objectFamily(event.type);
  const isCheckout = family === 'checkout';

  const paymentRef =
    family === 'payment_intent'
      ? readString(object, 'id')
      : (paymentIntentId(object) ??
        (family === 'charge' || isCheckout ? readString(object, 'id') : undefined));
  const merchantRef =
    readString(readObject(object, 'metadata'), merchantRefKey) ??
    (isCheckout ? readString(object, 'client_reference_id') : undefined);

  const type = mapSnapshotType(event.type, data);
  return {
    eventId: dedupKeyOf(event, type, object),
    type: type ?? `${KIND}:${event.type}`,
    nativeType: event.type,
    paymentRef,
    merchantRef,
    amount: readInteger(object, isCheckout ? 'amount_total' : 'amount'),
    currency: toCurrency(object.currency),
    status: readString(object, isCheckout ? 'payment_status' : 'status'),
    occurredAt: fromUnixSeconds(event.created),
    payload: body,
    account: readString(body, 'account'),
    // NOTE: the snapshot event's own id, not the dedup key, which for a refund's outcome is the
    // refund and its status: the id its notification names as `snapshot_event`.
    sameEventAs: event.id,
  };
}

/** Stripe's signature scheme, with a timestamp window of `tolerance` seconds. */
export function stripeSignature(tolerance?: number): TimestampedSignatureScheme {
  return timestampedHmacSignature(SIGNATURE_HEADER, tolerance ?? DEFAULT_TOLERANCE_SECONDS);
}

/** What is wrong with a secret that is not an endpoint signing secret, or undefined. */
function signingSecretProblem(secret: string): string | undefined {
  if (secret.startsWith(SECRET_PREFIX) && secret.length > SECRET_PREFIX.length) return undefined;
  const problem = /^(sk|rk|pk)_/.test(secret)
    ? 'looks like an API key, not a webhook signing secret'
    : 'does not start with "whsec_"';
  return `${problem}. ${HOW_TO_COPY} without surrounding spaces or line breaks.`;
}

/**
 * Stripe webhooks: `Stripe-Signature: t=…,v1=…` is HMAC-SHA256 (hex) of `${t}.${rawBody}` keyed by
 * the whole `whsec_…` string; only `v1` counts. Event ids (`evt_…`) are stable across retries and
 * are the dedup key, but for a refund's outcome in a snapshot event, keyed
 * `${refund.id}:${refund.status}`. Snapshot events and event notifications are both read. Stripe
 * accepts any 2xx; an empty 200 is the plainest.
 */
export const stripeProvider = defineProvider<StripeEndpointOptions>({
  kind: KIND,
  name: 'Stripe',
  retryHorizon: {
    days: 3,
    documented: 'live mode retries with exponential backoff for up to 3 days',
  },
  secrets: { option: 'secret', howToCopy: HOW_TO_COPY, check: signingSecretProblem },
  signature: () => stripeSignature(),
  types: FIXED_TYPES,
  // NOTE: the order id's key and the modes taken are options, read with every delivery.
  create(options, endpointName, secrets) {
    const scheme = stripeSignature(
      resolveTolerance(endpointName, KIND, options, 'stripeEndpoint()'),
    );
    const reading: StripeReading = {
      merchantRefKey: resolveNonEmptyString(
        endpointName,
        KIND,
        'merchantRefKey',
        options.merchantRefKey,
        'orderId',
      ),
      livemode: resolveLivemode(endpointName, options.livemode, options.api?.apiKey),
    };
    return {
      kind: KIND,
      acknowledgement: plainTextAcknowledgement(),
      verify: (request) => scheme.verify(request, secrets),
      normalize: (request) => normalizeStripe(request, reading),
    };
  },
  extras: (options) => ({
    statusClient: options.api && new StripeStatusClient(options.api),
    eventLog:
      options.api &&
      new StripeEventLog(options.api, resolvePayloadStyle(options.name, options.payloadStyle)),
    snapshotEndpoint: resolveSnapshotEndpoint(options.name, options.snapshotEndpoint),
  }),
  cli: {
    secret: 'the endpoint signing secret (whsec_…)',
    timestamp: 'the signed time t= (Unix seconds; default now)',
    payload: 'the event, signed byte for byte',
    flags: [],
  },
  sample: {
    secret: 'whsec_sample0000000000000000000000000000',
    body:
      '{"id":"evt_1sample","object":"event","type":"payment_intent.succeeded",' +
      '"created":1767225600,"livemode":false,"data":{"object":{"id":"pi_1sample",' +
      '"object":"payment_intent","amount":1099,"currency":"usd","status":"succeeded",' +
      '"metadata":{"orderId":"o-1"}}}}',
  },
});

/**
 * A Stripe webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET! })
 */
export function stripeEndpoint(options: StripeEndpointOptions): WebhookEndpoint {
  return stripeProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
stripeEndpoint.kind = KIND;
