import { createHash } from 'node:crypto';
import { INVALID_KEY_SCOPE, NO_KEY_PARTS } from './idempotency.messages';

/** What identifies an operation: ids, numbers, amounts. */
export type IdempotencyKeyPart = string | number | bigint;

const KEY_SCOPE_PATTERN = /^[A-Za-z0-9_.:-]{1,64}$/;

/** Characters of the SHA-256 (base64url) kept in a key: 192 bits. */
const DIGEST_LENGTH = 32;

/**
 * A deterministic idempotency key for an outgoing operation: `${scope}_` followed by 32
 * base64url characters of the SHA-256 of the parts. The same operation always gets the same
 * key, so a retry (in this process, after a crash, or from another instance) reaches the
 * provider with the key of the first attempt and the provider applies it once.
 *
 * Build it on the calling side from what identifies the operation (the order and which refund
 * of it), never reuse the payment's own id as the key, and use one scope per kind of operation
 * (`pay`, `refund`, `capture`) so keys of different operations never collide. Parts are
 * compared as strings: `5` and `'5'` give the same key.
 *
 * @throws TypeError when the scope is not 1 to 64 letters, digits or `_ . : -`, when no part
 *   is given, or when a part is empty, `null`, `undefined` or a non-finite number (a missing
 *   id would otherwise give many operations one key).
 *
 * @example
 * ```ts
 * const key = idempotencyKeyFor('refund', order.id, 1); // 'refund_pJ3…' (39 characters)
 * await calls.run(key, (key) => provider.refunds.create({ payment, amount }, { idempotencyKey: key }));
 * ```
 */
export function idempotencyKeyFor(scope: string, ...parts: IdempotencyKeyPart[]): string {
  if (typeof scope !== 'string' || !KEY_SCOPE_PATTERN.test(scope)) {
    throw new TypeError(INVALID_KEY_SCOPE(scope));
  }
  if (parts.length === 0) {
    throw new TypeError(NO_KEY_PARTS);
  }
  const texts = parts.map((part, index) => {
    const valid =
      (typeof part === 'string' && part.length > 0) ||
      (typeof part === 'number' && Number.isFinite(part)) ||
      typeof part === 'bigint';
    if (!valid) {
      throw new TypeError(
        `idempotencyKeyFor('${scope}', ...) part ${index + 1} is ${JSON.stringify(part) ?? String(part)}: ` +
          'every part must be a non-empty string or a finite number (is an id missing?).',
      );
    }
    return String(part);
  });
  // NOTE: JSON keeps the parts apart: ('a_b', 'c') and ('a', 'b_c') never share a key.
  const digest = createHash('sha256').update(JSON.stringify(texts)).digest('base64url');
  return `${scope}_${digest.slice(0, DIGEST_LENGTH)}`;
}
