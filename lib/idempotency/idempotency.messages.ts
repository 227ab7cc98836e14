/** Idempotency error texts. Each one says what went wrong and how to fix it. */

export const INVALID_IDEMPOTENCY_OPTION = (
  where: string,
  option: string,
  rule: string,
  value: unknown,
) => `${where} option \`${option}\` must be ${rule} (got ${JSON.stringify(value)}).`;

export const KEY_REQUIRED =
  'This request needs an Idempotency-Key header: send a unique value (e.g. a UUID) per operation, ' +
  'and the same value when you retry it.';

export const KEY_MALFORMED =
  'The Idempotency-Key header must be 1 to 255 visible ASCII characters (a UUID is a good choice), ' +
  'optionally in double quotes.';

export const KEY_IN_PROGRESS =
  'A request with this Idempotency-Key is still being processed: retry after it has finished ' +
  '(see Retry-After) to receive its response.';

export const OPERATION_IN_PROGRESS =
  'This operation is already in progress (started by another request); retry after it has ' +
  'finished (see Retry-After) to receive its outcome.';

export const KEY_REUSED =
  'This Idempotency-Key was already used for a different request (another method, path or body). ' +
  'Send a new key for a new request; reuse a key only to retry the identical request.';

export const KEY_STORE_UNAVAILABLE =
  'The Idempotency-Key could not be recorded, so the request was not processed; retry later ' +
  'with the same key.';

export const CALL_KEY_MALFORMED = (key: string) =>
  `IdempotentCall key ${JSON.stringify(key.slice(0, 300))} must be 1 to 255 visible ASCII ` +
  'characters: build it with idempotencyKeyFor(scope, ...parts).';

export const CALL_IN_PROGRESS = (key: string, retryAfterMs: number) =>
  `The call with idempotency key "${key}" is in progress elsewhere; retry in ${retryAfterMs} ms ` +
  '(a crashed attempt is taken over once its lease runs out).';

export const INVALID_KEY_SCOPE = (scope: unknown) =>
  `idempotencyKeyFor() scope must be 1 to 64 letters, digits or "_ . : -" (got ${JSON.stringify(scope)}), ` +
  "e.g. 'pay', 'refund' or 'capture'.";

export const NO_KEY_PARTS =
  'idempotencyKeyFor() needs at least one part that identifies the operation, e.g. ' +
  "idempotencyKeyFor('refund', order.id, refundNumber).";

export const MISSING_IDEMPOTENCY_TABLES =
  'The idempotency tables do not exist: add `...idempotencyMigrations` (from ' +
  "nestjs-payment-webhooks/idempotency) to the data source's `migrations`, after " +
  '`...webhooksMigrations`, and set `migrationsRun: true`, or run them with the TypeORM CLI. ' +
  'TypeORM `synchronize` does not create them: the migrations do.';

export const NO_IDEMPOTENCY_MODULE =
  '@Idempotent() routes need IdempotencyModule in the application: add ' +
  "IdempotencyModule.forRoot() (from nestjs-payment-webhooks/idempotency) to the app's imports, " +
  "and `...idempotencyMigrations` to the data source's `migrations`.";
