import { timingSafeEqual } from 'node:crypto';

/**
 * Compares two byte strings in time that depends only on their lengths.
 * Every signature comparison in the package goes through this one function.
 */
export function constantTimeEqual(a: Uint8Array | string, b: Uint8Array | string): boolean {
  const left = typeof a === 'string' ? Buffer.from(a, 'utf8') : a;
  const right = typeof b === 'string' ? Buffer.from(b, 'utf8') : b;
  if (left.length !== right.length) {
    // NOTE: compare against itself so a length mismatch costs the same as a content mismatch.
    timingSafeEqual(left, left);
    return false;
  }
  return timingSafeEqual(left, right);
}

/** True when `candidate` equals any of `expected`, each compared in constant time. */
export function constantTimeIncludes(
  expected: readonly (Uint8Array | string)[],
  candidate: Uint8Array | string,
): boolean {
  return constantTimeMatchAny(expected, [candidate]);
}

/**
 * True when any candidate equals any expected value. Senders rotating secrets put one signature
 * per secret in a header, and receivers hold a list of secrets: every pair is compared, with no
 * early exit.
 */
export function constantTimeMatchAny(
  expected: readonly (Uint8Array | string)[],
  candidates: readonly (Uint8Array | string)[],
): boolean {
  let found = false;
  // NOTE: no early exit, so the time does not tell which pair matched.
  for (const candidate of candidates) {
    for (const value of expected) {
      if (constantTimeEqual(value, candidate)) {
        found = true;
      }
    }
  }
  return found;
}
