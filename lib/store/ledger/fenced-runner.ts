import type { EntityManager, QueryRunner } from 'typeorm';
import { HANDLER_CUT_OFF } from './handler-batches.messages';

/** A statement a handler sent after it was cut off from its batch (see `handlerBoundMs`). */
export class HandlerCutOffError extends Error {
  override readonly name = 'HandlerCutOffError';
}

/** PostgreSQL's `query_canceled`, which `statement_timeout` raises. */
const QUERY_CANCELED = '57014';

function isQueryCanceled(error: unknown): boolean {
  const { code, driverError } = (error ?? {}) as {
    code?: unknown;
    driverError?: { code?: unknown };
  };
  return code === QUERY_CANCELED || driverError?.code === QUERY_CANCELED;
}

/**
 * The batch's query runner as one handler sees it: statements go through while the handler
 * holds its turn; once {@link close}d they fail with {@link HandlerCutOffError}, so a handler cut
 * off at the bound (or one that left a statement unawaited) never writes into the batch's
 * transaction outside its own savepoint.
 */
export class FencedRunner {
  readonly runner: QueryRunner;
  /** A statement of the handler was cancelled by `statement_timeout`. */
  timedOut = false;
  /** The last statement of the handler that failed, if one did. */
  failed?: unknown;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private manager?: EntityManager;

  /** Whether the handler has sent a statement (after `open`, when given, ran). */
  get used(): boolean {
    return this.opening !== undefined;
  }

  private opening?: Promise<void>;

  /**
   * @param cutOff what a statement sent after {@link close} fails with.
   * @param open runs once before the handler's first statement (opens its savepoint).
   */
  constructor(
    target: QueryRunner,
    private readonly cutOff = HANDLER_CUT_OFF,
    private readonly open: () => Promise<void> = async () => undefined,
  ) {
    this.runner = new Proxy(target, {
      get: (own, property, receiver) => {
        if (property === 'query') {
          return (...args: unknown[]) => this.query(own, receiver as QueryRunner, args);
        }
        if (property === 'manager') {
          return this.manager ?? own.manager;
        }
        return Reflect.get(own, property, receiver) as unknown;
      },
      set: (own, property, value, receiver) => {
        // NOTE: an EntityManager made on this runner claims it as its own; the batch's runner
        // keeps its manager.
        if (property === 'manager') {
          this.manager = value as EntityManager;
          return true;
        }
        return Reflect.set(own, property, value, receiver);
      },
    });
  }

  /** Refuses the handler's statements from now on. */
  close(): void {
    this.closed = true;
  }

  /** Resolves once no statement of the handler is running. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) {
      await Promise.allSettled([...this.inFlight]);
    }
  }

  private query(own: QueryRunner, receiver: QueryRunner, args: unknown[]): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(new HandlerCutOffError(this.cutOff));
    }
    this.opening ??= this.open();
    const sent = this.opening.then(() =>
      (own.query as (...values: unknown[]) => Promise<unknown>).apply(receiver, args),
    );
    this.inFlight.add(sent);
    sent.then(
      () => this.inFlight.delete(sent),
      (error: unknown) => {
        this.inFlight.delete(sent);
        this.failed = error;
        this.timedOut ||= isQueryCanceled(error);
      },
    );
    return sent;
  }
}
