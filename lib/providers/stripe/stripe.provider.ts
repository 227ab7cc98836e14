import { StripeStatusClient, StripeStatusClientOptions } from './stripe-status.client';
import { PaymentEventType } from '../../core/payment-event-types';
import { isEventNotification, normalizeEventNotification } from './stripe-event-notification';
import { REFUND_STATUS_EVENTS, mapSnapshotType } from './stripe-event-types';
import { LivemodePolicy, livemodeSkipReason, resolveLivemode } from './stripe-livemode';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { defineEndpoint, plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
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
import { resolveNonEmptyString, resolveTolerance } from '../provider-options';
import { stripeSecretFormatMessage } from '../providers.messages';
import { TimestampedSignatureHeader, verifyTimestampedSignature } from '../signature-header';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
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

/** Options of the Stripe protocol, shared by `stripeEndpoint()` and `StripeWebhookProvider`. */
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

/**
 * Stripe webhooks: `Stripe-Signature: t=…,v1=…` is HMAC-SHA256 (hex) of `${t}.${rawBody}` keyed by
 * the whole `whsec_…` string; only `v1` counts. Event ids (`evt_…`) are stable across retries and
 * are the dedup key, but for a refund's outcome in a snapshot event, keyed
 * `${refund.id}:${refund.status}`. Snapshot events and event notifications are both read.
 */
export class StripeWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Stripe accepts any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  private readonly secrets: readonly string[];
  private readonly tolerance: number;
  private readonly merchantRefKey: string;
  private readonly livemode: LivemodePolicy;

  /**
   * @param options the Stripe options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(
    options: StripeProviderOptions & Pick<StripeEndpointOptions, 'api'>,
    endpointName = KIND,
  ) {
    const secrets = requireSecrets(endpointName, KIND, 'secret', options?.secret);
    secrets.forEach((secret, index) => {
      if (
        !secret.startsWith(SECRET_PREFIX) ||
        secret.length === SECRET_PREFIX.length ||
        /\s/.test(secret)
      ) {
        throw new WebhookConfigurationError(
          stripeSecretFormatMessage(endpointName, index, secrets.length, secret),
        );
      }
    });
    this.secrets = secrets;
    this.tolerance = resolveTolerance(endpointName, KIND, options, 'stripeEndpoint()');
    this.merchantRefKey = resolveNonEmptyString(
      endpointName,
      KIND,
      'merchantRefKey',
      options.merchantRefKey,
      'orderId',
    );
    this.livemode = resolveLivemode(endpointName, options.livemode, options.api?.apiKey);
  }

  /**
   * Checks the Stripe-Signature header against the raw body, then the timestamp window.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    verifyTimestampedSignature(request, SIGNATURE_HEADER, this.secrets, this.tolerance);
  }

  /**
   * Parses a Stripe event, a snapshot event or an event notification (a thin event, `object:
   * 'v2.core.event'`), and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Stripe event body');
    // NOTE: a destination sends one shape, and either may be pointed at any endpoint: both are
    // read, so a signed delivery is never refused for its shape (Stripe would disable it).
    const notification = isEventNotification(body)
      ? normalizeEventNotification(body)
      : this.normalizeSnapshot(body);
    const skip = livemodeSkipReason(this.livemode, body.livemode, notification.account);
    return skip === undefined ? notification : { ...notification, skip };
  }

  private normalizeSnapshot(body: JsonObject): NormalizedNotification {
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
      readString(readObject(object, 'metadata'), this.merchantRefKey) ??
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
    };
  }
}

/**
 * A Stripe webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET! })
 */
export function stripeEndpoint(options: StripeEndpointOptions): WebhookEndpoint {
  const provider = new StripeWebhookProvider(options, options?.name);
  return defineEndpoint(options, provider, {
    statusClient: options.api && new StripeStatusClient(options.api),
  });
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
stripeEndpoint.kind = 'stripe';
