import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { bodyHmacSignature, BodySignatureHeader } from '../body-signature';
import { assertAcknowledgedWith200, plainTextAcknowledgement } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { identifier, jsonObject, nonEmptyString, optional } from '../envelope-rules';
import {
  isJsonObject,
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
  toIdentifier,
} from '../parse-payload';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';

const KIND = 'lemon-squeezy';
const LEMON_SQUEEZY_SIGNATURE: BodySignatureHeader = {
  name: 'X-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits (HMAC-SHA256)',
  mismatch: "X-Signature does not match the payload and the webhook's signing secret",
};
const DEFAULT_MERCHANT_REF_KEY = 'order_id';

/** Options of the Lemon Squeezy protocol, shared by `lemonSqueezyEndpoint()` and the provider. */
export interface LemonSqueezyProviderOptions {
  /**
   * The webhook's signing secret, the one you typed when creating it (Lemon Squeezy dashboard →
   * Settings → Webhooks → your webhook → Signing secret), used verbatim. Pass a list while
   * replacing it: a delivery is accepted when any secret matches. Required.
   */
  signingSecret: string | readonly string[];
  /**
   * The key of `meta.custom_data` that holds your order id: pass it at checkout as
   * `checkout_data[custom][order_id]` and handlers see it as `merchantRef`.
   * @default 'order_id'
   */
  merchantRefKey?: string;
}

/** Options of `lemonSqueezyEndpoint()`. */
export interface LemonSqueezyEndpointOptions
  extends BaseEndpointOptions, LemonSqueezyProviderOptions {}

const LEMON_SQUEEZY_EVENT = defineEnvelope({ meta: jsonObject(), data: jsonObject() });

const LEMON_SQUEEZY_META = defineEnvelope({
  event_name: nonEmptyString(),
  custom_data: optional(jsonObject()),
});

const LEMON_SQUEEZY_RESOURCE = defineEnvelope({
  type: nonEmptyString(),
  id: identifier(),
  attributes: optional(jsonObject()),
});

/** The events with a normalized type whatever the object's status. */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  order_refunded: 'refund.succeeded',
  subscription_payment_success: 'payment.succeeded',
  subscription_payment_failed: 'payment.failed',
  subscription_payment_refunded: 'refund.succeeded',
};

// NOTE: the JSON:API types whose id is a payment: an order, or a subscription's invoice.
const PAYMENT_RESOURCES = new Set(['orders', 'subscription-invoices']);

function mapLemonSqueezyType(
  eventName: string,
  status: string | undefined,
): PaymentEventType | undefined {
  if (eventName === 'order_created') {
    return status === 'paid' ? 'payment.succeeded' : undefined;
  }
  return ownValue(EVENT_TYPES, eventName);
}

/**
 * The dedup key of a Lemon Squeezy event, which carries no id: the event name and the object it
 * is about (`data.type`, `data.id`), then the object's `status`, `refunded_amount` and
 * `updated_at` where it has them. Every part is in the signed body, so a retry (the same
 * request sent again) gets the same key, while two partial refunds of one order differ in
 * `refunded_amount` and two changes of one subscription in `updated_at`.
 * @example
 * lemonSqueezyEventKey('order_refunded', 'orders', '1', { status: 'paid', refunded_amount: 500 })
 * // 'order_refunded:orders:1:paid:500'
 */
function lemonSqueezyEventKey(
  eventName: string,
  resourceType: string,
  resourceId: string,
  attributes: JsonObject | undefined,
): string {
  const parts = [eventName, resourceType, resourceId];
  const status = readString(attributes, 'status');
  const refunded = readInteger(attributes, 'refunded_amount');
  const updatedAt = readString(attributes, 'updated_at');
  if (status !== undefined) parts.push(status);
  if (refunded !== undefined) parts.push(String(refunded));
  if (updatedAt !== undefined) parts.push(updatedAt);
  return parts.join(':');
}

function endpointLabel(name: unknown): string {
  return `Webhook endpoint ${JSON.stringify(name)} (${KIND})`;
}

function resolveMerchantRefKey(name: unknown, value: unknown): string {
  if (value === undefined) return DEFAULT_MERCHANT_REF_KEY;
  if (typeof value !== 'string' || value.length === 0 || value.trim() !== value) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name)} has no usable merchantRefKey: set it to the key of the checkout's ` +
        'custom data that holds your order id (checkout_data[custom][<key>]), e.g. "order_id", ' +
        'or leave it unset for "order_id".',
    );
  }
  return value;
}

/** `meta.event_name`, when the body is a Lemon Squeezy event. */
function eventNameOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const meta = isJsonObject(parsed) ? parsed.meta : undefined;
  return isJsonObject(meta) && typeof meta.event_name === 'string' ? meta.event_name : undefined;
}

const BODY_SIGNATURE = bodyHmacSignature(LEMON_SQUEEZY_SIGNATURE);

/** `X-Signature` over the body; a signer also repeats `meta.event_name` in `X-Event-Name`. */
const LEMON_SQUEEZY_SCHEME: SignatureScheme = {
  verify: BODY_SIGNATURE.verify,
  sign(body, secret) {
    const eventName = eventNameOf(body);
    return {
      ...(eventName === undefined ? {} : { 'x-event-name': eventName }),
      ...BODY_SIGNATURE.sign(body, secret),
    };
  },
};

