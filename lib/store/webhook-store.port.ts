import { EntityManager } from 'typeorm';
import { WebhookEventEntity } from './entities/webhook-event.entity';

/** An event to store, as the ingress builds it from a verified, normalized delivery. */
export interface NewWebhookEvent {
  endpoint: string;
  provider: string;
  eventId: string;
  type: string;
  nativeType: string;
  paymentRef: string | null;
  merchantRef: string | null;
  amount: number | null;
  currency: string | null;
  paymentStatus: string | null;
  occurredAt: Date | null;
  receivedAt: Date;
  /**
   * The body as received: its bytes, or its text (stored as UTF-8). Bytes that are not UTF-8
   * text, or hold NUL, are kept exactly all the same (see `WebhookEventEntity.rawBody`).
   */
  rawBody: Buffer | string;
  bodySha256: string;
  headers: Record<string, string>;
  /** `pending` when a handler wants the event, `ignored` when none does. */
  status: 'pending' | 'ignored';
}

/** What `record()` found. */
export interface RecordResult {
  /** Inbox id of the stored row (new or existing). */
  id: string;
  /** True when the row already existed (a re-delivery). */
  duplicate: boolean;
  /** False when a re-delivery's body differs from the stored one. */
  sameBody: boolean;
  /** The row's status after the call. */
  status: string;
}

/** A signed transmission to remember: `recordTransmission()` takes it. */
export interface NewTransmission {
  /** Endpoint name it arrived on. */
  readonly endpoint: string;
  /** The provider's signed transmission id. */
  readonly transmissionId: string;
  /** Hex SHA-256 of the body it came with. */
  readonly bodyDigest: string;
  /** When the delivery arrived. */
  readonly receivedAt: Date;
  /** The endpoint's transmissions received before this may be forgotten: no replay of them passes. */
  readonly forgetBefore: Date;
}

/** What `recordTransmission()` found. */
export interface RecordedTransmission {
  /** False when the transmission id was seen with another body. */
  readonly sameBody: boolean;
}

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

/**
 * The inbox and ledger. The TypeORM implementation serves PostgreSQL and SQLite; another
 * implementation can be provided under the same-name token.
 */
export interface WebhookStore {
  /** One atomic insert-or-detect-duplicate on UNIQUE(endpoint, event_id). */
  record(event: NewWebhookEvent): Promise<RecordResult>;
  /** Records the events of one batched delivery in one transaction: all of them or none. */
  recordAll(events: readonly NewWebhookEvent[]): Promise<RecordResult[]>;
  /** Remembers a signed transmission's body digest; see `InboxWriter.recordTransmission`. */
  recordTransmission(transmission: NewTransmission): Promise<RecordedTransmission>;
  /** Claims up to `limit` due events (and events whose lease expired) for `workerId`. */
  claim(
    workerId: string,
    limit: number,
    leaseMs: number,
    now: Date,
    options?: ClaimOptions,
  ): Promise<WebhookEventEntity[]>;
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
  ): Promise<WebhookEventEntity | null>;
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
  /** Puts a held event back for a later attempt. */
  scheduleRetry(
    id: string,
    workerId: string,
    nextAttemptAt: Date,
    error: string,
    result?: ProcessedResult,
  ): Promise<boolean>;
  /** Moves a held event to the dead-letter state. */
  markDead(id: string, workerId: string, error: string): Promise<boolean>;
  /** Gives held events back without counting the attempt (graceful shutdown). */
  release(ids: string[], workerId: string, now: Date, options?: ReleaseOptions): Promise<void>;
  /**
   * Calls `listener` when another process stores a pending event (PostgreSQL LISTEN/NOTIFY;
   * a no-op elsewhere). Resolves to a function that stops listening.
   */
  watch(listener: () => void): Promise<() => Promise<void>>;
  /**
   * Runs `work` in a transaction on the inbox's connection, serialized with the package's own
   * writes where the database needs it (SQLite). For the application's own writes
   * (`WebhookTransactions`) and the idempotency store, not for inbox queries (see
   * `InboxQueries`).
   */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /**
   * Why deliveries cannot be stored now, as one clause naming the cause and the fix, or
   * undefined when they can: the database refuses writes (read-only, missing privileges), or a
   * write the way deliveries are written fails or takes longer than they may. Never throws.
   */
  checkWrites?(): Promise<string | undefined>;
}

/** Injection token for the {@link WebhookStore}. */
export const WebhookStore = Symbol('WebhookStore');
