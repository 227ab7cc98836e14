import { constantTimeIncludes } from '../../core/constant-time';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { assertBodySignature, BodySignatureHeader } from '../body-signature';
import {
  assertNoWhitespaceInSecrets,
  defineEndpoint,
  plainTextAcknowledgement,
  requireSecrets,
} from '../define-endpoint';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readString,
  toCurrency,
} from '../parse-payload';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { checkoutComMinorUnits } from './checkout-com-amounts';

const KIND = 'checkout-com';
const AUTHORIZATION_HEADER = 'authorization';
const CKO_SIGNATURE: BodySignatureHeader = {
  name: 'Cko-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits (HMAC-SHA256)',
  mismatch: "Cko-Signature does not match the payload and the webhook's signature key",
};

/** Options of the Checkout.com protocol, shared by `checkoutComEndpoint()` and the provider. */
export interface CheckoutComProviderOptions {
  /**
   * The webhook's signature key (Dashboard → Developers → Webhooks → your configuration →
   * Signature key; or the `signature.key` of the workflow's webhook action), used verbatim.
   * Checkout.com signs the body with it in `Cko-Signature`. Pass a list while replacing it: a
   * delivery is accepted when any key matches. Required.
   */
  signatureKey: string | readonly string[];
  /**
   * The Authorization header key configured on the same webhook, which Checkout.com sends as
   * the `Authorization` header of every delivery. When set, a delivery without it or with
   * another value is refused. A list while replacing it.
   * @default none: the Authorization header is not checked
   */
  authorization?: string | readonly string[];
}

/** Options of `checkoutComEndpoint()`. */
export interface CheckoutComEndpointOptions
  extends BaseEndpointOptions, CheckoutComProviderOptions {}

// NOTE: issuing events carry `event_data` instead of `data`, so `data` may be absent.
const CHECKOUT_COM_EVENT = defineEnvelope({
  id: nonEmptyString(),
  type: nonEmptyString(),
  created_on: optional(string()),
  timestamp: optional(string()),
  data: optional(jsonObject()),
});

const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  payment_approved: 'payment.authorized',
  payment_captured: 'payment.succeeded',
  payment_paid: 'payment.succeeded',
  payment_declined: 'payment.failed',
  payment_capture_declined: 'payment.failed',
  payment_voided: 'payment.canceled',
  payment_canceled: 'payment.canceled',
  payment_refunded: 'refund.succeeded',
  payment_refund_declined: 'refund.failed',
  dispute_received: 'dispute.opened',
  dispute_evidence_required: 'dispute.opened',
  dispute_won: 'dispute.closed',
  dispute_lost: 'dispute.closed',
  dispute_resolved: 'dispute.closed',
  dispute_accepted: 'dispute.closed',
  dispute_canceled: 'dispute.closed',
  dispute_expired: 'dispute.closed',
  dispute_arbitration_won: 'dispute.closed',
  dispute_arbitration_lost: 'dispute.closed',
};

function endpointLabel(name: unknown): string {
  return `Webhook endpoint ${JSON.stringify(name)} (${KIND})`;
}

/** The configured Authorization values, none when the option is unset, or a startup error. */
function resolveAuthorization(name: unknown, value: unknown): readonly string[] {
  if (value === undefined) return [];
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  if (list.length === 0 || list.some((entry) => typeof entry !== 'string' || entry.trim() === '')) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name)} has no usable authorization: set it to the Authorization header ` +
        'key configured on the Checkout.com webhook (Dashboard → Developers → Webhooks), or ' +
        'leave it unset to rely on the signature alone.',
    );
  }
  return list as string[];
}

/** The payment an event is about, and the shop's reference for it. */
function referencesOf(type: string, data: JsonObject | undefined) {
  if (type.startsWith('dispute_')) {
    return {
      paymentRef: readString(data, 'payment_id'),
      merchantRef: readString(data, 'payment_reference'),
    };
  }
  if (type.startsWith('payment_')) {
    return { paymentRef: readString(data, 'id'), merchantRef: readString(data, 'reference') };
  }
  return { paymentRef: undefined, merchantRef: undefined };
}

/**
 * Checkout.com webhooks: `Cko-Signature` is the hex HMAC-SHA256 of the raw body keyed by the
 * webhook's signature key; the optional static `Authorization` header is compared too. Event
 * ids (`evt_…`) are the same on every retry; amounts are minor units already.
 */
export class CheckoutComWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Checkout.com counts any 2xx within 10 seconds; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  private readonly signatureKeys: readonly string[];
  private readonly authorization: readonly string[];

  /**
   * @param options the Checkout.com options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when the signature key or the authorization cannot work.
   */
  constructor(options: CheckoutComProviderOptions, endpointName = KIND) {
    const keys = requireSecrets(endpointName, KIND, 'signatureKey', options?.signatureKey);
    assertNoWhitespaceInSecrets(
      endpointName,
      KIND,
      'signatureKey',
      keys,
      "Copy the webhook's signature key from Dashboard → Developers → Webhooks",
    );
    this.signatureKeys = keys;
    this.authorization = resolveAuthorization(endpointName, options.authorization);
  }

  /**
   * Checks the Authorization header (when configured) and `Cko-Signature` against the raw body.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    if (this.authorization.length > 0) this.verifyAuthorization(request);
    assertBodySignature(request, CKO_SIGNATURE, this.signatureKeys);
  }

  private verifyAuthorization(request: InboundWebhook): void {
    const value = request.headers[AUTHORIZATION_HEADER];
    if (value === undefined || value === '') {
      throw new WebhookVerificationError(
        'missing_signature',
        'Missing Authorization header: the endpoint expects the key configured on the Checkout.com webhook',
      );
    }
    if (!constantTimeIncludes(this.authorization, value)) {
      throw new WebhookVerificationError(
        'bad_signature',
        'The Authorization header is not the key configured on the Checkout.com webhook',
      );
    }
  }

  /**
   * Parses a Checkout.com event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Checkout.com event body');
    const event = checkEnvelope(CHECKOUT_COM_EVENT, body, 'Checkout.com event');
    const data = event.data ?? undefined;
    const currency = toCurrency(data?.currency);
    const occurredAt = parseIsoDate(event.created_on) ?? parseIsoDate(event.timestamp);

    return {
      eventId: event.id,
      type: ownValue(EVENT_TYPES, event.type) ?? `${KIND}:${event.type}`,
      nativeType: event.type,
      ...referencesOf(event.type, data),
      amount: checkoutComMinorUnits(data?.amount, currency),
      currency,
      status: readString(data, 'status'),
      occurredAt,
      // NOTE: the whole body is signed, the event time included, and no delivery timestamp is.
      occurredAtSigned: occurredAt !== undefined,
      payload: body,
    };
  }
}

/**
 * A Checkout.com webhook endpoint.
 * @throws WebhookConfigurationError at startup when the signature key or the authorization
 * cannot work.
 * @example
 * checkoutComEndpoint({
 *   name: 'checkout-com',
 *   signatureKey: process.env.CKO_WEBHOOK_SIGNATURE_KEY!,
 *   authorization: process.env.CKO_WEBHOOK_AUTHORIZATION,
 * })
 */
export function checkoutComEndpoint(options: CheckoutComEndpointOptions): WebhookEndpoint {
  return defineEndpoint(options, new CheckoutComWebhookProvider(options, options?.name));
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
checkoutComEndpoint.kind = 'checkout-com';
