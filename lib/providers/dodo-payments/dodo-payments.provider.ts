import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { assertNoWhitespaceInSecrets, defineEndpoint, requireSecrets } from '../define-endpoint';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
  toIdentifier,
} from '../parse-payload';
import { endpointLabel } from '../providers.messages';
import { decodeStandardWebhooksSecret } from '../standard-webhooks/standard-webhooks.keys';
import { StandardWebhooksPlatformProvider } from '../standard-webhooks/standard-webhooks-platform.provider';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../webhook-provider.interface';

const KIND = 'dodo-payments';
const MINOR_UNITS = /^\d{1,16}$/;

/** Options of the Dodo Payments protocol, shared by the factory and the provider class. */
export interface DodoPaymentsProviderOptions {
  /**
   * The webhook endpoint's signing secret (Dodo Payments dashboard → Developer → Webhooks → your
   * endpoint → Signing secret), `whsec_` followed by base64, as the Standard Webhooks spec has it.
   * Pass a list while rotating (Dodo keeps the old secret valid for 24 hours): a delivery is
   * accepted when any secret matches. Required.
   */
  secret: string | readonly string[];
  /**
   * Largest distance in seconds between the signed `webhook-timestamp` and the receive time, in
   * either direction; `0` switches the check off.
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
   * Key of the payment's `metadata` entry (set when you create the payment or checkout session)
   * that holds your order id; it becomes `merchantRef`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/** Options of `dodoPaymentsEndpoint()`. */
export interface DodoPaymentsEndpointOptions
  extends BaseEndpointOptions, DodoPaymentsProviderOptions {}

const DODO_EVENT = defineEnvelope({
  type: nonEmptyString(),
  timestamp: optional(string()),
  data: jsonObject(),
});

/**
 * NOTE: `payment.processing` and `dispute.challenged` stay unmapped: neither settles anything.
 * A dispute that expired, was accepted or cancelled is as over as one won or lost.
 */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'payment.succeeded': 'payment.succeeded',
  'payment.failed': 'payment.failed',
  'payment.cancelled': 'payment.canceled',
  'refund.succeeded': 'refund.succeeded',
  'refund.failed': 'refund.failed',
  'dispute.opened': 'dispute.opened',
  'dispute.won': 'dispute.closed',
  'dispute.lost': 'dispute.closed',
  'dispute.accepted': 'dispute.closed',
  'dispute.cancelled': 'dispute.closed',
  'dispute.expired': 'dispute.closed',
};

/** The object an event carries: `data.payload_type`, else the type's first word. */
type PayloadKind = 'payment' | 'refund' | 'dispute' | undefined;

function payloadKind(type: string, data: JsonObject): PayloadKind {
  const declared = readString(data, 'payload_type')?.toLowerCase() ?? type.split('.')[0];
  return declared === 'payment' || declared === 'refund' || declared === 'dispute'
    ? declared
    : undefined;
}

/** Dodo writes a payment's and a refund's amount as a number, a dispute's as a string. */
function minorUnits(data: JsonObject, kind: PayloadKind): number | undefined {
  if (kind === 'payment') return readInteger(data, 'total_amount');
  if (kind === 'refund') return readInteger(data, 'amount');
  if (kind === 'dispute') {
    const text = readString(data, 'amount');
    return text !== undefined && MINOR_UNITS.test(text) ? Number(text) : undefined;
  }
  return undefined;
}

/** The configured signing secrets, each checked to be `whsec_` and padded base64. */
function signingSecrets(options: DodoPaymentsProviderOptions, endpointName: string): string[] {
  const secrets = requireSecrets(endpointName, KIND, 'secret', options?.secret);
  const howToCopy =
    'Copy the signing secret (whsec_…) from the Dodo Payments dashboard → Developer → Webhooks → ' +
    'your endpoint';
  assertNoWhitespaceInSecrets(endpointName, KIND, 'secret', secrets, howToCopy);
  secrets.forEach((secret, index) => {
    if (decodeStandardWebhooksSecret(secret) === undefined) {
      const entry = secrets.length > 1 ? `secret[${index}]` : 'secret';
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)}: ${entry} is not a signing secret ("whsec_" and ` +
          `padded base64). ${howToCopy}, not an API key.`,
      );
    }
  });
  return secrets;
}

/**
 * Dodo Payments: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with
 * the spec's `whsec_` secret, verified by the Standard Webhooks provider. `webhook-id` is the
 * same on every retry of one event.
 */
export class DodoPaymentsWebhookProvider extends StandardWebhooksPlatformProvider {
  /** Provider kind. */
  readonly kind = KIND;

  /**
   * @param options the Dodo Payments options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(options: DodoPaymentsProviderOptions, endpointName = KIND) {
    super(
      KIND,
      signingSecrets(options, endpointName),
      options,
      endpointName,
      'dodoPaymentsEndpoint()',
    );
  }

  /**
   * Parses a Dodo Payments event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Dodo Payments event body');
    const event = checkEnvelope(DODO_EVENT, body, 'Dodo Payments event');
    const { data } = event;
    const kind = payloadKind(event.type, data);
    return {
      eventId: this.eventId(request),
      type: ownValue(EVENT_TYPES, event.type) ?? `${KIND}:${event.type}`,
      nativeType: event.type,
      paymentRef: kind === undefined ? undefined : readString(data, 'payment_id'),
      merchantRef: toIdentifier(readObject(data, 'metadata')?.[this.merchantRefKey]),
      amount: minorUnits(data, kind),
      currency: kind === undefined ? undefined : toCurrency(data.currency),
      status: readString(data, kind === 'dispute' ? 'dispute_status' : 'status'),
      occurredAt: parseIsoDate(event.timestamp),
      payload: body,
    };
  }
}

/**
 * A Dodo Payments webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * dodoPaymentsEndpoint({ name: 'dodo', secret: process.env.DODO_PAYMENTS_WEBHOOK_KEY! })
 */
export function dodoPaymentsEndpoint(options: DodoPaymentsEndpointOptions): WebhookEndpoint {
  return defineEndpoint(options, new DodoPaymentsWebhookProvider(options, options?.name));
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
dodoPaymentsEndpoint.kind = 'dodo-payments';
