import type {
  DispatchPause,
  DispatchPauseScope,
  EventHistoryEntry,
  FailureGroup,
  FailureGroupFilter,
  NewReplayJob,
  OperatorAction,
  ReplayBatch,
  ReplayJob,
} from './event-history';
import type { HandlerRunRecord, InboxEvent, WorkLease } from './inbox-event';
import type { WebhookEventFilter } from './event-filter';
import type { WebhookEventStatus } from './webhook-event-status';

export type { WebhookEventFilter } from './event-filter';

/**
 * A stored event without its payload (`rawBody`, `headers`), as lists return it: a list never
 * reads bodies from the database.
 */
export type WebhookEventSummary = Omit<InboxEvent, 'rawBody' | 'headers'> & WorkLease;

/** One stored event with what happened to it. */
export interface WebhookEventDetails {
  /** The inbox row, with its work row's status, attempts and lease while it has one. */
  readonly event: InboxEvent & WorkLease;
  /** The handlers that finished for it, with their attempt and outcome. */
  readonly handlerRuns: readonly HandlerRunRecord[];
  /** Its failed attempts, replays and settlements by hand, oldest first. */
  readonly history: readonly EventHistoryEntry[];
}

/** Counts that tell whether the inbox is healthy. */
export interface WebhookInboxStats {
  /** Events per endpoint and status. */
  readonly counts: readonly { endpoint: string; status: WebhookEventStatus; count: number }[];
  /** When the oldest event still waiting to run (pending or retrying) was received. */
  readonly oldestPendingAt: Date | null;
}

/** Settled events to delete by hand, oldest first. */
export interface SettledEventSelection {
  /** Settled statuses only: `processed`, `ignored`, `dead`. */
  readonly statuses: readonly ('processed' | 'ignored' | 'dead')[];
  /** Received before this time. */
  readonly olderThan: Date;
  /** Only this endpoint's events. */
  readonly endpoint?: string;
}

/** What one retention batch deleted. */
export interface DeletedEvents {
  /** Events the batch selected; fewer than its limit means none are left. */
  readonly found: number;
  readonly events: number;
  readonly handlerRuns: number;
}

/** An event whose payload a retention batch cleared: where the next batch continues. */
export interface PrunedPayload {
  readonly id: string;
  readonly receivedAt: Date;
}

/** What metrics, health and alerts read from the inbox in one sample. */
export interface InboxSampleRows {
  /** Events per endpoint and status, for the statuses asked for. */
  readonly depth: readonly { endpoint: string; status: WebhookEventStatus; count: number }[];
  /** Per endpoint, when its oldest `pending` event was received. */
  readonly oldestPending: readonly { endpoint: string; at: Date }[];
  /** Per endpoint, when its latest event was received (of those received after `since`). */
  readonly latest: readonly { endpoint: string; at: Date }[];
}

/** How many events of one payment were received at one time. */
export interface PaymentEventTime {
  readonly endpoint: string;
  /** The payment reference as asked for (before it was fitted to its column). */
  readonly paymentRef: string;
  readonly receivedAt: Date | null;
  readonly count: number;
}

/**
 * Reads and operator changes on the inbox: admin, CLI, metrics, retention. Each call is its own
 * short transaction (or single statement), serialized with the package's writes on SQLite.
 * Values too long for their column are looked for in the form they were stored in.
 */
