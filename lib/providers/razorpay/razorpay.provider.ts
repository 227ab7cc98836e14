import { ownValue } from '../../core/own-value';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { bodyHmacSignature, BodySignatureHeader } from '../body-signature';
import { plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { integer, jsonObject, nonEmptyString } from '../envelope-rules';
import {
  JsonObject,
  fromUnixSeconds,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import { resolveNonEmptyString } from '../provider-options';
import { SignedDelivery } from '../signed-delivery';
import { requireSecret } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../webhook-provider.interface';
import { entityOf, RAZORPAY_EVENT_TYPES, razorpayEventKey, subjectOf } from './razorpay-event';
import { razorpaySecretIsKeyIdMessage, razorpaySecretPaddedMessage } from './razorpay.messages';
import { RazorpayStatusClient, RazorpayStatusClientOptions } from './razorpay-status.client';

const KIND = 'razorpay';
const RAZORPAY_SIGNATURE: BodySignatureHeader = {
  name: 'X-Razorpay-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  lowerCaseOnly: true,
  shape: '64 lower-case hex digits',
  mismatch:
    'X-Razorpay-Signature does not match the payload and the webhook secret (it is the ' +
    "webhook's own secret, not the API Key Secret; after a change, list the old one too)",
};
/** The one definition of the header the endpoint verifies and the signer writes. */
export const RAZORPAY_SIGNATURE_SCHEME = bodyHmacSignature(RAZORPAY_SIGNATURE);
const API_KEY_ID = /^rzp_(live|test)_/;

/** Options of the Razorpay protocol, shared by `razorpayEndpoint()` and the provider. */
export interface RazorpayProviderOptions {
  /**
   * The webhook's secret: the one you typed when creating the webhook (Razorpay Dashboard →
   * Account & Settings → Webhooks), used verbatim. It is not the API Key Secret. Pass a list
   * after changing it: Razorpay keeps signing the retries of older events with the old secret,
   * and a delivery is accepted when any secret matches. Required.
   */
  secret: string | readonly string[];
  /**
   * Key of the payment's `notes` (set by your app when creating the order or payment) that
   * holds your order id; it becomes `merchantRef` where the event carries no order `receipt`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/** Options of `razorpayEndpoint()`. */
export interface RazorpayEndpointOptions extends BaseEndpointOptions, RazorpayProviderOptions {
  /**
   * Razorpay API access for "ask the provider" (`verifyWithProvider`, `ctx.fetchStatus()`,
   * reconciliation): an API key pair of the same mode (test or live) as the webhooks.
   * @example api: { keyId: process.env.RAZORPAY_KEY_ID!, keySecret: process.env.RAZORPAY_KEY_SECRET! }
   */
  api?: RazorpayStatusClientOptions;
}

const RAZORPAY_EVENT = defineEnvelope({
  event: nonEmptyString(),
  payload: jsonObject(),
  created_at: integer(),
});

/** A webhook secret list, every entry checked, or a startup error naming the entry. */
function resolveSecrets(name: string, value: RazorpayProviderOptions['secret']): string[] {
  const secrets = requireSecrets(name, KIND, 'secret', value);
  secrets.forEach((secret, index) => {
    if (secret.trim() !== secret) {
      throw new WebhookConfigurationError(razorpaySecretPaddedMessage(name, index, secrets.length));
    }
    if (API_KEY_ID.test(secret)) {
      throw new WebhookConfigurationError(
        razorpaySecretIsKeyIdMessage(name, index, secrets.length),
      );
    }
  });
  return secrets;
}

/** The order id in an entity's `notes` (an object, or `[]` when it has none). */
function noteOf(entity: JsonObject | undefined, merchantRefKey: string): string | undefined {
  return readString(readObject(entity, 'notes'), merchantRefKey);
}

/** Reads a Razorpay event, with the order id under `merchantRefKey` of the `notes`. */
function normalizeRazorpay(
  request: InboundWebhook,
  merchantRefKey: string,
): NormalizedNotification {
  const body = parseJsonObject(request.rawBody, 'Razorpay event body');
  const event = checkEnvelope(RAZORPAY_EVENT, body, 'Razorpay event');
  const subject = subjectOf(event.event, event.payload);
  const payment = entityOf(event.payload, 'payment');
  const order = entityOf(event.payload, 'order');
  // NOTE: an order's amount is what was asked; the payment's is what was paid.
  const money = subject?.name === 'order' ? (payment ?? subject.entity) : subject?.entity;

  return {
    eventId: razorpayEventKey(event.event, event.created_at, subject, request.rawBody),
    type: ownValue(RAZORPAY_EVENT_TYPES, event.event) ?? `${KIND}:${event.event}`,
    nativeType: event.event,
    paymentRef:
      subject?.name === 'payment'
        ? readString(subject.entity, 'id')
        : (readString(payment, 'id') ?? readString(subject?.entity, 'payment_id')),
    merchantRef:
      readString(order, 'receipt') ??
      noteOf(payment, merchantRefKey) ??
      noteOf(order, merchantRefKey) ??
      noteOf(subject?.entity, merchantRefKey),
    amount: readInteger(money, 'amount'),
    currency: toCurrency(money?.currency),
    status: readString(subject?.entity, 'status'),
    occurredAt: fromUnixSeconds(event.created_at),
    // NOTE: Razorpay signs the whole body, created_at included, but no delivery timestamp.
    occurredAtSigned: true,
    payload: body,
  };
}

/**
 * Razorpay webhooks: `X-Razorpay-Signature` is hex HMAC-SHA256 of the raw body keyed by the
 * webhook secret. There is no signed delivery timestamp, but the signed body's `created_at`
 * bounds a replay. The dedup key is made from signed fields (see `razorpayEventKey`). Razorpay
 * accepts any 2xx within 5 seconds; an empty 200 is the plainest.
 */
export const razorpayProvider = defineProvider<RazorpayEndpointOptions>({
  kind: KIND,
  name: 'Razorpay',
  retryHorizon: {
    days: 1,
    documented:
      'retries with exponential backoff for 24 hours after the event was created, then disables ' +
      'the webhook (a replay on request covers events up to 15 days old)',
  },
  signature: RAZORPAY_SIGNATURE_SCHEME,
  types: RAZORPAY_EVENT_TYPES,
  // NOTE: the secrets are checked here, not as the definition's secrets: a merchant types the
  // secret, so a space inside it is kept and only one around it is refused. The order id's key
  // is an option, so the provider is built with the options it reads.
  create(options, endpointName) {
    const secrets = resolveSecrets(endpointName, options?.secret);
    const merchantRefKey = resolveNonEmptyString(
      endpointName,
      KIND,
      'merchantRefKey',
      options.merchantRefKey,
      'orderId',
    );
    return {
      kind: KIND,
      acknowledgement: plainTextAcknowledgement(),
      verify: (request) => RAZORPAY_SIGNATURE_SCHEME.verify(request, secrets),
      normalize: (request) => normalizeRazorpay(request, merchantRefKey),
    };
  },
  extras: (options) => ({ statusClient: options.api && new RazorpayStatusClient(options.api) }),
  cli: {
    secret: "the webhook's secret",
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'event-id',
        value: '<id>',
        help: 'x-razorpay-event-id, sent unsigned and not read by the endpoint (default: none)',
      },
    ],
    sign: (input) =>
      razorpayDelivery(input.text, requireSecret(KIND, input), input.options['event-id']),
  },
  sample: {
    secret: 'sample-webhook-secret',
    body:
      '{"entity":"event","event":"payment.captured","contains":["payment"],"payload":' +
      '{"payment":{"entity":{"id":"pay_sample","amount":1999,"currency":"INR",' +
      '"status":"captured","notes":{"orderId":"o-1"}}}},"created_at":1767225600}',
    // NOTE: without a definition of the secrets, the endpoint takes the sample's as an option.
    options: { secret: 'sample-webhook-secret' },
    flags: { 'event-id': 'evt_sample' },
  },
});

/**
 * A delivery of `body` signed with `secret` as Razorpay signs it, with the ids the endpoint
 * stores it under, and `x-razorpay-event-id` (sent unsigned, read by no endpoint) when given.
 */
export function razorpayDelivery(body: string, secret: string, eventId?: string): SignedDelivery {
  const delivery = razorpayProvider.signed(body, secret, undefined, { secret });
  if (eventId === undefined) return delivery;
  return { ...delivery, headers: { ...delivery.headers, 'x-razorpay-event-id': eventId } };
}

/**
 * A Razorpay webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or the API options cannot work.
 * @example
 * razorpayEndpoint({ name: 'razorpay', secret: process.env.RAZORPAY_WEBHOOK_SECRET! })
 */
export function razorpayEndpoint(options: RazorpayEndpointOptions): WebhookEndpoint {
  return razorpayProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
razorpayEndpoint.kind = KIND;
