import { PaymentEventType } from '../../core/payment-event-types';
import { plainTextAcknowledgement } from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import {
  DEFAULT_TOLERANCE_SECONDS,
  resolveNonEmptyString,
  resolveTolerance,
} from '../provider-options';
import { TimestampedSignatureHeader } from '../signature-header';
import { TimestampedSignatureScheme, timestampedHmacSignature } from '../timestamped-signature';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../webhook-provider.interface';
import { ownValue } from '../../core/own-value';
import { PaddleApiOptions, PaddleEventLog } from './paddle-event-log';

const KIND = 'paddle';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const SIGNATURE_HEADER: TimestampedSignatureHeader = {
  name: 'Paddle-Signature',
  separator: ';',
  timestampKey: 'ts',
  signatureKey: 'h1',
  signatureShape: 'h1=<64 hex digits>',
  readSignature: (value) => (HEX_SHA256.test(value) ? value.toLowerCase() : undefined),
  signedPrefix: (timestampText) => `${timestampText}:`,
};
const MINOR_UNITS = /^\d{1,16}$/;

/** Options of the Paddle protocol, shared by `paddleEndpoint()` and `paddleProvider`. */
export interface PaddleProviderOptions {
  /**
   * The notification destination's secret key (`pdl_ntfset_…`, Paddle → Developer tools →
   * Notifications → your destination → Secret key), used verbatim. Pass a list while rotating:
   * a delivery is accepted when any secret matches any of its `h1` signatures. Required.
   */
  secret: string | readonly string[];
  /**
   * Largest distance in seconds between the signed `ts=` timestamp and the receive time, in
   * either direction; `0` switches the check off.
   *
   * Paddle's own SDK allows 5 seconds, into the past only (`WebhooksValidator` in
   * `@paddle/paddle-node-sdk` 3.x), and Paddle's docs repeat that figure. The default is wider
   * on purpose, the same as for Stripe and Standard Webhooks: the window has to absorb clock
   * skew between Paddle and this server and the time a delivery spends in proxies, and every
   * delivery it refuses is answered 400 and waits for Paddle's next retry. A shorter window
   * buys no safety here: within 300 s a replay carries an `event_id` whose dedup key is kept
   * for days, so it is a duplicate either way. Set 5 to refuse what the SDK refuses.
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
   * Key of the transaction's `custom_data` entry (set by your checkout) that holds your order id;
   * it becomes `merchantRef`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/** Options of `paddleEndpoint()`. */
export interface PaddleEndpointOptions extends BaseEndpointOptions, PaddleProviderOptions {
  /**
   * Paddle API access: an API key with the `notification.read` permission. The endpoint then
   * reads Paddle's event stream (the last 90 days) to recover events whose notifications never
   * arrived.
   * @example api: { apiKey: process.env.PADDLE_API_KEY! }
   */
  api?: PaddleApiOptions;
}

const PADDLE_EVENT = defineEnvelope({
  event_id: nonEmptyString(),
  event_type: nonEmptyString(),
  occurred_at: optional(string()),
  data: jsonObject(),
});

/**
 * NOTE: `transaction.paid` is left unmapped on purpose: Paddle sends it when the payment is
 * captured but before the transaction is processed (no invoice, no subscription yet), and follows
 * it with `transaction.completed`; mapping both would announce one payment twice. It is not an
 * authorization either: the money is already taken. Handlers that want the earlier signal
 * subscribe to `'paddle:transaction.paid'`.
 */
const TRANSACTION_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'transaction.completed': 'payment.succeeded',
  'transaction.payment_failed': 'payment.failed',
  'transaction.canceled': 'payment.canceled',
};

/** Maps an adjustment (refund, credit, chargeback) by its action and status. */
function mapAdjustment(eventType: string, adjustment: JsonObject): PaymentEventType | undefined {
  const action = adjustment.action;
  const status = adjustment.status;
  if (action === 'refund') {
    // NOTE: a refund is created pending_approval and approved (or rejected) by Paddle later.
    if (status === 'approved') return 'refund.succeeded';
    if (status === 'rejected') return 'refund.failed';
    return undefined;
  }
  // NOTE: chargebacks arrive already decided; only their creation opens or closes a dispute.
  if (eventType !== 'adjustment.created') return undefined;
  if (action === 'chargeback') return 'dispute.opened';
  if (action === 'chargeback_reverse') return 'dispute.closed';
  return undefined;
}

