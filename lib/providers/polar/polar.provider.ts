import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
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
import { StandardWebhooksPlatformProvider } from '../standard-webhooks/standard-webhooks-platform.provider';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../webhook-provider.interface';
import { polarSigningKeys } from './polar.keys';

const KIND = 'polar';

/** Options of the Polar protocol, shared by `polarEndpoint()` and `PolarWebhookProvider`. */
export interface PolarProviderOptions {
  /**
   * The webhook endpoint's secret (Polar → Settings → Webhooks → your endpoint → Secret),
   * exactly as Polar shows it, usually `whsec_…`. Endpoints made before September 2026 sign with
   * the text's UTF-8 bytes, later ones as the Standard Webhooks spec says; both are checked, so
   * either kind works as is. Pass a list while rotating: a delivery is accepted when any matches.
   * Required.
   */
  secret: string | readonly string[];
  /**
   * Largest distance in seconds between the signed `webhook-timestamp` and the receive time, in
   * either direction; `0` switches the check off. Polar's SDK allows 300 s too.
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
   * Key of the order's `metadata` entry that holds your order id (Polar copies the checkout's
   * `metadata` onto the order and the subscription); it becomes `merchantRef`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/** Options of `polarEndpoint()`. */
export interface PolarEndpointOptions extends BaseEndpointOptions, PolarProviderOptions {}

const POLAR_EVENT = defineEnvelope({
  type: nonEmptyString(),
  timestamp: optional(string()),
  data: jsonObject(),
});

/**
 * NOTE: `order.created` and `order.updated` stay unmapped: an order is created before it is paid
 * and `order.paid` follows. `order.refunded` stays unmapped too: it carries the order and its
 * running `refunded_amount`, while `refund.created` / `refund.updated` carry each refund with
 * its own id and amount; mapping both would announce one refund twice.
 */
const REFUND_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  succeeded: 'refund.succeeded',
  failed: 'refund.failed',
  canceled: 'refund.failed',
};

function mapPolarType(type: string, data: JsonObject): PaymentEventType | undefined {
  if (type === 'order.paid') return 'payment.succeeded';
  if (type === 'refund.created' || type === 'refund.updated') {
    const status = readString(data, 'status');
    return status === undefined ? undefined : ownValue(REFUND_STATUSES, status);
  }
  return undefined;
}

/** What a refund gives back: Polar keeps the tax part apart (`amount` + `tax_amount`). */
function refundTotal(refund: JsonObject): number | undefined {
  const amount = readInteger(refund, 'amount');
  const tax = readInteger(refund, 'tax_amount') ?? 0;
  return amount === undefined ? undefined : amount + tax;
}

/** The Standard Webhooks keys of the configured secrets, each checked first. */
function polarKeys(options: PolarProviderOptions, endpointName: string): string[] {
  const secrets = requireSecrets(endpointName, KIND, 'secret', options?.secret);
  assertNoWhitespaceInSecrets(
    endpointName,
    KIND,
    'secret',
    secrets,
    "Copy the endpoint's secret from Polar → Settings → Webhooks → your endpoint",
  );
  return secrets.flatMap(polarSigningKeys);
}

/**
 * Polar: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), verified by
 * the Standard Webhooks provider with the keys `polarSigningKeys()` derives from each secret.
 * `webhook-id` is the event's id, the same on every retry and on a redelivery from the dashboard.
 */
export class PolarWebhookProvider extends StandardWebhooksPlatformProvider {
  /** Provider kind. */
  readonly kind = KIND;

  /**
   * @param options the Polar options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(options: PolarProviderOptions, endpointName = KIND) {
    super(KIND, polarKeys(options, endpointName), options, endpointName, 'polarEndpoint()');
  }

  /**
   * Parses a Polar event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Polar event body');
    const event = checkEnvelope(POLAR_EVENT, body, 'Polar event');
    const { data } = event;
    const isOrder = event.type.startsWith('order.');
    const isRefund = event.type.startsWith('refund.');
    return {
      eventId: this.eventId(request),
      type: mapPolarType(event.type, data) ?? `${KIND}:${event.type}`,
      nativeType: event.type,
      paymentRef: isOrder
        ? readString(data, 'id')
        : isRefund
          ? readString(data, 'order_id')
          : undefined,
      merchantRef: toIdentifier(readObject(data, 'metadata')?.[this.merchantRefKey]),
      amount: isOrder
        ? readInteger(data, 'total_amount')
        : isRefund
          ? refundTotal(data)
          : undefined,
      currency: isOrder || isRefund ? toCurrency(data.currency) : undefined,
      status: readString(data, 'status'),
      occurredAt: parseIsoDate(event.timestamp),
      payload: body,
    };
  }
}

/**
 * A Polar webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * polarEndpoint({ name: 'polar', secret: process.env.POLAR_WEBHOOK_SECRET! })
 */
export function polarEndpoint(options: PolarEndpointOptions): WebhookEndpoint {
  return defineEndpoint(options, new PolarWebhookProvider(options, options?.name));
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
polarEndpoint.kind = 'polar';
