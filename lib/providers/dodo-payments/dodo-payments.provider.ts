import { PaymentEventType } from '../../core/payment-event-types';
import { DefinedProvider, defineProvider } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { JsonObject, readInteger, readString, toCurrency } from '../parse-payload';
import { jsonPost, requireSecret, SigningInputError } from '../signing-input';
import { decodeStandardWebhooksSecret } from '../standard-webhooks/standard-webhooks.keys';
import { standardWebhooksPlatform } from '../standard-webhooks/standard-webhooks-platform.provider';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';

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

const HOW_TO_COPY =
  'Copy the signing secret (whsec_…) from the Dodo Payments dashboard → Developer → Webhooks → ' +
  'your endpoint';

const SAMPLE_SECRET = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;

/** Dodo Payments reads its events on the Standard Webhooks platform base. */
const DODO_PAYMENTS = standardWebhooksPlatform<DodoPaymentsProviderOptions>({
  kind: KIND,
  name: 'Dodo Payments',
  factory: 'dodoPaymentsEndpoint()',
  types: EVENT_TYPES,
  read(type, data) {
    const kind = payloadKind(type, data);
    return {
      paymentRef: kind === undefined ? undefined : readString(data, 'payment_id'),
      amount: minorUnits(data, kind),
      currency: kind === undefined ? undefined : toCurrency(data.currency),
      status: readString(data, kind === 'dispute' ? 'dispute_status' : 'status'),
    };
  },
});

/**
 * Dodo Payments: Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`) with
 * the spec's `whsec_` secret. `webhook-id` is the same on every retry of one event.
 */
export const dodoPaymentsProvider: DefinedProvider<DodoPaymentsProviderOptions> = defineProvider({
  kind: KIND,
  name: 'Dodo Payments',
  aliases: ['dodo', 'dodopayments'],
  retryHorizon: {
    days: 4,
    documented:
      'retries with exponential backoff, no horizon given (the Standard Webhooks example ' +
      'schedule spans 75 h 35 min); deliveries can also be replayed from the dashboard',
  },
  ...DODO_PAYMENTS,
  secrets: {
    option: 'secret',
    howToCopy: HOW_TO_COPY,
    check: (secret) =>
      decodeStandardWebhooksSecret(secret) === undefined
        ? `is not a signing secret ("whsec_" and padded base64). ${HOW_TO_COPY}, not an API key.`
        : undefined,
  },
  cli: {
    title: 'Dodo Payments (Standard Webhooks)',
    secret: "the endpoint's signing secret (whsec_ + base64)",
    timestamp: 'webhook-timestamp (Unix seconds; default now)',
    payload: 'the event ({ business_id, type, timestamp, data }), signed byte for byte',
    flags: [
      {
        name: 'id',
        value: '<message id>',
        help: 'webhook-id, the dedup key (default a new msg_…)',
      },
    ],
    sign: (input) => {
      const secret = requireSecret(KIND, input);
      let signature: Readonly<Record<string, string>>;
      try {
        signature = DODO_PAYMENTS.signature.sign(input.text, secret, input.timestamp, {
          id: input.options.id,
        });
      } catch {
        throw new SigningInputError(
          '--secret for dodo-payments must be "whsec_" followed by base64',
        );
      }
      return withEventIds(jsonPost(KIND, input, signature), () =>
        dodoPaymentsProvider.provider({ secret }),
      );
    },
  },
  sample: {
    secret: SAMPLE_SECRET,
    otherSecret: `whsec_${Buffer.alloc(24, 6).toString('base64')}`,
    body: '{"business_id":"bus_1","type":"payment.succeeded","timestamp":"2026-01-01T00:00:00Z","data":{"payload_type":"Payment","payment_id":"pay_1","total_amount":1999,"currency":"USD","status":"succeeded"}}',
  },
});

/**
 * A Dodo Payments webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * dodoPaymentsEndpoint({ name: 'dodo', secret: process.env.DODO_PAYMENTS_WEBHOOK_KEY! })
 */
export function dodoPaymentsEndpoint(options: DodoPaymentsEndpointOptions): WebhookEndpoint {
  return dodoPaymentsProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
dodoPaymentsEndpoint.kind = KIND;
