import type { OperatorAction } from './event-history';
import type { WebhookEventFilter } from './event-filter';

/** Settled events to delete by hand, oldest first. */
export interface SettledEventSelection {
  /** Settled statuses only: `processed`, `ignored`, `dead`. */
  readonly statuses: readonly ('processed' | 'ignored' | 'dead')[];
  /** Received before this time. */
  readonly olderThan: Date;
  /** Only this endpoint's events. */
  readonly endpoint?: string;
}

/** An operator's changes to stored events: replays, settlements by hand, deletions. */
export interface OperatorActions {
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
  /** Deletes up to `limit` settled events of `selection`, with their ledger rows; their number. */
  purge(selection: SettledEventSelection, limit: number): Promise<number>;
}
