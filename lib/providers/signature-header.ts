import { constantTimeMatchAny } from '../core/constant-time';
import { hmacSha256 } from '../core/hmac';
import { assertTimestampWithinWindow, parseUnixSeconds } from '../core/timestamp-window';
import { WebhookVerificationError } from '../core/webhook-errors';
import { InboundWebhook } from './webhook-provider.interface';

/**
 * How a provider writes a signature header of `key=value` items that holds one signed
 * timestamp and one or more signatures, e.g. Stripe's `t=…,v1=…` or Paddle's `ts=…;h1=…`.
 */
export interface TimestampedSignatureHeader {
  /** The header's name as the provider spells it in its documentation, e.g. `'Stripe-Signature'`. */
  readonly name: string;
  /** What separates the items, e.g. `','`. */
  readonly separator: string;
  /** Key of the timestamp item (Unix seconds), e.g. `'t'`. */
  readonly timestampKey: string;
  /** Key of the signature items that count, e.g. `'v1'`; items with any other key are skipped. */
  readonly signatureKey: string;
  /** A usable signature as the "no signature" error describes it, e.g. `'h1=<64 hex digits>'`. */
  readonly signatureShape: string;
  /** The signature as it is compared, or undefined to skip a malformed value. */
  readonly readSignature: (value: string) => string | undefined;
  /** What precedes the raw body in the signed bytes, e.g. `` (t) => `${t}.` ``. */
  readonly signedPrefix: (timestampText: string) => string;
}

/** The items of a {@link TimestampedSignatureHeader} that verification uses. */
interface ParsedSignatureHeader {
  /** The timestamp exactly as sent: providers sign this text, not the number. */
  readonly timestampText: string;
  /** The timestamp in Unix seconds. */
  readonly timestamp: number;
  /** The usable signatures, in header order. */
  readonly signatures: readonly string[];
}

/**
 * Throws unless any candidate signature equals any expected one (one per secret while
 * rotating), every pair compared in constant time.
 * @throws WebhookVerificationError `bad_signature` naming the signature version and the header.
 */
export function assertAnySignatureMatches(
  expected: readonly (Uint8Array | string)[],
  candidates: readonly (Uint8Array | string)[],
  version: string,
  header: string,
): void {
  if (!constantTimeMatchAny(expected, candidates)) {
    throw new WebhookVerificationError(
      'bad_signature',
      `No ${version} signature in the ${header} header matches the payload and the secret`,
    );
  }
}

/**
 * Verifies a delivery signed through a {@link TimestampedSignatureHeader}: the header must hold
 * exactly one timestamp and a signature equal to the hex HMAC-SHA256, under any of `secrets`, of
 * the signed prefix and the raw body; then the timestamp must lie within `tolerance` seconds of
 * the receive time.
 * @throws WebhookVerificationError `missing_signature`, `bad_signature` or
 * `timestamp_out_of_window`.
 */
export function verifyTimestampedSignature(
  request: InboundWebhook,
  header: TimestampedSignatureHeader,
  secrets: readonly string[],
  tolerance: number,
): void {
  const value = request.headers[header.name.toLowerCase()];
  if (value === undefined || value.trim() === '') {
    throw new WebhookVerificationError('missing_signature', `Missing ${header.name} header`);
  }
  const { timestampText, timestamp, signatures } = parseSignatureHeader(value, header);
  const signed = header.signedPrefix(timestampText);
  const expected = secrets.map((secret) =>
    hmacSha256(secret, [signed, request.rawBody]).toString('hex'),
  );
  assertAnySignatureMatches(expected, signatures, header.signatureKey, header.name);
  // NOTE: checked after the signature, so only genuine but late (or early) deliveries say so.
  assertTimestampWithinWindow(timestamp, request.receivedAt, tolerance);
}

function parseSignatureHeader(
  value: string,
  header: TimestampedSignatureHeader,
): ParsedSignatureHeader {
  let timestampText: string | undefined;
  let duplicateTimestamp = false;
  const signatures: string[] = [];
  for (const item of value.split(header.separator)) {
    const separator = item.indexOf('=');
    if (separator <= 0) continue;
    const key = item.slice(0, separator).trim();
    const itemValue = item.slice(separator + 1).trim();
    if (key === header.timestampKey) {
      duplicateTimestamp = timestampText !== undefined;
      timestampText = itemValue;
    } else if (key === header.signatureKey) {
      const signature = header.readSignature(itemValue);
      if (signature !== undefined) signatures.push(signature);
    }
  }
  const timestamp = parseUnixSeconds(timestampText);
  if (timestampText === undefined || timestamp === undefined || duplicateTimestamp) {
    throw new WebhookVerificationError(
      'bad_signature',
      `Malformed ${header.name} header: expected exactly one ${header.timestampKey}=<Unix seconds>`,
    );
  }
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      'bad_signature',
      `Malformed ${header.name} header: no ${header.signatureShape} signature`,
    );
  }
  return { timestampText, timestamp, signatures };
}