export interface InboxQueries {
  /** Summaries of the events matching `filter`, newest first, at most `limit`; no payloads. */
  list(filter: WebhookEventFilter, limit: number): Promise<WebhookEventSummary[]>;
  /** How many events match `filter`. */
  count(filter: WebhookEventFilter): Promise<number>;
  /** One event by inbox id with its handler runs (oldest first); null when there is none. */
  find(id: string): Promise<WebhookEventDetails | null>;
  /**
   * Ids of events matching `filter` that a replay may put back (processed, ignored, dead or
   * retrying), oldest first, at most `limit`.
   */
  replayable(filter: WebhookEventFilter, limit: number): Promise<string[]>;
  /**
   * Puts the events among `ids` that are still replayable back as `pending`, due now, with a
   * fresh attempt budget. Resolves to how many were.
   */
  replay(ids: readonly string[], action?: OperatorAction): Promise<number>;
  /**
   * Settles an event by hand as `dead` or `ignored`, keeping `reason` as its last error.
   * False when there is no such event or a worker holds it.
   */
  settleByHand(
    id: string,
    status: 'dead' | 'ignored',
    reason: string,
    actor?: string | null,
  ): Promise<boolean>;
  /** Dead and retrying events grouped by failure, the largest groups first, at most `limit`. */
  failureGroups(filter: FailureGroupFilter, limit: number): Promise<FailureGroup[]>;
  /** The pauses of dispatch in force, oldest first. */
  pauses(): Promise<DispatchPause[]>;
  /** Pauses dispatch for `scope`; false when it was paused already. */
  pause(
    scope: DispatchPauseScope,
    pausedBy: string | null,
    reason: string | null,
  ): Promise<boolean>;
  /**
   * Lifts the pause of `scope` and makes the events parked by pauses due now (those another
   * pause still holds are parked again when claimed). Null when `scope` was not paused, else
   * how many events were woken.
   */
  resume(scope: DispatchPauseScope): Promise<number | null>;
  /** Stores a replay to run in the background, `running`, due to be taken by any instance. */
  startReplayJob(job: NewReplayJob): Promise<ReplayJob>;
  /** The replays in the background, newest first, at most `limit`. */
  replayJobs(limit: number): Promise<ReplayJob[]>;
  /** One replay in the background; null when there is none. */
  replayJob(id: string): Promise<ReplayJob | null>;
  /** Cancels a running replay: its next batch does not run. False when it was not running. */
  cancelReplayJob(id: string): Promise<boolean>;
  /**
   * Takes a running replay nobody holds (or whose holder's lease ran out) for `holder` until
   * `leaseMs` from now; null when there is none.
   */
  claimReplayJob(holder: string, leaseMs: number): Promise<ReplayJob | null>;
  /**
   * Puts back the next `limit` events of a replay `holder` holds, after its cursor, moving the
   * cursor and its count in the same transaction, and renews the lease. The events' history and
   * the replay's `updatedAt` keep `at` (now when left out): for a replay with a rate, the time
   * its pace let the batch through.
   */
  runReplayBatch(
    id: string,
    holder: string,
    limit: number,
    leaseMs: number,
    at?: Date,
  ): Promise<ReplayBatch>;
  /**
   * Gives up `holder`'s lease on a replay, so any instance carries it on, keeping why its last
   * batch failed when one did.
   */
  releaseReplayJob(id: string, holder: string, error: string | null): Promise<void>;
  /** Deletes up to `limit` settled events of `selection`, with their ledger rows; their number. */
  purge(selection: SettledEventSelection, limit: number): Promise<number>;
  /** Counts per endpoint and status, and the oldest event waiting to run. */
  stats(): Promise<WebhookInboxStats>;
  /**
   * Retention: deletes up to `limit` processed or ignored events received before `before`,
   * oldest first, with their ledger rows. On PostgreSQL rows another transaction holds are
   * skipped.
   */
  deleteSettled(before: Date, limit: number): Promise<DeletedEvents>;
  /**
   * Retention: clears the raw body and headers of up to `limit` processed or ignored events
   * received before `before` that still have them, in (received_at, id) order after `after`.
   */
  prunePayloads(before: Date, limit: number, after?: PrunedPayload): Promise<PrunedPayload[]>;
  /**
   * One sample for metrics, health and alerts: depth for `statuses`, the oldest pending event
   * and the latest event per endpoint (only among events received after `since`, when given).
   */
  sample(statuses: readonly WebhookEventStatus[], since: Date | null): Promise<InboxSampleRows>;
  /** Per endpoint and receipt time, how many events each of `paymentRefs` has. One statement. */
  paymentEventTimes(paymentRefs: readonly string[]): Promise<PaymentEventTime[]>;
  /** The provider kinds of the stored events (of one endpoint, when given). */
  providerKinds(endpoint?: string): Promise<string[]>;
  /**
   * The endpoint names and handler keys the database records: the endpoints of stored events
   * and pauses; the handlers of handler runs, failed attempts and pauses. Each read in full
   * (the operator's commands read it only for a name the app's configuration does not know).
   */
  recordedNames(): Promise<RecordedNames>;
}

/** Endpoint names and handler keys, each list sorted, without `*`. */
export interface RecordedNames {
  readonly endpoints: readonly string[];
  readonly handlers: readonly string[];
}

/** Injection token for the {@link InboxQueries}. */
export const InboxQueries = Symbol('InboxQueries');
