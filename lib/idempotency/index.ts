/**
 * `nestjs-payment-webhooks/idempotency`: `IdempotencyModule`, `@Idempotent()` and
 * `IdempotentCall`, with their entities, migrations, types and errors. The interceptor, the
 * TypeORM store, the fingerprint and the response capture stay private.
 */
export { IdempotencyModule } from './idempotency.module';
export { IDEMPOTENCY_MODULE_OPTIONS } from './idempotency.module-definition';
export type {
  IdempotencyModuleExtras,
  IdempotencyModuleOptions,
} from './idempotency-module-options.interface';
export { Idempotent } from './idempotent.decorator';
export type { IdempotentOptions } from './idempotent.decorator';
export { IdempotentCall } from './idempotent-call.service';
export type { IdempotentCallOptions } from './idempotent-call.service';
export { idempotencyKeyFor } from './idempotency-key-for';
export type { IdempotencyKeyPart } from './idempotency-key-for';
export { IdempotencyStore } from './idempotency-store.port';
export type {
  CallClaim,
  CallClaimResult,
  KeyClaim,
  KeyClaimResult,
  PurgedIdempotencyRecords,
  StoredResponse,
} from './idempotency-store.port';
export { IdempotencyKeyEntity, IdempotentCallEntity, idempotencyEntities } from './entities';
export type { IdempotencyKeyState, StoredBodyEncoding } from './entities/idempotency-key.entity';
export type { IdempotentCallState } from './entities/idempotent-call.entity';
export { idempotencyMigrations, CreateIdempotencyTables1764560000000 } from './migrations';
export { IdempotencyKeyFormatError, IdempotencyKeyInProgressError } from './idempotency.errors';
export {
  IdempotencyKeyInUseException,
  IdempotencyKeyMalformedException,
  IdempotencyKeyMissingException,
  IdempotencyKeyReusedException,
  IdempotencyStoreUnavailableException,
} from './idempotency.exceptions';
export {
  DEFAULT_IDEMPOTENCY_TTL_MS,
  DEFAULT_IDEMPOTENT_CALL_TTL_MS,
  MAX_IDEMPOTENCY_TTL_MS,
  MIN_IDEMPOTENCY_TTL_MS,
} from './idempotency.constants';
