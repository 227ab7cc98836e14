import { constantTimeMatchAny } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { assertTimestampWithinWindow } from '../../core/timestamp-window';
import { WebhookVerificationError } from '../../core/webhook-errors';

/** The header that carries `ts=<time>,v1=<hex HMAC-SHA256>`. */
export const SIGNATURE_HEADER = 'x-signature';
/** The request id Mercado Pago signs with the resource id and the time. */
export const REQUEST_ID_HEADER = 'x-request-id';

const HEX_SHA256 = /^[0-9a-f]{64}$/i;
const DIGITS = /^\d{1,16}$/;
// NOTE: 10^11 seconds is the year 5138 and 10^11 milliseconds is March 1973, so a larger ts is
// in milliseconds (the Orders documentation's example) and a smaller one in seconds (the
// Webhooks page's example and the official SDK since 3.3.0).
const MILLISECONDS_FROM = 100_000_000_000;

/** What the signature covers, as Mercado Pago assembles it. */
export interface MercadoPagoManifestParts {
  /** The notified resource's id (`data.id`), when the notification has one. */
  readonly dataId?: string;
  /** The `x-request-id` header. */
  readonly requestId: string;
  /** The `ts` of `x-signature`, exactly as sent. */
  readonly ts: string;
}

/** A parsed `x-signature` header. */
export interface ParsedMercadoPagoSignature {
  /** `ts` exactly as sent: the manifest holds this text. */
  readonly ts: string;
  /** `ts` in Unix seconds, whichever unit it was sent in. */
  readonly seconds: number;
  /** The `v1` signatures, lower-cased. */
  readonly signatures: readonly string[];
}

/**
 * The signed text: `id:{data.id};request-id:{x-request-id};ts:{ts};`, the `id` part left out
 * when the notification names no resource, as the documentation's template says.
 */
export function mercadoPagoManifest(parts: MercadoPagoManifestParts): string {
  const id = parts.dataId === undefined ? '' : `id:${parts.dataId};`;
  return `${id}request-id:${parts.requestId};ts:${parts.ts};`;
}

/**
 * The hex HMAC-SHA256 of the manifest under `secret`: the `v1` of `x-signature`.
 * @example mercadoPagoSignature('secret', { dataId: '123', requestId: 'req', ts: '1704908010' })
 */
export function mercadoPagoSignature(secret: string, parts: MercadoPagoManifestParts): string {
  return hmacSha256(secret, [mercadoPagoManifest(parts)]).toString('hex');
}

/**
 * Reads `x-signature`: exactly one `ts` of digits and at least one `v1` of 64 hex digits; items
 * of other versions are skipped.
 * @throws WebhookVerificationError `missing_signature` or `bad_signature`.
 */
export function parseMercadoPagoSignature(value: string | undefined): ParsedMercadoPagoSignature {
  if (value === undefined || value.trim() === '') {
    throw new WebhookVerificationError('missing_signature', 'Missing x-signature header');
  }
  const timestamps: string[] = [];
  const signatures: string[] = [];
  for (const item of value.split(',')) {
    const separator = item.indexOf('=');
    const key = item.slice(0, Math.max(separator, 0)).trim();
    const text = item.slice(separator + 1).trim();
    if (key === 'ts') timestamps.push(text);
    if (key === 'v1' && HEX_SHA256.test(text)) signatures.push(text.toLowerCase());
  }
  const [ts] = timestamps;
  if (timestamps.length !== 1 || !DIGITS.test(ts)) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed x-signature header: expected exactly one ts=<Unix time in seconds or milliseconds>',
    );
  }
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed x-signature header: no v1=<64 hex digits> signature',
    );
  }
  const time = Number(ts);
  const seconds = time >= MILLISECONDS_FROM ? Math.floor(time / 1000) : time;
  return { ts, seconds, signatures };
}

/**
 * The `x-request-id` header, required: it is signed, and without it a resource id could carry
 * text that reads as the request-id part of another manifest.
 * @throws WebhookVerificationError `missing_signature` or `bad_signature`.
 */
export function requireRequestId(value: string | undefined): string {
  const requestId = value?.trim();
  if (requestId === undefined || requestId === '') {
    throw new WebhookVerificationError(
      'missing_signature',
      'Missing x-request-id header: Mercado Pago signs it with data.id and ts',
    );
  }
  if (requestId.includes(';')) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed x-request-id header: it must not contain ";", which separates the signed parts',
    );
  }
  return requestId;
}

/**
 * Checks `v1` against every secret and both spellings of `data.id` Mercado Pago has signed
 * with (as sent, and lower-cased as its documentation asks for an alphanumeric id), then the
 * time against `tolerance` seconds (0: not checked).
 * @throws WebhookVerificationError `bad_signature` or `timestamp_out_of_window`.
 */
export function verifyMercadoPagoSignature(
  signature: ParsedMercadoPagoSignature,
  parts: Omit<MercadoPagoManifestParts, 'ts'>,
  secrets: readonly string[],
  receivedAt: Date,
  tolerance: number,
): void {
  const ids =
    parts.dataId === undefined
      ? [undefined]
      : [...new Set([parts.dataId, parts.dataId.toLowerCase()])];
  const expected = secrets.flatMap((secret) =>
    ids.map((dataId) =>
      mercadoPagoSignature(secret, { dataId, requestId: parts.requestId, ts: signature.ts }),
    ),
  );
  if (!constantTimeMatchAny(expected, signature.signatures)) {
    throw new WebhookVerificationError(
      'bad_signature',
      'No v1 signature in the x-signature header matches data.id, x-request-id, ts and the secret ' +
        "(check that secret is the application's webhook secret signature, for the same mode: test or production)",
    );
  }
  // NOTE: checked after the signature, so only genuine but late (or early) deliveries say so.
  assertTimestampWithinWindow(signature.seconds, receivedAt, tolerance);
}
