import { CALL_IN_PROGRESS, CALL_KEY_MALFORMED } from './idempotency.messages';

/**
 * Thrown by `IdempotentCall.run()` when another attempt of the same call is running (in this
 * or another instance). Nothing was called; retry after `retryAfterMs`. Escaping an
 * `@Idempotent` route it is answered with 409 and `Retry-After`, and the route's key is
 * released; escaping a payment-event handler it is retried like any other error.
 */
export class IdempotencyKeyInProgressError extends Error {
  constructor(
    /** The call's idempotency key. */
    readonly key: string,
    /** How long until the running attempt's lease ends, in ms (at least 1). */
    readonly retryAfterMs: number,
  ) {
    super(CALL_IN_PROGRESS(key, retryAfterMs));
    this.name = 'IdempotencyKeyInProgressError';
  }
}

/** Thrown by `IdempotentCall.run()` for a key that is not 1 to 255 visible ASCII characters. */
export class IdempotencyKeyFormatError extends Error {
  constructor(key: string) {
    super(CALL_KEY_MALFORMED(key));
    this.name = 'IdempotencyKeyFormatError';
  }
}
