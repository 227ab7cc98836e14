import type { EntityManager } from 'typeorm';
import type { DispatchPause, FailedAttempt } from './event-history';
import type { InboxEvent } from './inbox-event';

/** How `claim()` picks events. */
export interface ClaimOptions {
  /**
   * Endpoints whose events of one payment run one at a time, earliest first: an event is not
   * claimed while an earlier event of its payment is still to run or running.
   */
  orderedEndpoints?: readonly string[];
  /**
   * Whether to take events whose lease expired (a worker died holding them). Looking for them
   * costs a statement, so a busy dispatcher asks once per poll interval rather than per claim.
   * @default true
   */
  expired?: boolean;
}

/** How `release()` gives events back. */
export interface ReleaseOptions {
  /**
   * Keep the attempt counted, so the next run is a new attempt (a broker transport, whose job
   * of this attempt may still be marked running).
   * @default false
   */
  countAttempt?: boolean;
}

/** An event whose lease ran out, as `expiredLeases()` finds it. */
export interface ExpiredLease {
  readonly id: string;
  /** The attempt the holder was given (the row's `attempts`). */
  readonly attempt: number;
  /** Who held it: a worker, or a transport that handed it to a broker. */
  readonly lockedBy: string | null;
  /** When the attempt fell due (`next_attempt_at`). */
  readonly dueAt: Date | null;
}

/** What the dispatcher learned while handling an event, kept on the event. */
export interface ProcessedResult {
  /** The handlers' reported outcomes, or the dispatcher's own (`provider_disagrees`). */
  outcome?: string | null;
  /** The status the provider's API returned. */
  providerStatus?: string | null;
}

/**
 * How a handler run inside `runHandler()` ended: `ran_and_settled` when its transaction also
 * marked the event processed (see {@link HandlerSettlement}).
 */
export type HandlerRunOutcome = 'ran' | 'already_done' | 'ran_and_settled';

/**
 * Asks `runHandler()` to mark the event processed in the handler's own transaction once the
 * handler succeeded: the last handler of an event commits its effects, its ledger row and the
 * event's new status at once, saving a round trip and a commit per event.
 */
export interface HandlerSettlement {
  /** The lease holder; nothing is settled when another worker holds the event by then. */
  readonly workerId: string;
  /** The event's result, given the outcome this handler reported (if any). */
  result(outcome: string | undefined): ProcessedResult;
}

/** How the inbox keeps bodies: what the worker needs to hand handlers an event's payload. */
export interface StoredValues {
  /** The exact bytes of an event's stored body. */
  bodyBytes(event: Pick<InboxEvent, 'rawBody'>): Buffer;
}

/** The worker side of the inbox: claims, leases, the handler ledger and settlement. */
export interface InboxWorker {
  /** Claims up to `limit` due events (and events whose lease expired) for `workerId`. */
  claim(
    workerId: string,
    limit: number,
    leaseMs: number,
    now: Date,
    options?: ClaimOptions,
  ): Promise<InboxEvent[]>;
  /** Extends the lease of events `workerId` still holds. */
  extendLease(ids: string[], workerId: string, leaseMs: number, now: Date): Promise<void>;
  /** Events whose lease ran out, the longest expired first (for a broker transport's sweeper). */
  expiredLeases(now: Date, limit: number): Promise<ExpiredLease[]>;
  /** Moves an event whose lease ran out to `holder`, counting a new attempt when `nextAttempt`. */
  handOver(
    lease: ExpiredLease,
    holder: string,
    leaseMs: number,
    now: Date,
    nextAttempt: boolean,
  ): Promise<boolean>;
  /** Takes a handed-out event at `attempt` for `workerId`; null when it is not there to take. */
  takeOver(
    id: string,
    attempt: number,
    from: string,
    workerId: string,
    leaseMs: number,
    now: Date,
  ): Promise<InboxEvent | null>;
  /** Handlers already recorded in the ledger for an event, with the outcome each reported. */
  finishedHandlers(eventId: string): Promise<Map<string, string | null>>;
  /**
   * Runs `work` in a transaction that first writes the ledger row for (event, handler);
   * when the row exists already, `work` does not run. The outcome `work` resolves to, if
   * any, is kept on the ledger row. With `settle`, a successful run also marks the event
   * processed in the same transaction.
   */
  runHandler(
    eventId: string,
    handlerKey: string,
    attempt: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
    settle?: HandlerSettlement,
  ): Promise<HandlerRunOutcome>;
  /** Marks a held event processed. */
  markProcessed(
    id: string,
    workerId: string,
    now: Date,
    result?: ProcessedResult,
  ): Promise<boolean>;
  /** Marks a held event ignored (no handler wants it). */
  markIgnored(id: string, workerId: string, now: Date): Promise<boolean>;
  /** Puts a held event back for a later attempt, recording its `failed` attempts. */
  scheduleRetry(
    id: string,
    workerId: string,
    nextAttemptAt: Date,
    error: string,
    result?: ProcessedResult,
    failed?: readonly FailedAttempt[],
  ): Promise<boolean>;
  /** Moves a held event to the dead-letter state, recording its `failed` attempts. */
  markDead(
    id: string,
    workerId: string,
    error: string,
    failed?: readonly FailedAttempt[],
  ): Promise<boolean>;
  /** The pauses of dispatch in force. */
  pauses(): Promise<DispatchPause[]>;
  /**
   * Gives a held event back, its attempt not counted, parked while a pause holds one of
   * `handlerKeys` on `endpoint` and due now when none does any more. Resolves to whether it
   * was parked, or null when `workerId` no longer held it.
   */
  park(
    id: string,
    workerId: string,
    endpoint: string,
    handlerKeys: readonly string[],
    now: Date,
  ): Promise<boolean | null>;
  /** Gives held events back without counting the attempt (graceful shutdown). */
  release(ids: string[], workerId: string, now: Date, options?: ReleaseOptions): Promise<void>;
  /**
   * Calls `listener` when another process stores a pending event (PostgreSQL LISTEN/NOTIFY;
   * a no-op elsewhere). Resolves to a function that stops listening.
   */
  watch(listener: () => void): Promise<() => Promise<void>>;
  /** How values and bodies are kept, to read an event as it was delivered. */
  readonly values: StoredValues;
}

/** Injection token for the {@link InboxWorker}. */
export const InboxWorker = Symbol('InboxWorker');
