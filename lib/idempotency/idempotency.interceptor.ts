import { createHash } from 'node:crypto';
import { IncomingHttpHeaders } from 'node:http';
import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  OnModuleInit,
  StreamableFile,
} from '@nestjs/common';
import { HttpAdapterHost, ModuleRef, Reflector } from '@nestjs/core';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { Observable, catchError, finalize, from, of, switchMap, throwError } from 'rxjs';
import {
  IDEMPOTENCY_KEY_HEADER,
  IDEMPOTENT_METADATA,
  IDEMPOTENT_REPLAYED_HEADER,
  IN_PROGRESS_RETRY_AFTER_SECONDS,
  MAX_PRINCIPAL_LENGTH,
  STORED_RESPONSE_HEADERS,
} from './idempotency.constants';
import { IdempotencyKeyInProgressError } from './idempotency.errors';
import { NO_IDEMPOTENCY_MODULE, OPERATION_IN_PROGRESS } from './idempotency.messages';
import {
  IdempotencyKeyInUseException,
  IdempotencyKeyMalformedException,
  IdempotencyKeyMissingException,
  IdempotencyKeyReusedException,
  IdempotencyStoreUnavailableException,
} from './idempotency.exceptions';
import { IdempotencyStore, KeyClaimResult, StoredResponse } from './idempotency-store.port';
import type { ResolvedIdempotentOptions } from './resolved-idempotent-options';
import {
  FingerprintedRequest,
  parseIdempotencyKey,
  requestFingerprint,
} from './request-fingerprint';
import {
  PlatformResponse,
  captureResponse,
  platformHeader,
  rawResponseOf,
  setPlatformHeader,
} from './response-capture';
import { SafeLogger } from '../telemetry/safe-logger';

/** The parts of an Express or Fastify request the interceptor reads. */
interface IdempotentRequest extends FingerprintedRequest {
  headers: IncomingHttpHeaders;
}

/** A held key: the row and the token that proves this request holds it. */
interface HeldKey {
  readonly id: string;
  readonly token: string;
  readonly scope: string;
  readonly key: string;
}

/**
 * The interceptor behind `@Idempotent()`: takes the request's key (one atomic statement),
 * then runs the handler and stores the answer, or replays a stored answer, or refuses with
 * 409 or 422. Use it through the decorator, which also stores the route's options.
 */
@Injectable()
export class IdempotencyInterceptor implements NestInterceptor, OnModuleInit {
  private readonly logger = new SafeLogger('Idempotency');
  private store!: IdempotencyStore;

  constructor(
    private readonly reflector: Reflector,
    private readonly adapterHost: HttpAdapterHost,
    private readonly moduleRef: ModuleRef,
  ) {}

