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

/** Retention's batches: settled events deleted, old payloads cleared. */
export interface RetentionQueries {
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
}
