import type { EntityManager } from 'typeorm';
import type { InboxEvent } from './inbox-event';

/** Which stored events a backfill runs its handler over. */
export interface BackfillScope {
  /** The events received at or after this time. */
  readonly since: Date;
  /** The events received before this time (at most the time the backfill started). */
  readonly until: Date;
  /** Only the events of this endpoint, of this tenant, of these types. */
  readonly endpoint?: string;
  readonly tenant?: string;
  readonly types?: readonly string[];
}

/** A backfill of one handler over stored events, as stored. */
export interface BackfillJob {
  readonly id: string;
  /** The handler it runs, by its ledger key (`ClassName.method`). */
  readonly handler: string;
  readonly scope: BackfillScope;
  /** A dry run runs nothing: it counts the events the handler would run on. */
  readonly dryRun: boolean;
  /**
   * `running`, `done` (every event of its scope passed), `canceled`, or `failed` (the handler
   * threw on too many events in a row: see `error`).
   */
  readonly status: 'running' | 'done' | 'canceled' | 'failed';
  /** The events of its scope without a run of the handler, processed or ignored, when it started. */
  readonly total: number;
  /** Of those, the events passed so far (run, failed, or not of a type the handler takes). */
  readonly passed: number;
  /** Runs of the handler that ended well (in a dry run: events it would run on). */
  readonly ran: number;
  /** Runs that threw: the handler did not count for those events, a later backfill runs it again. */
  readonly failed: number;
  /** Most events passed a second; null for no limit. */
  readonly ratePerSecond: number | null;
  readonly actor: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
  /** The instance running it now, while its lease lasts. */
  readonly lockedBy: string | null;
  /** Why it failed, why it waits (a pause holds its handler), or why its last batch failed. */
  readonly error: string | null;
}

/** What a backfill starts with. */
export interface NewBackfillJob {
  readonly handler: string;
  readonly scope: BackfillScope;
  readonly dryRun: boolean;
  readonly ratePerSecond: number | null;
  readonly actor: string | null;
}

/** Where a backfill's cursor moves to, and what it counts on the way. */
export interface BackfillStep {
  /** The last event passed: the next batch starts after it (the cursor stays when left out). */
  readonly through?: Pick<InboxEvent, 'id' | 'receivedAt'>;
  /** Events passed since the cursor last moved (this one included). */
  readonly passed: number;
  /** Runs that ended well (in a dry run: would run), and runs that threw, among them. */
  readonly ran?: number;
  readonly failed?: readonly BackfillFailure[];
}

/** A run of a backfill's handler that threw, for the event's history. */
export interface BackfillFailure {
  readonly eventId: string;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  readonly errorClass: string;
  readonly error: string;
  readonly fingerprint: string;
  readonly worker: string;
}

/** What a step of a backfill found: `lost` when another instance holds it now, and so on. */
export type BackfillState = 'running' | 'done' | 'canceled' | 'failed' | 'lost';

/**
 * Backfills: one handler run over stored events, stored beside the replays and recoveries,
 * taken by any instance that has the handler, under a lease, and run event by event with a
 * cursor that moves in the same transaction as each run.
 */
export interface BackfillJobs {
  /** Stores a backfill, `running`, counting its events; due to be taken by an instance with its handler. */
  startBackfillJob(job: NewBackfillJob): Promise<BackfillJob>;
  /** The backfills, newest first, at most `limit`. */
  backfillJobs(limit: number): Promise<BackfillJob[]>;
  /** One backfill; null when there is none. */
  backfillJob(id: string): Promise<BackfillJob | null>;
  /** Cancels a running backfill: no run starts after this. False when it was not running. */
  cancelBackfillJob(id: string): Promise<boolean>;
  /**
   * Takes a running backfill of one of `handlers` nobody holds (or whose lease ran out) for
   * `holder`; null when there is none.
   */
  claimBackfillJob(
    holder: string,
    leaseMs: number,
    handlers: readonly string[],
  ): Promise<BackfillJob | null>;
  /**
   * The next `limit` events of a backfill after its cursor: of its scope, processed or
   * ignored, without a run of its handler, oldest first; none when `holder` no longer holds it.
   */
  nextBackfilled(id: string, holder: string, limit: number): Promise<InboxEvent[]>;
  /**
   * Runs `work` as the backfill's handler on `event` in one transaction with the handler's
   * ledger row, a `backfill` row in the event's history and the backfill's cursor, moved to
   * `event` over `passed` events (this one included), and its count of runs. Nothing runs when
   * the ledger has the run already (`already_done`), or when the backfill is no longer this
   * holder's to run (`lost`, `canceled`).
   */
  runBackfilled(
    id: string,
    holder: string,
    event: InboxEvent,
    passed: number,
    leaseMs: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
  ): Promise<'ran' | 'already_done' | 'lost' | 'canceled'>;
  /**
   * Moves a backfill's cursor over events passed without a run that counted (failed runs,
   * events of other types, a dry run's events), writing a failed run's history, renewing the
   * lease; with `finished`, ends it `done`.
   */
  advanceBackfill(
    id: string,
    holder: string,
    step: BackfillStep,
    leaseMs: number,
    finished: boolean,
  ): Promise<BackfillState>;
  /** Ends a backfill `holder` holds as `failed`, with why. */
  failBackfillJob(id: string, holder: string, error: string): Promise<void>;
  /** Gives up `holder`'s lease, keeping why (a failed batch, a pause), for any instance to carry on. */
  releaseBackfillJob(id: string, holder: string, error: string | null): Promise<void>;
}
