import { constantTimeIncludes } from '../core/constant-time';
import { ByteSource, hmacSha256, hmacSha512 } from '../core/hmac';
import { WebhookVerificationError } from '../core/webhook-errors';
import { SignatureScheme } from './define-provider';
import { InboundWebhook } from './webhook-provider.interface';

/**
 * How a provider signs a delivery with one header that holds the HMAC of the raw body (after a
 * fixed prefix, where it signs one) and nothing else, e.g. Razorpay's `X-Razorpay-Signature`.
 */
export interface BodySignatureHeader {
  /** The header's name as the provider spells it in its documentation, e.g. `'Cko-Signature'`. */
  readonly name: string;
  /** The HMAC's hash function. */
  readonly algorithm: 'sha256' | 'sha512';
  /** How the header writes the digest. */
  readonly encoding: 'hex' | 'base64';
  /**
   * Whether upper-case hex digits are refused as malformed (the provider only ever sends
   * lower case) instead of compared without regard to case. Only for `'hex'`.
   * @default false
   */
  readonly lowerCaseOnly?: boolean;
  /** A well-formed value as the "malformed" error describes it, e.g. `'64 hex digits (HMAC-SHA256)'`. */
  readonly shape: string;
  /** The error text when no secret's signature matches: it names what to check. */
  readonly mismatch: string;
}

const DIGEST_BYTES = { sha256: 32, sha512: 64 } as const;
const HMAC = { sha256: hmacSha256, sha512: hmacSha512 } as const;

/**
 * Verifies a delivery signed through a {@link BodySignatureHeader}: the header must equal the
 * HMAC, under any of `secrets`, of `prefix` (e.g. Square's notification URL) and the raw body,
 * compared in constant time against every secret.
 * @throws WebhookVerificationError `missing_signature` or `bad_signature`.
 */
export function assertBodySignature(
  request: InboundWebhook,
  header: BodySignatureHeader,
  secrets: readonly ByteSource[],
  prefix?: string,
): void {
  const value = request.headers[header.name.toLowerCase()]?.trim();
  if (value === undefined || value === '') {
    throw new WebhookVerificationError('missing_signature', `Missing ${header.name} header`);
  }
  if (!signaturePattern(header).test(value)) {
    throw new WebhookVerificationError(
      'bad_signature',
      `Malformed ${header.name} header: expected ${header.shape}`,
    );
  }
  const signed = prefix === undefined ? [request.rawBody] : [prefix, request.rawBody];
  const expected = secrets.map((secret) =>
    HMAC[header.algorithm](secret, signed).toString(header.encoding),
  );
  const candidate = header.encoding === 'hex' ? value.toLowerCase() : value;
  if (!constantTimeIncludes(expected, candidate)) {
    throw new WebhookVerificationError('bad_signature', header.mismatch);
  }
}

/** Exactly one digest of the header's algorithm, in its encoding (base64 padded). */
function signaturePattern(header: BodySignatureHeader): RegExp {
  const bytes = DIGEST_BYTES[header.algorithm];
  if (header.encoding === 'hex') {
    const digit = header.lowerCaseOnly ? '[0-9a-f]' : '[0-9a-fA-F]';
    return new RegExp(`^${digit}{${bytes * 2}}$`);
  }
  const padding = (3 - (bytes % 3)) % 3;
  return new RegExp(`^[A-Za-z0-9+/]{${Math.ceil(bytes / 3) * 4 - padding}}={${padding}}$`);
}

/**
 * The signature scheme of a {@link BodySignatureHeader}: the endpoint verifies with it and the
 * signers sign with it, from the one header definition.
 */
export function bodyHmacSignature(header: BodySignatureHeader): SignatureScheme {
  return {
    verify: (request, secrets) => assertBodySignature(request, header, secrets),
    sign: (body, secret) => ({
      [header.name.toLowerCase()]: HMAC[header.algorithm](secret, [body]).toString(header.encoding),
    }),
  };
}
