import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { DefinedProvider, defineProvider } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { JsonObject, readInteger, readString, toCurrency } from '../parse-payload';
import { jsonPost, oneOf, requireSecret, SigningInputError } from '../signing-input';
import { standardWebhooksPlatform } from '../standard-webhooks/standard-webhooks-platform.provider';
import { standardWebhooksSignature } from '../standard-webhooks/standard-webhooks.signature';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';
import { polarSigning } from './polar.keys';

const KIND = 'polar';

/** Options of the Polar protocol, shared by `polarEndpoint()` and `polarProvider`. */
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

const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'order.paid': 'payment.succeeded',
};

/** A refund's type, by its status: a refund event carries each refund once per change. */
function refundType(type: string, data: JsonObject): PaymentEventType | undefined {
  if (type !== 'refund.created' && type !== 'refund.updated') return undefined;
  const status = readString(data, 'status');
  return status === undefined ? undefined : ownValue(REFUND_STATUSES, status);
}

/** What a refund gives back: Polar keeps the tax part apart (`amount` + `tax_amount`). */
function refundTotal(refund: JsonObject): number | undefined {
  const amount = readInteger(refund, 'amount');
  const tax = readInteger(refund, 'tax_amount') ?? 0;
  return amount === undefined ? undefined : amount + tax;
}

/**
 * Polar: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`), verified
 * with the keys `polarSigning()` derives from each secret. `webhook-id` is the event's id, the
 * same on every retry and on a redelivery from the dashboard.
 */
export const polarProvider: DefinedProvider<PolarProviderOptions> = defineProvider({
  kind: KIND,
  name: 'Polar',
  retryHorizon: {
    days: 1,
    documented:
      'retries up to 10 times with exponential backoff (about 35 minutes in all, the backoff ' +
      'capped at 20 minutes); a redelivery from the dashboard can come later, with the same id',
  },
  secrets: {
    option: 'secret',
    howToCopy: "Copy the endpoint's secret from Polar → Settings → Webhooks → your endpoint",
  },
  ...standardWebhooksPlatform<PolarProviderOptions>({
    kind: KIND,
    name: 'Polar',
    factory: 'polarEndpoint()',
    types: EVENT_TYPES,
    signing: polarSigning(),
    read(type, data) {
      const isOrder = type.startsWith('order.');
      const isRefund = type.startsWith('refund.');
      return {
        type: refundType(type, data),
        paymentRef: isOrder
          ? readString(data, 'id')
          : isRefund
            ? readString(data, 'order_id')
            : undefined,
        amount: isOrder
          ? readInteger(data, 'total_amount')
          : isRefund
            ? refundTotal(data)
            : undefined,
        currency: isOrder || isRefund ? toCurrency(data.currency) : undefined,
        status: readString(data, 'status'),
      };
    },
  }),
  cli: {
    title: 'Polar (Standard Webhooks)',
    secret: "the endpoint's secret as Polar shows it (whsec_…)",
    timestamp: 'webhook-timestamp (Unix seconds; default now)',
    payload: 'the event ({ type, timestamp, data }), signed byte for byte',
    flags: [
      { name: 'id', value: '<event id>', help: 'webhook-id, the dedup key (default a new UUID)' },
      {
        name: 'scheme',
        value: 'standard|utf8',
        help:
          "the key Polar signs with: the spec's (whsec_ + base64, endpoints since September 2026) " +
          'or the UTF-8 bytes of the secret (older endpoints); default by the secret’s form',
      },
    ],
    sign: (input) => {
      const secret = requireSecret(KIND, input);
      const scheme = oneOf('scheme', input.options.scheme, ['standard', 'utf8'] as const);
      let signature: Readonly<Record<string, string>>;
      try {
        signature = standardWebhooksSignature(polarSigning(scheme)).sign(
          input.text,
          secret,
          input.timestamp,
          { id: input.options.id },
        );
      } catch {
        throw new SigningInputError(
          '--scheme standard for polar needs a --secret of "whsec_" followed by padded base64',
        );
      }
      return withEventIds(jsonPost(KIND, input, signature), () =>
        polarProvider.provider({ secret }),
      );
    },
  },
  sample: {
    secret: 'whsec_polar-sample-secret',
    body: '{"type":"order.paid","timestamp":"2026-01-01T00:00:00Z","data":{"id":"ord_1","total_amount":1999,"currency":"usd","status":"paid"}}',
  },
});

/**
 * A Polar webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * polarEndpoint({ name: 'polar', secret: process.env.POLAR_WEBHOOK_SECRET! })
 */
export function polarEndpoint(options: PolarEndpointOptions): WebhookEndpoint {
  return polarProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
polarEndpoint.kind = KIND;
