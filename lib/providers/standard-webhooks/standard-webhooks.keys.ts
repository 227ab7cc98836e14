import { KeyObject, createPublicKey } from 'node:crypto';
import { decodeCanonicalBase64 } from '../../core/base64';

/** Prefix of a symmetric (`v1`, HMAC-SHA256) secret as the spec serializes it. */
export const STANDARD_SECRET_PREFIX = 'whsec_';
/** Prefix of an asymmetric (`v1a`, Ed25519) public key as the spec serializes it. */
export const STANDARD_PUBLIC_KEY_PREFIX = 'whpk_';
/** Prefix of an asymmetric (`v1a`, Ed25519) secret key; it belongs to the sender only. */
export const STANDARD_SIGNING_KEY_PREFIX = 'whsk_';

/** Length of a raw Ed25519 public key, and of a private key's seed. */
export const ED25519_KEY_BYTES = 32;

/**
 * The HMAC key of a Standard Webhooks secret: the optional `whsec_` prefix stripped, the rest
 * base64-decoded. Undefined when the secret is not well-formed.
 */
export function decodeStandardWebhooksSecret(secret: string): Buffer | undefined {
  const encoded = secret.startsWith(STANDARD_SECRET_PREFIX)
    ? secret.slice(STANDARD_SECRET_PREFIX.length)
    : secret;
  return decodeCanonicalBase64(encoded);
}

/**
 * The Ed25519 key of a Standard Webhooks public key: `whpk_` followed by the base64 of the
 * 32-byte raw public key. Undefined when the text is not one.
 */
export function decodeStandardWebhooksPublicKey(text: string): KeyObject | undefined {
  if (!text.startsWith(STANDARD_PUBLIC_KEY_PREFIX)) return undefined;
  const raw = decodeCanonicalBase64(text.slice(STANDARD_PUBLIC_KEY_PREFIX.length));
  if (raw?.length !== ED25519_KEY_BYTES) return undefined;
  try {
    return createPublicKey({
      key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') },
      format: 'jwk',
    });
  } catch {
    return undefined;
  }
}
