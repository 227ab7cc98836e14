import { createHmac } from 'node:crypto';

/** Key or message bytes: a string is taken as its UTF-8 bytes, a `Uint8Array` as it is. */
export type ByteSource = string | Uint8Array;

/**
 * HMAC-SHA256 of the concatenation of `parts` under `key`, as raw digest bytes.
 * Every provider signs through this function, or through {@link hmacSha512} where its scheme
 * says SHA-512.
 *
 * Pass the raw body as the `Buffer` that arrived, e.g. `hmacSha256(secret, [`${t}.`, rawBody])`:
 * decoding it to a string and encoding it again would change bytes that are not valid UTF-8.
 */
export function hmacSha256(key: ByteSource, parts: readonly ByteSource[]): Buffer {
  return hmac('sha256', key, parts);
}

/** HMAC-SHA512 of the concatenation of `parts` under `key`, as {@link hmacSha256} does it. */
export function hmacSha512(key: ByteSource, parts: readonly ByteSource[]): Buffer {
  return hmac('sha512', key, parts);
}

function hmac(
  algorithm: 'sha256' | 'sha512',
  key: ByteSource,
  parts: readonly ByteSource[],
): Buffer {
  const mac = createHmac(algorithm, key);
  // NOTE: updating part by part gives the same MAC as hashing Buffer.concat(parts), without the copy.
  for (const part of parts) {
    mac.update(typeof part === 'string' ? Buffer.from(part, 'utf8') : part);
  }
  return mac.digest();
}
