/** A recovery from a provider's event log, as stored. */
export interface RecoveryJob {
  readonly id: string;
  /** The endpoint whose provider's log it reads, with that endpoint's credentials. */
  readonly endpoint: string;
  /** The tenant it reads for, on a tenant endpoint; null for an endpoint of no tenants. */
  readonly tenant: string | null;
  /** The window of the log it reads: events created from `since` until `until`. */
  readonly since: Date;
  readonly until: Date;
  /** A dry run stores nothing: it counts the events a recovery would store. */
  readonly dryRun: boolean;
  /**
   * `running`, `done` (the whole window read), `canceled`, or `failed` when the endpoint's log
   * cannot be read at all (no such endpoint, no credentials, refused by the provider).
   */
  readonly status: 'running' | 'done' | 'canceled' | 'failed';
  /** Events read from the log so far. */
  readonly found: number;
  /** Of those, the events stored now (in a dry run: the events not in the inbox). */
  readonly stored: number;
  /** Most events read a second; null for no limit. */
  readonly ratePerSecond: number | null;
  readonly actor: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly finishedAt: Date | null;
  /** The instance running it now, while its lease lasts. */
  readonly lockedBy: string | null;
  /** Why it failed, or why its last page failed (it is tried again). */
  readonly error: string | null;
  /** Where it stands in the provider's log (the provider's own cursor); null before the first page. */
  readonly cursor: string | null;
}

/** What a recovery starts with. */
export interface NewRecoveryJob {
  readonly endpoint: string;
  readonly tenant: string | null;
  readonly since: Date;
  readonly until: Date;
  readonly dryRun: boolean;
  readonly ratePerSecond: number | null;
  readonly actor: string | null;
}

/** What one page of a recovery did. */
export interface RecoveredPage {
  /** Events the page held. */
  readonly found: number;
  /** Inbox ids of the events the page stored (none in a dry run). */
  readonly storedIds: readonly string[];
  /** In a dry run, the events of the page that are not in the inbox. */
  readonly missing: number;
  /** Where the next page starts; null when this was the last. */
  readonly next: string | null;
  /** What the log is, for each recovered event's history. */
  readonly source: string;
}

/**
 * Recoveries from providers' event logs: stored beside the replays in the background, taken by
 * any instance under a lease, and run page by page with the provider's cursor.
 */
export interface RecoveryJobs {
  /** Stores a recovery to run, `running`, due to be taken by any instance. */
  startRecoveryJob(job: NewRecoveryJob): Promise<RecoveryJob>;
  /**
   * Stores the scheduled recovery of `slot` (a period of its schedule, the same on every
   * instance) unless one is stored already; null when it is: the instances that start it
   * together store it once.
   */
  startScheduledRecoveryJob(job: NewRecoveryJob, slot: string): Promise<RecoveryJob | null>;
  /** The end of the window of the newest recovery of an endpoint's tenant that read it all (no dry run); null when none did. */
  recoveredUntil(endpoint: string, tenant: string | null): Promise<Date | null>;
  /** When the newest event of an endpoint's tenant was received; null when it has none. */
  lastReceivedAt(endpoint: string, tenant: string | null): Promise<Date | null>;
  /** The tenants an endpoint has events of in the inbox, in name order (none for an endpoint without tenants). */
  tenantsWithEvents(endpoint: string): Promise<string[]>;
  /** The recoveries, newest first, at most `limit`. */
  recoveryJobs(limit: number): Promise<RecoveryJob[]>;
  /** One recovery; null when there is none. */
  recoveryJob(id: string): Promise<RecoveryJob | null>;
  /** Cancels a running recovery: its next page is not read. False when it was not running. */
  cancelRecoveryJob(id: string): Promise<boolean>;
  /** Takes a running recovery nobody holds (or whose lease ran out) for `holder`; null when none. */
  claimRecoveryJob(holder: string, leaseMs: number): Promise<RecoveryJob | null>;
  /**
   * Records a page of a recovery `holder` holds: its counts, a `recover` row in the history of
   * each event it stored, and its cursor, in one transaction, renewing the lease; `done` after
   * the last page. `lost` (nothing recorded) when another instance holds it now, `canceled` when
   * it was canceled.
   */
  recordRecoveredPage(
    id: string,
    holder: string,
    page: RecoveredPage,
    leaseMs: number,
  ): Promise<'running' | 'done' | 'canceled' | 'lost'>;
  /** Ends a recovery `holder` holds as `failed`, with why. */
  failRecoveryJob(id: string, holder: string, error: string): Promise<void>;
  /** Gives up `holder`'s lease, keeping why its last page failed, for any instance to carry on. */
  releaseRecoveryJob(id: string, holder: string, error: string | null): Promise<void>;
  /** Which of `eventIds` an endpoint's tenant (`''` for none) already has in the inbox. */
  storedEventIds(
    endpoint: string,
    tenant: string,
    eventIds: readonly string[],
  ): Promise<Set<string>>;
}
