import type { InboxEvent } from './inbox-event';
import type { PauseQueries } from './pause-queries.port';

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

/** How the inbox keeps bodies: what the worker needs to hand handlers an event's payload. */
export interface StoredValues {
  /** The exact bytes of an event's stored body. */
  bodyBytes(event: Pick<InboxEvent, 'rawBody'>): Buffer;
}

/**
 * The inbox's queue of work: claims, leases and their hand-over between workers, the pauses a
 * claim honours, and the wake-ups when new work is stored.
 */
export interface WorkQueue extends Pick<PauseQueries, 'pauses'> {
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
