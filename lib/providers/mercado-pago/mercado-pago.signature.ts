import { randomUUID } from 'node:crypto';
import { constantTimeMatchAny } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { assertTimestampWithinWindow } from '../../core/timestamp-window';
import { WebhookVerificationError } from '../../core/webhook-errors';
import { SignatureScheme } from '../define-provider';
import { toIdentifier } from '../parse-payload';
import { DEFAULT_TOLERANCE_SECONDS } from '../provider-options';
import { InboundWebhook } from '../webhook-provider.interface';
import { CheckedNotification, readNotification } from './mercado-pago.notification';

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

/** Mercado Pago's signature: `verify` also hands back the notification whose `data.id` it checked. */
export interface MercadoPagoSignatureScheme extends SignatureScheme {
  /**
   * Checks `x-signature` against `data.id` of the body, `x-request-id` and `ts`, then `ts`
   * against the tolerance.
   * @returns the notification the body holds.
   * @throws WebhookVerificationError, or WebhookPayloadError for a body that is no notification.
   */
  verifyNotification(request: InboundWebhook, secrets: readonly string[]): CheckedNotification;
}

/** `data.id` of a notification body, as text; undefined when it has none or is no JSON. */
function dataIdOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const data = (parsed as { data?: { id?: unknown } } | null)?.data;
  return typeof data === 'object' && data !== null ? toIdentifier(data.id) : undefined;
}

/**
 * Mercado Pago's signature, for the endpoint and the signers alike: `x-signature: ts=…,v1=…`
 * over `id:{data.id};request-id:{x-request-id};ts:{ts};`, and `x-request-id`.
 * @param tolerance the timestamp window in seconds (0: not checked).
 * @param requestId the `x-request-id` it signs with; a random UUID per delivery, as Mercado Pago
 * sends, when unset.
 */
export function mercadoPagoSignatureScheme(
  tolerance = DEFAULT_TOLERANCE_SECONDS,
  requestId?: string,
): MercadoPagoSignatureScheme {
  const verifyNotification = (
    request: InboundWebhook,
    secrets: readonly string[],
  ): CheckedNotification => {
    const signature = parseMercadoPagoSignature(request.headers[SIGNATURE_HEADER]);
    const signedRequestId = requireRequestId(request.headers[REQUEST_ID_HEADER]);
    // NOTE: Mercado Pago signs data.id as it puts it in the URL's query, which it sets to the
    // body's data.id; the body's is the one handlers read, so it is the one checked.
    const notification = readNotification(request.rawBody);
    verifyMercadoPagoSignature(
      signature,
      { dataId: notification.dataId, requestId: signedRequestId },
      secrets,
      request.receivedAt,
      tolerance,
    );
    return notification;
  };
  return {
    verifyNotification,
    verify: (request, secrets) => {
      verifyNotification(request, secrets);
    },
    sign: (body, secret, timestamp) => {
      // NOTE: ts is written as given: Unix seconds, or milliseconds as on the Orders page.
      const ts = String(timestamp ?? Math.floor(Date.now() / 1000));
      const id = requestId ?? randomUUID();
      const v1 = mercadoPagoSignature(secret, { dataId: dataIdOf(body), requestId: id, ts });
      return { [SIGNATURE_HEADER]: `ts=${ts},v1=${v1}`, [REQUEST_ID_HEADER]: id };
    },
  };
}
