import { idempotencyRename, renamedOption } from '../core/deprecated-options';
import { Inject, Injectable } from '@nestjs/common';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENT_CALL_TTL_MS,
  IDEMPOTENCY_KEY_PATTERN,
  MAX_IDEMPOTENCY_LEASE_MS,
  MAX_IDEMPOTENCY_TTL_MS,
  MIN_IDEMPOTENCY_LEASE_MS,
  MIN_IDEMPOTENCY_TTL_MS,
  SCOPE_PATTERN,
} from './idempotency.constants';
import { IdempotencyKeyFormatError, IdempotencyKeyInProgressError } from './idempotency.errors';
import { INVALID_IDEMPOTENCY_OPTION } from './idempotency.messages';
import { IdempotencyStore } from './idempotency-store.port';
import { resolveMillisecondsOption } from './milliseconds-option';
import { SafeLogger } from '../telemetry/safe-logger';

/** Options of `IdempotentCall.run()`. */
export interface IdempotentCallOptions {
  /**
   * The kind of operation, stored with the call: keys are unique per scope.
   * @default the key's prefix before its first `_` (the scope given to `idempotencyKeyFor`)
   */
  scope?: string;
  /**
   * How long the outcome is kept, in ms (1 hour to 30 days). Keep it at least as long as the
   * operation may be retried: after it, a call with the key runs again.
   * @default 2592000000 (30 days)
   */
  ttlMs?: number;
  /** @deprecated since 1.0, removed in 2.0: use `ttlMs` (the same milliseconds). */
  ttl?: number;
  /**
   * How long the call stays locked without renewal, in ms (1 s to 1 hour). Renewed while `fn`
   * runs, so only a crashed process lets it lapse; then another attempt may take it over.
   * @default 30000
   */
  leaseMs?: number;
  /** @deprecated since 1.0, removed in 2.0: use `leaseMs` (the same milliseconds). */
  lease?: number;
}

const WHERE = 'IdempotentCall.run()';

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The prefix `idempotencyKeyFor` puts before the digest, when the key has one. */
function scopeOfKey(key: string): string {
  const separator = key.indexOf('_');
  const prefix = separator > 0 ? key.slice(0, separator) : '';
  return SCOPE_PATTERN.test(prefix) ? prefix : '';
}

/**
 * Calls out to a provider once per idempotency key: the pattern for charges and refunds.
 * A call is `in_progress` while one attempt runs, `done` with its stored result, or `failed`:
 *
 * - `done`: `run()` returns the stored result and does not call out again;
 * - `in_progress` (another attempt, here or in another instance): `run()` throws
 *   {@link IdempotencyKeyInProgressError} with `retryAfterMs`;
 * - `failed`, or an attempt that crashed and whose lease ran out: `run()` calls out again.
 *
 * Pass the same key to the provider as its `Idempotency-Key`: if an attempt crashed after the
 * provider acted, the retry reaches the provider with the same key and it answers with the
 * first result instead of acting twice. Build keys with `idempotencyKeyFor()`.
 *
 * Results are stored as JSON, and `run()` returns the JSON form on the first call too, so a
 * result reads the same whether it was just made or replayed: return plain data (ids,
 * statuses, amounts). Return a provider's refusal (declined, insufficient funds) as a value,
 * which is final; throw only for failures worth retrying (network, 5xx, timeouts).
 *
 * Call it outside any transaction: the call is a step of its own, recorded before and after.
 * On SQLite, calling it inside `WebhookTransactions.run()` or a payment-event handler would
 * wait on the connection that transaction holds.
 */
@Injectable()
export class IdempotentCall {
  private readonly logger = new SafeLogger('IdempotentCall');

  constructor(@Inject(IdempotencyStore) private readonly store: IdempotencyStore) {}