function mapPaddleType(eventType: string, data: JsonObject): PaymentEventType | undefined {
  if (eventType === 'adjustment.created' || eventType === 'adjustment.updated') {
    return mapAdjustment(eventType, data);
  }
  return ownValue(TRANSACTION_TYPES, eventType);
}

/** Paddle writes amounts as strings of minor units (`"1099"`). */
function readMinorUnits(source: JsonObject | undefined, key: string): number | undefined {
  const value = readString(source, key);
  return value !== undefined && MINOR_UNITS.test(value) ? Number(value) : undefined;
}

/** Paddle's signature scheme, with a timestamp window of `tolerance` seconds. */
export function paddleSignature(tolerance?: number): TimestampedSignatureScheme {
  return timestampedHmacSignature(SIGNATURE_HEADER, tolerance ?? DEFAULT_TOLERANCE_SECONDS);
}

/** Reads a Paddle Billing event, with the order id under `merchantRefKey`. */
function normalizePaddle(request: InboundWebhook, merchantRefKey: string): NormalizedNotification {
  const body = parseJsonObject(request.rawBody, 'Paddle event body');
  const event = checkEnvelope(PADDLE_EVENT, body, 'Paddle event');
  const { data } = event;
  const isTransaction = event.event_type.startsWith('transaction.');
  const isAdjustment = event.event_type.startsWith('adjustment.');

  return {
    eventId: event.event_id,
    type: mapPaddleType(event.event_type, data) ?? `${KIND}:${event.event_type}`,
    nativeType: event.event_type,
    paymentRef: isTransaction
      ? readString(data, 'id')
      : isAdjustment
        ? readString(data, 'transaction_id')
        : undefined,
    merchantRef: readString(readObject(data, 'custom_data'), merchantRefKey),
    amount: isTransaction
      ? readMinorUnits(readObject(readObject(data, 'details'), 'totals'), 'grand_total')
      : isAdjustment
        ? readMinorUnits(readObject(data, 'totals'), 'total')
        : undefined,
    currency: toCurrency(data.currency_code),
    status: readString(data, 'status'),
    occurredAt: parseIsoDate(event.occurred_at),
    payload: body,
  };
}

/**
 * Paddle Billing: `Paddle-Signature: ts=…;h1=…` where `h1` is HMAC-SHA256 (hex) of
 * `${ts}:${rawBody}` keyed by the destination's secret key verbatim. Event ids (`evt_…`) are
 * stable across retries. Paddle expects HTTP 200 within 5 seconds; an empty body is enough.
 */
export const paddleProvider = defineProvider<
  PaddleProviderOptions & Pick<PaddleEndpointOptions, 'api'>
>({
  kind: KIND,
  name: 'Paddle',
  retryHorizon: { days: 3, documented: 'live mode: up to 60 retries over 3 days' },
  secrets: {
    option: 'secret',
    howToCopy:
      "Copy the notification destination's secret key (pdl_ntfset_…) from Paddle → Developer " +
      'tools → Notifications',
  },
  signature: () => paddleSignature(),
  types: TRANSACTION_TYPES,
  extras: (options) => ({ eventLog: options.api && new PaddleEventLog(options.api) }),
  // NOTE: the order id's key is an option, so the provider is built with the options it reads.
  create(options, endpointName, secrets) {
    // NOTE: every h1 counts (Paddle sends one per secret while rotating), not only the last one.
    const scheme = paddleSignature(
      resolveTolerance(endpointName, KIND, options, 'paddleEndpoint()'),
    );
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
      verify: (request) => scheme.verify(request, secrets),
      normalize: (request) => normalizePaddle(request, merchantRefKey),
    };
  },
  cli: {
    title: 'Paddle Billing',
    secret: 'the notification destination secret key (pdl_ntfset_…)',
    timestamp: 'ts= (Unix seconds; default now; Paddle allows 5 s)',
    payload: 'the event, signed byte for byte',
    flags: [],
  },
  sample: {
    secret: 'pdl_ntfset_01sample00000000000000000000_sample',
    body:
      '{"event_id":"evt_01sample","event_type":"transaction.completed",' +
      '"occurred_at":"2026-01-01T00:00:00.000000Z","data":{"id":"txn_01sample",' +
      '"status":"completed","currency_code":"USD","custom_data":{"orderId":"o-1"}}}',
  },
});

/**
 * A Paddle Billing webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * paddleEndpoint({ name: 'paddle', secret: process.env.PADDLE_WEBHOOK_SECRET! })
 */
export function paddleEndpoint(options: PaddleEndpointOptions): WebhookEndpoint {
  return paddleProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
paddleEndpoint.kind = KIND;
