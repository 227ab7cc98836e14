import { WebhookConfigurationError } from '../../core/webhook-errors';
import { assertBodySignature, BodySignatureHeader } from '../body-signature';
import { defineEndpoint, plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
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
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { entityOf, mapRazorpayEvent, razorpayEventKey, subjectOf } from './razorpay-event';
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
const API_KEY_ID = /^rzp_(live|test)_/;

/** Options of the Razorpay protocol, shared by `razorpayEndpoint()` and `RazorpayWebhookProvider`. */
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

/**
 * Razorpay webhooks: `X-Razorpay-Signature` is hex HMAC-SHA256 of the raw body keyed by the
 * webhook secret. There is no signed delivery timestamp, but the signed body's `created_at`
 * bounds a replay. The dedup key is made from signed fields (see `razorpayEventKey`).
 */
export class RazorpayWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Razorpay accepts any 2xx within 5 seconds; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  private readonly secrets: readonly string[];
  private readonly merchantRefKey: string;

  /**
   * @param options the Razorpay options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or `merchantRefKey` cannot work.
   */
  constructor(options: RazorpayProviderOptions, endpointName = KIND) {
    this.secrets = resolveSecrets(endpointName, options?.secret);
    this.merchantRefKey = resolveNonEmptyString(
      endpointName,
      KIND,
      'merchantRefKey',
      options.merchantRefKey,
      'orderId',
    );
  }

  /**
   * Checks X-Razorpay-Signature against the raw body.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    assertBodySignature(request, RAZORPAY_SIGNATURE, this.secrets);
  }

  /**
   * Parses a Razorpay event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Razorpay event body');
    const event = checkEnvelope(RAZORPAY_EVENT, body, 'Razorpay event');
    const subject = subjectOf(event.event, event.payload);
    const payment = entityOf(event.payload, 'payment');
    const order = entityOf(event.payload, 'order');
    // NOTE: an order's amount is what was asked; the payment's is what was paid.
    const money = subject?.name === 'order' ? (payment ?? subject.entity) : subject?.entity;

    return {
      eventId: razorpayEventKey(event.event, event.created_at, subject, request.rawBody),
      type: mapRazorpayEvent(event.event) ?? `${KIND}:${event.event}`,
      nativeType: event.event,
      paymentRef:
        subject?.name === 'payment'
          ? readString(subject.entity, 'id')
          : (readString(payment, 'id') ?? readString(subject?.entity, 'payment_id')),
      merchantRef:
        readString(order, 'receipt') ??
        this.noteOf(payment) ??
        this.noteOf(order) ??
        this.noteOf(subject?.entity),
      amount: readInteger(money, 'amount'),
      currency: toCurrency(money?.currency),
      status: readString(subject?.entity, 'status'),
      occurredAt: fromUnixSeconds(event.created_at),
      // NOTE: Razorpay signs the whole body, created_at included, but no delivery timestamp.
      occurredAtSigned: true,
      payload: body,
    };
  }

  /** The order id in an entity's `notes` (an object, or `[]` when it has none). */
  private noteOf(entity: JsonObject | undefined): string | undefined {
    return readString(readObject(entity, 'notes'), this.merchantRefKey);
  }
}

/**
 * A Razorpay webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or the API options cannot work.
 * @example
 * razorpayEndpoint({ name: 'razorpay', secret: process.env.RAZORPAY_WEBHOOK_SECRET! })
 */
export function razorpayEndpoint(options: RazorpayEndpointOptions): WebhookEndpoint {
  const provider = new RazorpayWebhookProvider(options, options?.name);
  return defineEndpoint(options, provider, {
    statusClient: options.api && new RazorpayStatusClient(options.api),
  });
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
razorpayEndpoint.kind = 'razorpay';
