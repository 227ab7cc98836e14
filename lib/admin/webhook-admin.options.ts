import type { FailureGroupFilter } from '../store/ports/event-history';
import type { WebhookEventFilter } from '../store/ports/inbox-queries.port';

/** Options of `WebhookAdmin.list()`. */
export interface WebhookEventListOptions extends WebhookEventFilter {
  /**
   * Most events returned, newest first.
   * @default 100 (at most 1000)
   */
  limit?: number;
}

/** Who makes an operator's change: kept in the history of every event it changes. */
export interface WebhookOperator {
  /** The caller: a user name, an admin route's user, `alice@cli`. */
  actor?: string;
}

/** What a replay did, or with `dryRun` would do. */
export interface WebhookReplayReport {
  /** Events put back in the inbox as `pending` (0 on a dry run). */
  readonly replayed: number;
  /** On a dry run: how many events the replay would put back, and the first of them. */
  readonly wouldReplay?: number;
  readonly sample?: readonly string[];
  /** True when `signal` stopped the replay before it was done. */
  readonly canceled?: boolean;
}

/** Options of `WebhookAdmin.replay()`. */
export interface WebhookReplayOptions extends WebhookEventFilter, WebhookOperator {
  /** Counts what would be replayed and changes nothing. */
  dryRun?: boolean;
  /**
   * Most events put back per second, over every window from the first second on: in any T
   * seconds at most `ratePerSecond × T + 1` events (`+ b` above 99 a second, b being
   * `⌊ratePerSecond / 50⌋` events per transaction), as the events' history times them. See
   * `ReplayPace`.
   * @default no limit: batches of 500, as fast as the database takes them
   */
  ratePerSecond?: number;
  /** Stops the replay between two batches; the events put back so far stay put back. */
  signal?: AbortSignal;
  /** Called after each batch with the running total, for progress output. */
  onProgress?: (replayed: number) => void;
}

/** Options of `WebhookAdmin.discard()`. */
export interface WebhookDiscardOptions extends WebhookOperator {
  /** Why: kept as the events' last error and in their history. */
  reason: string;
  /** Counts what would be discarded and changes nothing. */
  dryRun?: boolean;
}

/** What a discard did, or with `dryRun` would do. */
export interface WebhookDiscardReport {
  /** Events settled `ignored` (0 on a dry run). */
  readonly discarded: number;
  /** On a dry run: how many events the discard would settle. */
  readonly wouldDiscard?: number;
}

/** Options of `WebhookAdmin.pause()`. */
export interface WebhookPauseOptions extends WebhookOperator {
  /** Why, for whoever looks at the pause later. */
  reason?: string;
}

/** Options of `WebhookAdmin.failureGroups()`. */
export interface FailureGroupListOptions extends FailureGroupFilter {
  /**
   * Most groups returned, largest first.
   * @default 50 (at most 1000)
   */
  limit?: number;
}

/** What the admin tells the rest of its process about. */
export interface WebhookAdminHooks {
  readonly pausesChanged?: () => void;
  readonly replayStarted?: () => void;
}

/** Options of `WebhookAdmin.startReplay()`. */
export interface WebhookReplayJobOptions extends WebhookEventFilter, WebhookOperator {
  /**
   * Most events put back per second, a whole number, held as `WebhookReplayOptions`'s is: in any
   * T seconds at most `ratePerSecond × T + 1` events (`+ ⌊ratePerSecond / 50⌋` above 99 a
   * second), on whichever instance runs the replay, after a restart too.
   * @default no limit: batches of 500, as fast as the database takes them
   */
  ratePerSecond?: number;
}

/** Options of `WebhookAdmin.purge()`. */
export interface WebhookPurgeOptions {
  /** Deletes settled events received before this time. Required. */
  olderThan: Date;
  /**
   * Which settled statuses to delete.
   * @default ['processed', 'ignored']
   */
  status?: readonly ('processed' | 'ignored' | 'dead')[];
  /** Only this endpoint's events. */
  endpoint?: string;
}
