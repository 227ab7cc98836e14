/** Metadata key under which `@Idempotent` stores its resolved options. */
export const IDEMPOTENT_METADATA = 'nestjs-payment-webhooks:idempotent';

/** The request header carrying the client's key. */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';

/** The response header set on a replayed response. */
export const IDEMPOTENT_REPLAYED_HEADER = 'Idempotent-Replayed';

/** Response headers stored with a completed request and sent again on a replay. */
export const STORED_RESPONSE_HEADERS: readonly string[] = ['content-type', 'location'];

const HOUR_MS = 60 * 60 * 1000;

/** Shortest key lifetime `@Idempotent` and `IdempotentCall` accept: one hour. */
export const MIN_IDEMPOTENCY_TTL_MS = HOUR_MS;

/** Longest key lifetime `@Idempotent` and `IdempotentCall` accept: 30 days. */
export const MAX_IDEMPOTENCY_TTL_MS = 30 * 24 * HOUR_MS;

/** How long a completed request's key is kept when `ttlMs` is not given: 24 hours. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = 24 * HOUR_MS;

/**
 * How long an outgoing call's outcome is kept when `ttlMs` is not given: 30 days, so a retry
 * within any provider's key window finds the stored result instead of calling out again.
 */
export const DEFAULT_IDEMPOTENT_CALL_TTL_MS = MAX_IDEMPOTENCY_TTL_MS;

/** Shortest lease accepted: one second. */
export const MIN_IDEMPOTENCY_LEASE_MS = 1000;

/** Longest lease accepted: one hour. */
export const MAX_IDEMPOTENCY_LEASE_MS = HOUR_MS;

/**
 * How long an in-progress key stays locked without renewal: 30 s. The holder renews it while
 * the work runs, so only a crashed process lets it lapse.
 */
export const DEFAULT_IDEMPOTENCY_LEASE_MS = 30_000;

/** Seconds a client is told to wait (`Retry-After`) when its key is still in progress. */
export const IN_PROGRESS_RETRY_AFTER_SECONDS = 1;

/** Longest key accepted, in characters (Stripe's limit). */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;

/** Longest principal stored as given; a longer one is stored as its SHA-256. */
export const MAX_PRINCIPAL_LENGTH = 255;

/** Scope names: letters, digits and `_ . : -`, at most 64 characters (may be empty). */
export const SCOPE_PATTERN = /^[A-Za-z0-9_.:-]{0,64}$/;

/** A key: 1 to 255 visible ASCII characters. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;
