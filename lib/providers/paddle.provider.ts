import { IsNotEmpty, IsObject, IsOptional, IsString } from 'class-validator';
import { constantTimeMatchAny } from '../core/constant-time';
import { hmacSha256 } from '../core/hmac';
import { PaymentEventType } from '../core/payment-event-types';
import { assertTimestampWithinWindow, parseUnixSeconds } from '../core/timestamp-window';
import { WebhookConfigurationError, WebhookVerificationError } from '../core/webhook-errors';
import { defineEndpoint, requireSecrets } from './define-endpoint';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  readString,
  toCurrency,
  validateEnvelope,
} from './parse-payload';
import { resolveNonEmptyString, resolveTolerance } from './provider-options';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from './webhook-provider.interface';

const KIND = 'paddle';
const SIGNATURE_HEADER = 'paddle-signature';
const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const MINOR_UNITS = /^\d{1,16}$/;

/** Options of the Paddle protocol, shared by `paddleEndpoint()` and `PaddleWebhookProvider`. */
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
   * @default 300
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
export interface PaddleEndpointOptions extends BaseEndpointOptions, PaddleProviderOptions {}

// NOTE: validated without @Type(): nested classes would need reflect-metadata loaded by the app.
class PaddleEventEnvelope {
  @IsString()
  @IsNotEmpty()
  event_id!: string;

  @IsString()
  @IsNotEmpty()
  event_type!: string;

  @IsOptional()
  @IsString()
  occurred_at?: string;

  @IsObject()
  data!: JsonObject;
}

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
  return TRANSACTION_TYPES[eventType];
}

/** Paddle writes amounts as strings of minor units (`"1099"`). */
function readMinorUnits(source: JsonObject | undefined, key: string): number | undefined {
  const value = readString(source, key);
  return value !== undefined && MINOR_UNITS.test(value) ? Number(value) : undefined;
}

/**
 * Paddle Billing: `Paddle-Signature: ts=…;h1=…` where `h1` is HMAC-SHA256 (hex) of
 * `${ts}:${rawBody}` keyed by the destination's secret key verbatim. Event ids (`evt_…`) are
 * stable across retries.
 */
export class PaddleWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Paddle expects HTTP 200 within 5 seconds; an empty body is enough. */
  readonly acknowledgement: WebhookAcknowledgement = Object.freeze({
    status: 200,
    body: '',
    contentType: 'text/plain; charset=utf-8',
  });

  private readonly secrets: readonly string[];
  private readonly tolerance: number;
  private readonly merchantRefKey: string;

  /**
   * @param options the Paddle options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(options: PaddleProviderOptions, endpointName = KIND) {
    const secrets = requireSecrets(endpointName, KIND, 'secret', options?.secret);
    secrets.forEach((secret, index) => {
      if (/\s/.test(secret)) {
        throw new WebhookConfigurationError(
          `Webhook endpoint ${JSON.stringify(endpointName)} (${KIND}): ` +
            `${secrets.length > 1 ? `secret[${index}]` : 'secret'} contains whitespace. Copy the ` +
            "notification destination's secret key (pdl_ntfset_…) from Paddle → Developer tools → " +
            'Notifications without surrounding spaces or line breaks.',
        );
      }
    });
    this.secrets = secrets;
    this.tolerance = resolveTolerance(endpointName, KIND, options.tolerance);
    this.merchantRefKey = resolveNonEmptyString(
      endpointName,
      KIND,
      'merchantRefKey',
      options.merchantRefKey,
      'orderId',
    );
  }

  /**
   * Checks the Paddle-Signature header against the raw body, then the timestamp window.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    const header = request.headers[SIGNATURE_HEADER];
    if (header === undefined || header.trim() === '') {
      throw new WebhookVerificationError('missing_signature', 'Missing Paddle-Signature header');
    }
    const { timestampText, timestamp, signatures } = parseSignatureHeader(header);
    const expected = this.secrets.map((secret) =>
      hmacSha256(secret, [`${timestampText}:`, request.rawBody]).toString('hex'),
    );
    // NOTE: every h1 counts (Paddle sends one per secret while rotating), not only the last one.
    if (!constantTimeMatchAny(expected, signatures)) {
      throw new WebhookVerificationError(
        'bad_signature',
        'No h1 signature in the Paddle-Signature header matches the payload and the secret',
      );
    }
    // NOTE: checked after the signature, so only genuine but late (or early) deliveries say so.
    assertTimestampWithinWindow(timestamp, request.receivedAt, this.tolerance);
  }

  /**
   * Parses a Paddle Billing event and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Paddle event body');
    const event = validateEnvelope(PaddleEventEnvelope, body, 'Paddle event');
    // NOTE: read from the parsed body, not the class-transformer copy, so the payload is the bytes' JSON.
    const data = body.data as JsonObject;
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
      merchantRef: readString(readObject(data, 'custom_data'), this.merchantRefKey),
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
}

interface ParsedSignatureHeader {
  readonly timestampText: string;
  readonly timestamp: number;
  readonly signatures: readonly string[];
}

function parseSignatureHeader(header: string): ParsedSignatureHeader {
  let timestampText: string | undefined;
  let duplicateTimestamp = false;
  const signatures: string[] = [];
  for (const item of header.split(';')) {
    const separator = item.indexOf('=');
    if (separator <= 0) continue;
    const key = item.slice(0, separator).trim();
    const value = item.slice(separator + 1).trim();
    if (key === 'ts') {
      duplicateTimestamp = timestampText !== undefined;
      timestampText = value;
    } else if (key === 'h1' && HEX_SHA256.test(value)) {
      signatures.push(value.toLowerCase());
    }
  }
  const timestamp = parseUnixSeconds(timestampText);
  if (timestampText === undefined || timestamp === undefined || duplicateTimestamp) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed Paddle-Signature header: expected exactly one ts=<Unix seconds>',
    );
  }
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed Paddle-Signature header: no h1=<64 hex digits> signature',
    );
  }
  return { timestampText, timestamp, signatures };
}

/**
 * A Paddle Billing webhook endpoint.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * paddleEndpoint({ name: 'paddle', secret: process.env.PADDLE_WEBHOOK_SECRET! })
 */
export function paddleEndpoint(options: PaddleEndpointOptions): WebhookEndpoint {
  return defineEndpoint(options, new PaddleWebhookProvider(options, options?.name));
}
