import { idempotencyRename, renamedOption } from '../core/deprecated-options';
import { applyDecorators, SetMetadata, UseInterceptors } from '@nestjs/common';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  DEFAULT_IDEMPOTENCY_LEASE_MS,
  DEFAULT_IDEMPOTENCY_TTL_MS,
  IDEMPOTENT_METADATA,
  MAX_IDEMPOTENCY_LEASE_MS,
  MAX_IDEMPOTENCY_TTL_MS,
  MIN_IDEMPOTENCY_LEASE_MS,
  MIN_IDEMPOTENCY_TTL_MS,
  SCOPE_PATTERN,
} from './idempotency.constants';
import { IdempotencyInterceptor } from './idempotency.interceptor';
import { INVALID_IDEMPOTENCY_OPTION } from './idempotency.messages';
import { resolveMillisecondsOption } from './milliseconds-option';
import type { ResolvedIdempotentOptions } from './resolved-idempotent-options';

/** Options of `@Idempotent()`. */
export interface IdempotentOptions<TRequest = Record<string, unknown>> {
  /**
   * Refuse a request without an `Idempotency-Key` header with 400. When false, such a request
   * runs as if the route were not idempotent.
   * @default false
   */
  required?: boolean;
  /**
   * How long a completed request's response is replayed, in ms: from 1 hour to 30 days. After
   * it, the key is forgotten (a request with it is new) and the retention job purges it.
   * @default 86400000 (24 hours)
   */
  ttlMs?: number;
  /** @deprecated since 1.0, removed in 2.0: use `ttlMs` (the same milliseconds). */
  ttl?: number;
  /**
   * Namespace of the route's keys, e.g. `'pay'` or `'refund'`: the same key sent to routes of
   * different scopes names different operations. Letters, digits and `_ . : -`, at most 64.
   * Within one scope a key reused on another route is refused with 422.
   * @default '' (one namespace shared by every route without a scope)
   */
  scope?: string;
  /**
   * Who sent the request (user, account, API client id), so that keys of different principals
   * never collide and one client can never receive another's stored response. Return
   * `undefined` for an anonymous request. Set it on every route of a multi-tenant API.
   * @default none: keys are shared by every caller of the scope
   */
  principal?: (request: TRequest) => string | undefined;
  /**
   * How long the key stays locked without renewal while the first request runs, in ms (1 s to
   * 1 hour). The lock is renewed while the handler runs, so only a crashed process lets it
   * lapse; then an identical request may take the key over.
   * @default 30000
   */
  leaseMs?: number;
  /** @deprecated since 1.0, removed in 2.0: use `leaseMs` (the same milliseconds). */
  lease?: number;
}

/**
 * Fills in the defaults of `@Idempotent()` options and checks them.
 * @throws WebhookConfigurationError naming the option and the accepted range.
 */
export function resolveIdempotentOptions<TRequest>(
  options: IdempotentOptions<TRequest> = {},
): ResolvedIdempotentOptions {
  const where = '@Idempotent()';
  if (options.required !== undefined && typeof options.required !== 'boolean') {
    throw new WebhookConfigurationError(
      INVALID_IDEMPOTENCY_OPTION(where, 'required', 'true or false', options.required),
    );
  }
  const scope = options.scope ?? '';
  if (typeof scope !== 'string' || !SCOPE_PATTERN.test(scope)) {
    throw new WebhookConfigurationError(
      INVALID_IDEMPOTENCY_OPTION(
        where,
        'scope',
        'at most 64 letters, digits or "_ . : -" (e.g. \'refund\')',
        options.scope,
      ),
    );
  }
  if (options.principal !== undefined && typeof options.principal !== 'function') {
    throw new WebhookConfigurationError(
      INVALID_IDEMPOTENCY_OPTION(
        where,
        'principal',
        'a function (request) => string | undefined',
        typeof options.principal,
      ),
    );
  }
  const ttlMs = resolveMillisecondsOption(
    where,
    'ttlMs',
    renamedOption(options.ttlMs, options.ttl, idempotencyRename(where, 'ttl'), where),
    DEFAULT_IDEMPOTENCY_TTL_MS,
    MIN_IDEMPOTENCY_TTL_MS,
    MAX_IDEMPOTENCY_TTL_MS,
    'a whole number of milliseconds from 3600000 (1 hour) to 2592000000 (30 days)',
  );
  const leaseMs = resolveMillisecondsOption(
    where,
    'leaseMs',
    renamedOption(options.leaseMs, options.lease, idempotencyRename(where, 'lease'), where),
    DEFAULT_IDEMPOTENCY_LEASE_MS,
    MIN_IDEMPOTENCY_LEASE_MS,
    MAX_IDEMPOTENCY_LEASE_MS,
    'a whole number of milliseconds from 1000 (1 second) to 3600000 (1 hour)',
  );
  return {
    required: options.required ?? false,
    ttlMs,
    scope,
    leaseMs,
    principal: options.principal as ((request: unknown) => string | undefined) | undefined,
  };
}

/**
 * Makes a POST (or any) route idempotent with the `Idempotency-Key` request header:
 *
 * - the first request with a key runs the handler and stores its answer (status,
 *   `Content-Type`, `Location` and the exact body bytes);
 * - a retry with the same key and the same request gets that answer again, byte for byte,
 *   with `Idempotent-Replayed: true`, and the handler does not run;
 * - a retry while the first is still running gets 409 with `Retry-After`;
 * - the same key with another method, path or body gets 422;
 * - a 5xx answer or an unhandled error is not stored: the key is released for a retry.
 *   Every other answer, 4xx included, is stored.
 *
 * Options are checked when the decorator is applied: a bad `ttlMs`, `leaseMs` or `scope` fails
 * at startup with a {@link WebhookConfigurationError}. The keys live in the tables of
 * `IdempotencyModule`: the app needs `IdempotencyModule.forRoot()` somewhere (the route's own
 * module need not import it), or startup fails naming it. The route's guards run before the key is looked at; its pipes run after, so a
 * validation 400 is the route's answer and is stored like the handler's own 4xx.
 *
 * @example
 * ```ts
 * @Post(':id/refund')
 * @Idempotent<AuthenticatedRequest>({ scope: 'refund', required: true, principal: (req) => req.user.id })
 * refund(@Param('id') id: string, @Body() dto: RefundDto) {
 *   return this.orders.refund(id, dto);
 * }
 * ```
 */
export function Idempotent<TRequest = Record<string, unknown>>(
  options: IdempotentOptions<TRequest> = {},
): MethodDecorator {
  return applyDecorators(
    SetMetadata(IDEMPOTENT_METADATA, resolveIdempotentOptions(options)),
    UseInterceptors(IdempotencyInterceptor),
  );
}
