import { decodeCanonicalBase64 } from '../../core/base64';
import { constantTimeIncludes } from '../../core/constant-time';
import { ByteSource, hmacSha256 } from '../../core/hmac';
import { assertTimestampWithinWindow, parseUnixSeconds } from '../../core/timestamp-window';
import { WebhookVerificationError } from '../../core/webhook-errors';
import { SignatureScheme } from '../define-provider';
import { DEFAULT_TOLERANCE_SECONDS } from '../provider-options';
import { InboundWebhook } from '../webhook-provider.interface';

/** How the signature bytes are written in the header. */
export type HmacSignatureEncoding = 'hex' | 'base64';

const HEX_SHA256 = /^[0-9a-fA-F]{64}$/;
const SHA256_BYTES = 32;

/** The signature of an `hmacEndpoint()`, as its options configure it. */
export interface HmacSignatureSettings {
  /** Header carrying the signature. */
  readonly signatureHeader: string;
  /** Text before the signature in the header; none when the header is the bare signature. */
  readonly signaturePrefix?: string;
  /** How the signature bytes are written. */
  readonly encoding: HmacSignatureEncoding;
  /** Header carrying the signed Unix seconds; none when the body alone is signed. */
  readonly timestampHeader?: string;
  /**
   * Seconds the signed time may lie from the receive time; `0` switches the check off.
   * @default 300
   */
  readonly tolerance?: number;
}

/** The scheme of an `hmacEndpoint()`; it signs bytes as well as text (`signHmac()`). */
export interface HmacSignatureScheme extends SignatureScheme {
  sign(body: ByteSource, secret: string, timestamp?: number): Record<string, string>;
}

function nonEmptyHeader(request: InboundWebhook, name: string): string | undefined {
  const value = request.headers[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The signature bytes written in `encoded`, or undefined when it is not a SHA-256 MAC. */
function decodeSignature(encoded: string, encoding: HmacSignatureEncoding): Buffer | undefined {
  if (encoding === 'hex') {
    return HEX_SHA256.test(encoded) ? Buffer.from(encoded, 'hex') : undefined;
  }
  const bytes = decodeCanonicalBase64(encoded);
  return bytes?.length === SHA256_BYTES ? bytes : undefined;
}

/**
 * The HMAC-SHA256 of the raw body (after `<timestamp>.` when a timestamp header is configured)
 * in one header, after an optional prefix: the endpoint verifies with it and the signers sign
 * with it, from the one set of options.
 */
export function hmacSignature(settings: HmacSignatureSettings): HmacSignatureScheme {
  const { signaturePrefix, encoding } = settings;
  const signatureHeader = settings.signatureHeader.toLowerCase();
  const timestampHeader = settings.timestampHeader?.toLowerCase();
  const tolerance = settings.tolerance ?? DEFAULT_TOLERANCE_SECONDS;
  return {
    verify(request: InboundWebhook, secrets: readonly string[]): void {
      const header = nonEmptyHeader(request, signatureHeader);
      if (header === undefined) {
        throw new WebhookVerificationError(
          'missing_signature',
          `Missing ${signatureHeader} header`,
        );
      }
      let timestampText: string | undefined;
      let timestamp: number | undefined;
      if (timestampHeader !== undefined) {
        timestampText = nonEmptyHeader(request, timestampHeader);
        if (timestampText === undefined) {
          throw new WebhookVerificationError(
            'missing_signature',
            `Missing ${timestampHeader} header`,
          );
        }
        timestamp = parseUnixSeconds(timestampText);
        if (timestamp === undefined) {
          throw new WebhookVerificationError(
            'bad_signature',
            `Malformed ${timestampHeader} header: expected Unix seconds`,
          );
        }
      }
      if (signaturePrefix !== undefined && !header.startsWith(signaturePrefix)) {
        throw new WebhookVerificationError(
          'bad_signature',
          `Malformed ${signatureHeader} header: expected it to start with "${signaturePrefix}"`,
        );
      }
      const candidate = decodeSignature(header.slice(signaturePrefix?.length ?? 0), encoding);
      if (candidate === undefined) {
        throw new WebhookVerificationError(
          'bad_signature',
          `Malformed ${signatureHeader} header: expected a ${encoding} HMAC-SHA256`,
        );
      }
      const parts =
        timestampText === undefined ? [request.rawBody] : [`${timestampText}.`, request.rawBody];
      const expected = secrets.map((secret) => hmacSha256(secret, parts));
      if (!constantTimeIncludes(expected, candidate)) {
        throw new WebhookVerificationError(
          'bad_signature',
          `${signatureHeader} does not match the payload and the secret`,
        );
      }
      if (timestamp !== undefined) {
        assertTimestampWithinWindow(timestamp, request.receivedAt, tolerance);
      }
    },
    sign(body: ByteSource, secret: string, timestamp?: number): Record<string, string> {
      const headers: Record<string, string> = {};
      const parts: ByteSource[] = [body];
      if (timestampHeader !== undefined) {
        const time = timestamp ?? Math.floor(Date.now() / 1000);
        headers[timestampHeader] = String(time);
        parts.unshift(`${time}.`);
      }
      const signature = hmacSha256(secret, parts).toString(encoding);
      headers[signatureHeader] = `${signaturePrefix ?? ''}${signature}`;
      return headers;
    },
  };
}