  /**
   * Finds the store `IdempotencyModule` registered, wherever it is: an `@Idempotent` route may
   * live in any module of the app, without importing `IdempotencyModule` again.
   * @throws WebhookConfigurationError at startup when the app has no `IdempotencyModule`.
   */
  onModuleInit(): void {
    try {
      this.store = this.moduleRef.get<IdempotencyStore>(IdempotencyStore, { strict: false });
    } catch {
      throw new WebhookConfigurationError(NO_IDEMPOTENCY_MODULE);
    }
  }

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const options = this.reflector.get<ResolvedIdempotentOptions | undefined>(
      IDEMPOTENT_METADATA,
      context.getHandler(),
    );
    if (!options || context.getType() !== 'http') {
      return next.handle();
    }
    const http = context.switchToHttp();
    const request = http.getRequest<IdempotentRequest>();
    const response = http.getResponse<PlatformResponse>();
    const key = parseIdempotencyKey(request.headers[IDEMPOTENCY_KEY_HEADER]);
    if (key === null) {
      throw new IdempotencyKeyMalformedException();
    }
    if (key === undefined) {
      if (options.required) {
        throw new IdempotencyKeyMissingException();
      }
      return next.handle();
    }
    const principal = principalOf(options, request);
    return from(this.claim(options, request, principal, key)).pipe(
      switchMap((claim) => {
        switch (claim.outcome) {
          case 'acquired':
            return this.runHandler(
              { id: claim.id, token: claim.token, scope: options.scope, key },
              options,
              response,
              next,
            );
          case 'completed':
            return this.replay(response, claim.response);
          case 'in_progress':
            setPlatformHeader(response, 'Retry-After', String(IN_PROGRESS_RETRY_AFTER_SECONDS));
            return throwError(() => new IdempotencyKeyInUseException());
          case 'mismatch':
            return throwError(() => new IdempotencyKeyReusedException());
        }
      }),
    );
  }

  private async claim(
    options: ResolvedIdempotentOptions,
    request: IdempotentRequest,
    principal: string,
    key: string,
  ): Promise<KeyClaimResult> {
    try {
      return await this.store.claimKey({
        scope: options.scope,
        principal,
        key,
        fingerprint: requestFingerprint(request),
        ttlMs: options.ttlMs,
        leaseMs: options.leaseMs,
        now: new Date(),
      });
    } catch (error) {
      this.logger.error(
        `Could not record Idempotency-Key in scope "${options.scope}": ${(error as Error).message}`,
      );
      throw new IdempotencyStoreUnavailableException();
    }
  }

  /**
   * Runs the handler for a key this request holds: renews the lease while it runs and, when
   * the response is about to end, stores it (or releases the key after a 5xx).
   */
  private runHandler(
    held: HeldKey,
    options: ResolvedIdempotentOptions,
    response: PlatformResponse,
    next: CallHandler,
  ): Observable<unknown> {
    const raw = rawResponseOf(response);
    const renewal = setInterval(
      () => {
        this.store
          .extendKeyLease(held.id, held.token, new Date(Date.now() + options.leaseMs))
          .catch((error: Error) =>
            this.logger.warn(
              `Could not renew the lease of Idempotency-Key "${held.key}": ${error.message}`,
            ),
          );
      },
      Math.max(Math.floor(options.leaseMs / 3), 250),
    );
    renewal.unref();
    let release = false;
    let handlerSettled = false;
    let connectionClosed = false;
    // NOTE: when the client is gone and nothing will be sent, the lease is left to run out,
    // which makes the key available again; a response that still ends later is stored.
    const stopWhenAbandoned = () => {
      if (handlerSettled && connectionClosed) {
        clearInterval(renewal);
      }
    };
    raw.once('close', () => {
      connectionClosed = true;
      stopWhenAbandoned();
    });
    captureResponse(raw, async (body) => {
      clearInterval(renewal);
      await this.settle(held, response, raw.statusCode, body, release);
    });
    return next.handle().pipe(
      catchError((error: unknown) => {
        if (error instanceof IdempotencyKeyInProgressError) {
          // NOTE: an outgoing call of this operation is running elsewhere: the operation is
          // not finished, so its 409 is not the answer to keep.
          release = true;
          setPlatformHeader(
            response,
            'Retry-After',
            String(Math.max(1, Math.ceil(error.retryAfterMs / 1000))),
          );
          return throwError(() => new IdempotencyKeyInUseException(OPERATION_IN_PROGRESS));
        }
        return throwError(() => error);
      }),
      finalize(() => {
        handlerSettled = true;
        setImmediate(stopWhenAbandoned);
      }),
    );
  }

  /** Stores the answer of a held key, or releases the key after a 5xx. Never throws. */
  private async settle(
    held: HeldKey,
    response: PlatformResponse,
    status: number,
    body: Buffer,
    release: boolean,
  ): Promise<void> {
    try {
      if (release || status >= 500) {
        await this.store.releaseKey(held.id, held.token);
        return;
      }
      const headers: Record<string, string> = {};
      for (const name of STORED_RESPONSE_HEADERS) {
        const value = platformHeader(response, name);
        if (value !== undefined) {
          headers[name] = value;
        }
      }
      const stored = await this.store.completeKey(held.id, held.token, { status, headers, body });
      if (!stored) {
        this.logger.warn(
          `Idempotency-Key "${held.key}" (scope "${held.scope}") was taken over after its lease ` +
            'ran out; this response was sent but not stored',
        );
      }
    } catch (error) {
      this.logger.error(
        `Could not store the response for Idempotency-Key "${held.key}" (scope "${held.scope}"); ` +
          `it was sent, and the key frees up when its lease runs out: ${(error as Error).message}`,
      );
    }
  }

  /** Sends a stored answer again: same status, headers and body bytes. */
  private replay(response: PlatformResponse, stored: StoredResponse): Observable<unknown> {
    this.adapterHost.httpAdapter.status(response, stored.status);
    for (const [name, value] of Object.entries(stored.headers)) {
      setPlatformHeader(response, name, value);
    }
    setPlatformHeader(response, IDEMPOTENT_REPLAYED_HEADER, 'true');
    // NOTE: sent as a stream of the stored bytes, so neither platform re-encodes the body or
    // rewrites its content type.
    return of(
      stored.body.length === 0
        ? undefined
        : new StreamableFile(stored.body, { length: stored.body.length }),
    );
  }
}

/** The request's principal as stored: as given, hashed when longer than the column. */
function principalOf(options: ResolvedIdempotentOptions, request: IdempotentRequest): string {
  const principal = options.principal?.(request) ?? '';
  if (typeof principal !== 'string') {
    throw new TypeError(
      `The @Idempotent() principal extractor returned ${typeof principal}; return a string or undefined`,
    );
  }
  return principal.length > MAX_PRINCIPAL_LENGTH
    ? `sha256:${createHash('sha256').update(principal).digest('hex')}`
    : principal;
}
