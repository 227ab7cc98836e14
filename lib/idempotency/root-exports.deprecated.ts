/**
 * The idempotency names the root entry exported before they moved to
 * `nestjs-payment-webhooks/idempotency`, kept so existing imports compile. Each is the same
 * value (the same class, so injection and `instanceof` work) as the subpath's, marked
 * deprecated so editors point at the new import.
 */
import * as idempotency from './index';

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const Idempotent = idempotency.Idempotent;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const idempotencyKeyFor = idempotency.idempotencyKeyFor;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const DEFAULT_IDEMPOTENCY_TTL_MS = idempotency.DEFAULT_IDEMPOTENCY_TTL_MS;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const DEFAULT_IDEMPOTENT_CALL_TTL_MS = idempotency.DEFAULT_IDEMPOTENT_CALL_TTL_MS;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const MAX_IDEMPOTENCY_TTL_MS = idempotency.MAX_IDEMPOTENCY_TTL_MS;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const MIN_IDEMPOTENCY_TTL_MS = idempotency.MIN_IDEMPOTENCY_TTL_MS;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotentCall = idempotency.IdempotentCall;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotentCall = idempotency.IdempotentCall;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyEntity = idempotency.IdempotencyKeyEntity;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyEntity = idempotency.IdempotencyKeyEntity;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotentCallEntity = idempotency.IdempotentCallEntity;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotentCallEntity = idempotency.IdempotentCallEntity;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyFormatError = idempotency.IdempotencyKeyFormatError;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyFormatError = idempotency.IdempotencyKeyFormatError;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyInProgressError = idempotency.IdempotencyKeyInProgressError;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyInProgressError = idempotency.IdempotencyKeyInProgressError;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyInUseException = idempotency.IdempotencyKeyInUseException;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyInUseException = idempotency.IdempotencyKeyInUseException;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyMalformedException = idempotency.IdempotencyKeyMalformedException;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyMalformedException = idempotency.IdempotencyKeyMalformedException;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyMissingException = idempotency.IdempotencyKeyMissingException;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyMissingException = idempotency.IdempotencyKeyMissingException;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyKeyReusedException = idempotency.IdempotencyKeyReusedException;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyReusedException = idempotency.IdempotencyKeyReusedException;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyStoreUnavailableException =
  idempotency.IdempotencyStoreUnavailableException;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyStoreUnavailableException = idempotency.IdempotencyStoreUnavailableException;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const CreateIdempotencyTables1764560000000 =
  idempotency.CreateIdempotencyTables1764560000000;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type CreateIdempotencyTables1764560000000 = idempotency.CreateIdempotencyTables1764560000000;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export const IdempotencyStore = idempotency.IdempotencyStore;
/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyStore = idempotency.IdempotencyStore;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotentOptions<TRequest = Record<string, unknown>> =
  idempotency.IdempotentOptions<TRequest>;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotentCallOptions = idempotency.IdempotentCallOptions;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyPart = idempotency.IdempotencyKeyPart;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type CallClaim = idempotency.CallClaim;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type CallClaimResult = idempotency.CallClaimResult;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type KeyClaim = idempotency.KeyClaim;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type KeyClaimResult = idempotency.KeyClaimResult;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type PurgedIdempotencyRecords = idempotency.PurgedIdempotencyRecords;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type StoredResponse = idempotency.StoredResponse;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotencyKeyState = idempotency.IdempotencyKeyState;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type StoredBodyEncoding = idempotency.StoredBodyEncoding;

/** @deprecated Import it from `nestjs-payment-webhooks/idempotency`. */
export type IdempotentCallState = idempotency.IdempotentCallState;
