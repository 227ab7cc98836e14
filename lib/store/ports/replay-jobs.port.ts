import type { WebhookEventFilter } from './event-filter';

/** A replay in the background, as stored. */
export interface ReplayJob {
  readonly id: string;
  /** The events it puts back: those its filter matched when it started. */
  readonly filter: WebhookEventFilter;
  /** `running`, `done` (every event put back) or `canceled`. */
  readonly status: 'running' | 'done' | 'canceled';
  /** How many events matched when it started, and how many it has put back. */
  readonly total: number;
  readonly replayed: number;
  /** Most events put back a second; null for no limit. */
  readonly ratePerSecond: number | null;
  readonly actor: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
  /** The instance running it now, while its lease lasts. */
  readonly lockedBy: string | null;
  /** Why its last batch failed, if it did (it is tried again). */
  readonly error: string | null;
}

/** What a replay in the background starts with. */
export interface NewReplayJob {
  readonly filter: WebhookEventFilter;
  readonly total: number;
  readonly ratePerSecond: number | null;
  readonly actor: string | null;
}

/** What one batch of a replay in the background did. */
export interface ReplayBatch {
  /** Events the batch put back. */
  readonly replayed: number;
  /**
   * `running` while events are left; `done` once none is, `canceled` when it was canceled,
   * `lost` when another instance holds it now: the batch then changed nothing.
   */
  readonly status: 'running' | 'done' | 'canceled' | 'lost';
}

/**
 * Replays in the background: stored, taken by any instance under a lease, and run batch by
 * batch with their cursor.
 */
export interface ReplayJobs {
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
}