  /**
   * Runs `fn(key)` unless a call with `key` already succeeded (then returns its stored result).
   *
   * @throws IdempotencyKeyInProgressError when another attempt with the key is running.
   * @throws IdempotencyKeyFormatError when the key is not 1 to 255 visible ASCII characters.
   * @throws WebhookConfigurationError for an option out of its range.
   * @throws whatever `fn` throws (the call is then `failed` and may be retried), or a
   *   `TypeError` when its result cannot be stored as JSON.
   *
   * @example
   * ```ts
   * const key = idempotencyKeyFor('refund', order.id);
   * const refund = await this.calls.run(key, (key) =>
   *   this.provider.refunds.create({ payment: order.paymentRef, amount }, { idempotencyKey: key }),
   * );
   * ```
   */
  async run<T>(
    key: string,
    fn: (key: string) => Promise<T> | T,
    options: IdempotentCallOptions = {},
  ): Promise<T> {
    if (typeof key !== 'string' || !IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new IdempotencyKeyFormatError(String(key));
    }
    const scope = options.scope ?? scopeOfKey(key);
    if (typeof scope !== 'string' || !SCOPE_PATTERN.test(scope)) {
      throw new WebhookConfigurationError(
        INVALID_IDEMPOTENCY_OPTION(
          WHERE,
          'scope',
          'at most 64 letters, digits or "_ . : -"',
          options.scope,
        ),
      );
    }
    const ttlMs = resolveMillisecondsOption(
      WHERE,
      'ttlMs',
      renamedOption(options.ttlMs, options.ttl, idempotencyRename(WHERE, 'ttl'), WHERE),
      DEFAULT_IDEMPOTENT_CALL_TTL_MS,
      MIN_IDEMPOTENCY_TTL_MS,
      MAX_IDEMPOTENCY_TTL_MS,
    );
    const leaseMs = resolveMillisecondsOption(
      WHERE,
      'leaseMs',
      renamedOption(options.leaseMs, options.lease, idempotencyRename(WHERE, 'lease'), WHERE),
      DEFAULT_IDEMPOTENCY_LEASE_MS,
      MIN_IDEMPOTENCY_LEASE_MS,
      MAX_IDEMPOTENCY_LEASE_MS,
    );
    const claim = await this.store.claimCall({ scope, key, ttlMs, leaseMs, now: new Date() });
    switch (claim.outcome) {
      case 'done':
        return (claim.result === null ? undefined : JSON.parse(claim.result)) as T;
      case 'in_progress':
        throw new IdempotencyKeyInProgressError(
          key,
          Math.max(1, claim.lockedUntil.getTime() - Date.now()),
        );
      case 'acquired':
        return this.attempt(claim.id, claim.token, key, fn, leaseMs);
    }
  }

  private async attempt<T>(
    id: string,
    token: string,
    key: string,
    fn: (key: string) => Promise<T> | T,
    leaseMs: number,
  ): Promise<T> {
    const renewal = setInterval(
      () => {
        this.store
          .extendCallLease(id, token, new Date(Date.now() + leaseMs))
          .catch((error: Error) =>
            this.logger.warn(`Could not renew the lease of call "${key}": ${error.message}`),
          );
      },
      Math.max(Math.floor(leaseMs / 3), 250),
    );
    renewal.unref();
    let json: string | null;
    try {
      const value = await fn(key);
      try {
        json = JSON.stringify(value) ?? null;
      } catch (error) {
        throw new TypeError(
          `The result of call "${key}" cannot be stored as JSON (${(error as Error).message}): ` +
            'return plain data (ids, statuses, amounts)',
        );
      }
    } catch (error) {
      clearInterval(renewal);
      await this.store
        .failCall(id, token, describe(error), new Date())
        .catch((failure: Error) =>
          this.logger.error(`Could not record the failure of call "${key}": ${failure.message}`),
        );
      throw error;
    }
    clearInterval(renewal);
    const finished = await this.store.finishCall(id, token, json, new Date());
    if (!finished) {
      this.logger.warn(
        `Call "${key}" was taken over by another attempt after its lease ran out; ` +
          'both reached the provider with the same key',
      );
    }
    return (json === null ? undefined : JSON.parse(json)) as T;
  }
}