/**
 * Lemon Squeezy webhooks: `X-Signature` is the hex HMAC-SHA256 of the raw body keyed by the
 * webhook's signing secret. The event name is read from the signed body (`meta.event_name`),
 * never from the unsigned `X-Event-Name` header. Lemon Squeezy sends no event id, so the dedup
 * key is built from the signed object (see `lemonSqueezyEventKey`).
 */
class LemonSqueezyWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Lemon Squeezy counts only a 200 as delivered; it reads no body. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  /**
   * @param secrets the endpoint's signing secrets, checked by the definition.
   * @param merchantRefKey the key of `meta.custom_data` that holds the order id.
   */
  constructor(
    private readonly secrets: readonly string[],
    private readonly merchantRefKey: string,
  ) {}

  /**
   * Checks `X-Signature` against the raw body.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    LEMON_SQUEEZY_SCHEME.verify(request, this.secrets);
  }

  /**
   * Parses a Lemon Squeezy event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Lemon Squeezy event body');
    const event = checkEnvelope(LEMON_SQUEEZY_EVENT, body, 'Lemon Squeezy event');
    const meta = checkEnvelope(LEMON_SQUEEZY_META, event.meta, 'Lemon Squeezy event meta');
    const resource = checkEnvelope(LEMON_SQUEEZY_RESOURCE, event.data, 'Lemon Squeezy event data');
    const attributes = resource.attributes ?? undefined;
    const eventName = meta.event_name;
    const resourceId = toIdentifier(resource.id) as string;
    const status = readString(attributes, 'status');
    const refund = ownValue(EVENT_TYPES, eventName) === 'refund.succeeded';
    const occurredAt = parseIsoDate(attributes?.updated_at) ?? parseIsoDate(attributes?.created_at);

    return {
      eventId: lemonSqueezyEventKey(eventName, resource.type, resourceId, attributes),
      type: mapLemonSqueezyType(eventName, status) ?? `${KIND}:${eventName}`,
      nativeType: eventName,
      paymentRef: PAYMENT_RESOURCES.has(resource.type) ? resourceId : undefined,
      merchantRef: toIdentifier(readObject(meta, 'custom_data')?.[this.merchantRefKey]),
      // NOTE: a refund event carries the order's refunded amount so far, not one refund's own.
      amount: readInteger(attributes, refund ? 'refunded_amount' : 'total'),
      currency: toCurrency(attributes?.currency),
      status,
      occurredAt,
      // NOTE: the whole body is signed, updated_at included, and no delivery timestamp is.
      occurredAtSigned: occurredAt !== undefined,
      payload: body,
    };
  }
}

/**
 * Lemon Squeezy as a definition. Its provider keeps a class of its own, built by `create`: it
 * reads the order id under the endpoint's `merchantRefKey`, and maps `order_created` by status.
 */
export const lemonSqueezyProvider = defineProvider<LemonSqueezyEndpointOptions>({
  kind: KIND,
  name: 'Lemon Squeezy',
  aliases: ['lemonsqueezy'],
  retryHorizon: {
    days: 1,
    documented:
      'retried up to three more times with exponential backoff (e.g. 5 s, 25 s, 125 s), then given up',
  },
  secrets: {
    option: 'signingSecret',
    howToCopy: "Copy the webhook's signing secret from Settings → Webhooks",
  },
  signature: LEMON_SQUEEZY_SCHEME,
  types: EVENT_TYPES,
  checkOptions(options, endpointName) {
    resolveMerchantRefKey(endpointName, options.merchantRefKey);
    assertAcknowledgedWith200(
      options,
      (status) =>
        `${endpointLabel(options.name)}: acknowledgement.status ${status} would make Lemon Squeezy ` +
        'retry every delivery; it counts only 200 as delivered. Leave acknowledgement.status unset.',
    );
  },
  create: (options, endpointName, secrets) =>
    new LemonSqueezyWebhookProvider(
      secrets,
      resolveMerchantRefKey(endpointName, options.merchantRefKey),
    ),
  cli: {
    secret: "the webhook's signing secret",
    payload: 'the event (meta and data), signed byte for byte',
    flags: [],
  },
  sample: {
    secret: 'lemon-squeezy-sample-secret',
    body: '{"meta":{"event_name":"subscription_payment_success"},"data":{"type":"subscription-invoices","id":"1","attributes":{"status":"paid","total":999,"currency":"USD"}}}',
  },
});

/**
 * A Lemon Squeezy webhook endpoint.
 * @throws WebhookConfigurationError at startup when the signing secret or `merchantRefKey`
 * cannot work, or `acknowledgement.status` is not 200.
 * @example
 * lemonSqueezyEndpoint({
 *   name: 'lemon-squeezy',
 *   signingSecret: process.env.LEMON_SQUEEZY_SIGNING_SECRET!,
 * })
 */
export function lemonSqueezyEndpoint(options: LemonSqueezyEndpointOptions): WebhookEndpoint {
  return lemonSqueezyProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
lemonSqueezyEndpoint.kind = KIND;
