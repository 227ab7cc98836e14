import { OptionRename, renamedOption } from '../../core/deprecated-options';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { bodyHmacSignature, BodySignatureHeader } from '../body-signature';
import { defineProvider } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyArray, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  readString,
} from '../parse-payload';
import { resolveNonEmptyString } from '../provider-options';
import { endpointLabel } from '../providers.messages';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { GoCardlessApiOptions, GoCardlessEventLog } from './gocardless-event-log';

const KIND = 'gocardless';
const GOCARDLESS_SIGNATURE: BodySignatureHeader = {
  name: 'Webhook-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits (HMAC-SHA256)',
  mismatch: "Webhook-Signature does not match the payload and the webhook endpoint's secret",
};
const GOCARDLESS_SCHEME = bodyHmacSignature(GOCARDLESS_SIGNATURE);
/** GoCardless's status for a webhook whose signature does not match: "498 Token Invalid". */
const TOKEN_INVALID = 498;
const GOCARDLESS_WEBHOOK_SECRET: OptionRename = {
  from: 'webhookSecret',
  to: 'secret',
  where: 'goCardlessEndpoint()',
  unit: 'a secret or a list of them, as before',
  code: 'NPW_DEP_GOCARDLESS_WEBHOOK_SECRET',
};

/** Options of the GoCardless protocol, shared by `goCardlessEndpoint()` and the provider. */
export interface GoCardlessProviderOptions {
  /**
   * The webhook endpoint's secret (Dashboard → Developers → Webhook endpoints → your endpoint →
   * Secret), used verbatim as the HMAC key. Pass a list while replacing a secret: a delivery is
   * accepted when any secret matches. Required.
   */
  secret?: string | readonly string[];
  /**
   * The webhook endpoint's secret, under its name before 1.0.
   * @deprecated use `secret` (the same value or list); read until 2.0.
   */
  webhookSecret?: string | readonly string[];
  /**
   * Key of the resource's metadata (`resource_metadata`, the payment's `metadata` as your
   * integration set it when creating the payment) that holds your order id; it becomes
   * `merchantRef`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/** Options of `goCardlessEndpoint()`. */
export interface GoCardlessEndpointOptions extends BaseEndpointOptions, GoCardlessProviderOptions {
  /**
   * GoCardless API access: an access token (read-only is enough). The endpoint then reads
   * GoCardless's events to recover events whose webhooks never arrived.
   * @example api: { accessToken: process.env.GOCARDLESS_ACCESS_TOKEN! }
   */
  api?: GoCardlessApiOptions;
}

const GOCARDLESS_WEBHOOK = defineEnvelope({
  events: nonEmptyArray(),
  meta: optional(jsonObject()),
});

const GOCARDLESS_EVENT = defineEnvelope({
  id: nonEmptyString(),
  created_at: optional(string()),
  resource_type: nonEmptyString(),
  action: nonEmptyString(),
  links: optional(jsonObject()),
  details: optional(jsonObject()),
  metadata: optional(jsonObject()),
  resource_metadata: optional(jsonObject()),
});

/** Normalized types by `<resource_type>.<action>`. */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  // NOTE: "confirmed" is when the banks can no longer return an error for the collection: the
  // money is collected. "paid_out" (GoCardless passing it on to the merchant) comes days later
  // and stays native, so a handler sees one payment.succeeded per payment.
  'payments.confirmed': 'payment.succeeded',
  // NOTE: a late failure (after "confirmed") also comes as "failed", with its own event id.
  'payments.failed': 'payment.failed',
  'payments.cancelled': 'payment.canceled',
  'payments.charged_back': 'dispute.opened',
  'payments.chargeback_cancelled': 'dispute.closed',
  'refunds.paid': 'refund.succeeded',
  'refunds.failed': 'refund.failed',
  'refunds.bounced': 'refund.failed',
};

/** Reads every event of a webhook, or refuses the whole webhook for one bad event. */
function readEvents(rawBody: Buffer): { events: JsonObject[]; meta: JsonObject | undefined } {
  const body = parseJsonObject(rawBody, 'GoCardless webhook body');
  const webhook = checkEnvelope(GOCARDLESS_WEBHOOK, body, 'GoCardless webhook');
  const events = webhook.events.map((event, index) =>
    checkEnvelope(GOCARDLESS_EVENT, event, `GoCardless event ${index}`),
  );
  return { events, meta: webhook.meta ?? undefined };
}

/**
 * GoCardless webhooks: `Webhook-Signature` is the hex HMAC-SHA256 of the raw body keyed by the
 * webhook endpoint's secret. One request carries up to 250 events (`{"events":[…]}`), each with
 * its own id (`EV…`), the dedup key; one malformed event refuses the whole request, so nothing
 * of it is stored and GoCardless sends it again. A wrong signature is answered 498, as
 * GoCardless documents. Events carry links, not amounts.
 */
class GoCardlessWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** GoCardless counts any 2xx within 10 s; its docs answer 204 No Content. */
  readonly acknowledgement: WebhookAcknowledgement = Object.freeze({
    status: 204,
    body: '',
    contentType: 'text/plain; charset=utf-8',
  });
  /** GoCardless documents "498 Token Invalid" for a webhook whose signature does not match. */
  readonly signatureRefusalStatus = TOKEN_INVALID;

  /**
   * @param secrets the endpoint's secrets, checked by the definition.
   * @param merchantRefKey the metadata key of the order id.
   */
  constructor(
    private readonly secrets: readonly string[],
    private readonly merchantRefKey: string,
  ) {}

  /**
   * Checks `Webhook-Signature` against the raw body, in constant time.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    GOCARDLESS_SCHEME.verify(request, this.secrets);
  }

  /**
   * One notification per event, each stored as the one-event webhook GoCardless would have
   * sent for it alone (`storedBody`), which this method accepts back unchanged.
   * @throws WebhookPayloadError when the body or any event is malformed.
   */
  normalize(request: InboundWebhook): NormalizedNotification[] {
    const { events, meta } = readEvents(request.rawBody);
    return events.map((event) => {
      const payload: JsonObject = { events: [event], ...(meta === undefined ? {} : { meta }) };
      const resourceType = event.resource_type as string;
      const action = event.action as string;
      const nativeType = `${resourceType}.${action}`;
      return {
        eventId: event.id as string,
        type: ownValue(EVENT_TYPES, nativeType) ?? `${KIND}:${nativeType}`,
        nativeType,
        paymentRef: readString(readObject(event, 'links'), 'payment'),
        merchantRef: readString(readObject(event, 'resource_metadata'), this.merchantRefKey),
        // NOTE: GoCardless events name the resource, never its amount or currency.
        amount: undefined,
        currency: undefined,
        status: action,
        occurredAt: parseIsoDate(event.created_at),
        // NOTE: the signature covers the whole body, created_at included; no delivery time is signed.
        occurredAtSigned: true,
        payload,
        storedBody: JSON.stringify(payload),
      };
    });
  }
}

/**
 * GoCardless as a definition. Its provider keeps a class of its own, built by `create`: it reads
 * each event's order id under the endpoint's `merchantRefKey`.
 */
export const goCardlessProvider = defineProvider<
  GoCardlessProviderOptions & Pick<GoCardlessEndpointOptions, 'api'>
>({
  kind: KIND,
  name: 'GoCardless',
  retryHorizon: {
    // NOTE: GoCardless gives the count and the first intervals, not the span; the package's
    // shortest dedup window (7 days) covers any schedule that starts at 1, 2 and 10 minutes.
    days: 7,
    documented:
      'up to 8 retries at increasing intervals (1 min, 2 min, 10 min, …); the span is not documented',
  },
  secrets: {
    option: 'secret',
    howToCopy:
      'Copy the secret from the GoCardless Dashboard → Developers → Webhook endpoints → your endpoint',
  },
  signature: GOCARDLESS_SCHEME,
  types: EVENT_TYPES,
  extras: (options) => ({ eventLog: options.api && new GoCardlessEventLog(options.api) }),
  create: (options, endpointName, secrets) =>
    new GoCardlessWebhookProvider(
      secrets,
      resolveNonEmptyString(
        endpointName,
        KIND,
        'merchantRefKey',
        options.merchantRefKey,
        'orderId',
      ),
    ),
  cli: {
    secret: "the webhook endpoint's secret",
    payload: 'the webhook body {"events":[…]}, signed byte for byte',
    flags: [],
  },
  sample: {
    secret: 'gc-sample-secret',
    body: '{"events":[{"id":"EV0000000001","resource_type":"payments","action":"confirmed","links":{"payment":"PM0000000001"}}]}',
  },
});

/**
 * A GoCardless webhook endpoint (Dashboard → Developers → Webhook endpoints).
 * @throws WebhookConfigurationError at startup when an option cannot work.
 * @example
 * goCardlessEndpoint({ name: 'gocardless', secret: process.env.GOCARDLESS_WEBHOOK_SECRET! })
 */
export function goCardlessEndpoint(options: GoCardlessEndpointOptions): WebhookEndpoint {
  const secret = renamedOption(
    options?.secret,
    options?.webhookSecret,
    GOCARDLESS_WEBHOOK_SECRET,
    endpointLabel(options?.name ?? KIND, KIND),
  );
  return goCardlessProvider.endpoint({ ...options, secret });
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
goCardlessEndpoint.kind = KIND;
