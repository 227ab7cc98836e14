import { InboxSignal } from '../store/inbox-signal';
import {
  InboxQueries,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from '../store/ports/inbox-queries.port';
import { WebhookEventStatus } from '../store/webhook-event-status';
import { SafeLogger } from '../telemetry/safe-logger';
import { MAX_LIST_LIMIT } from './event-filter-rules';

export type {
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from '../store/ports/inbox-queries.port';

const DEFAULT_LIST_LIMIT = 100;
const REPLAY_BATCH = 500;
const PURGE_BATCH = 500;
/** Statuses purge may delete: settled events only, never anything still to run. */
const PURGEABLE: readonly WebhookEventStatus[] = ['processed', 'ignored', 'dead'];

/** Options of `WebhookAdmin.list()`. */
export interface WebhookEventListOptions extends WebhookEventFilter {
  /**
   * Most events returned, newest first.
   * @default 100 (at most 1000)
   */
  limit?: number;
}

/** What a replay did. */
export interface WebhookReplayReport {
  /** Events put back in the inbox as `pending`. */
  readonly replayed: number;
}

/** Options of `WebhookAdmin.replay()`. */
export interface WebhookReplayOptions extends WebhookEventFilter {
  /** Called after each batch with the running total, for progress output. */
  onProgress?: (replayed: number) => void;
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

/**
 * Looks at and repairs the inbox without SQL: list and show events, put them back through the
 * handlers, settle them by hand, purge old ones. A replayed event runs only the handlers not
 * already in its ledger, so a handler that succeeded never runs twice.
 */
export class WebhookAdmin {
  private readonly logger = new SafeLogger('WebhookAdmin');

  constructor(
    private readonly queries: InboxQueries,
    private readonly signal: InboxSignal,
  ) {}

  /** Summaries of the stored events matching `options`, newest first: no body, no headers. */
  async list(options: WebhookEventListOptions = {}): Promise<WebhookEventSummary[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.queries.list(options, limit);
  }

  /** How many stored events match `filter`. */
  count(filter: WebhookEventFilter = {}): Promise<number> {
    return this.queries.count(filter);
  }

  /** One event by inbox id, with its handler runs; null when there is none. */
  show(id: string): Promise<WebhookEventDetails | null> {
    return this.queries.find(id);
  }

  /**
   * Puts one stored event back through its handlers now, with a fresh attempt budget.
   * Handlers already in its ledger are skipped.
   * @returns false when there is no such event, it is already waiting, or a worker holds it
   * right now.
   */
  async redeliver(id: string): Promise<boolean> {
    const changed = await this.queries.replay([id]);
    if (changed > 0) {
      this.logger.log(`Event ${id} put back in the inbox`);
      this.signal.notify();
    }
    return changed > 0;
  }

  /**
   * Puts every matching event back through its handlers, in batches.
   * @example
   * await admin.replay({ status: 'dead', since: new Date(Date.now() - 86_400_000) });
   */
  async replay(options: WebhookReplayOptions = {}): Promise<WebhookReplayReport> {
    const filter = { ...options, status: options.status ?? 'dead' };
    let replayed = 0;
    for (;;) {
      const ids = await this.queries.replayable(filter, REPLAY_BATCH);
      if (ids.length === 0) {
        break;
      }
      replayed += await this.queries.replay(ids);
      options.onProgress?.(replayed);
      this.signal.notify();
      if (ids.length < REPLAY_BATCH) {
        break;
      }
    }
    this.logger.log(`Replayed ${replayed} event(s)`);
    return { replayed };
  }

  /**
   * Settles an event by hand as `dead` (keeps it for a later replay) or `ignored`.
   * @returns false when there is no such event or a worker holds it right now.
   */
  async settle(id: string, status: 'dead' | 'ignored', reason: string): Promise<boolean> {
    return this.queries.settleByHand(id, status, reason);
  }

  /**
   * Deletes settled events received before `olderThan`, with their ledger rows, in small
   * batches. Pending, retrying and processing events are never touched.
   * @returns how many events were deleted.
   */
  async purge(options: WebhookPurgeOptions): Promise<number> {
    if (!(options?.olderThan instanceof Date) || Number.isNaN(options.olderThan.getTime())) {
      throw new TypeError('purge() needs olderThan: a valid Date');
    }
    const statuses = options.status ?? ['processed', 'ignored'];
    const invalid = statuses.filter((status) => !PURGEABLE.includes(status));
    if (invalid.length > 0) {
      throw new TypeError(
        `purge() deletes settled events only (${PURGEABLE.join(', ')}); got ${invalid.join(', ')}`,
      );
    }
    let deleted = 0;
    for (;;) {
      const batch = await this.queries.purge(
        { statuses, olderThan: options.olderThan, endpoint: options.endpoint },
        PURGE_BATCH,
      );
      deleted += batch;
      if (batch < PURGE_BATCH) {
        break;
      }
    }
    return deleted;
  }

  /** Counts per endpoint and status, and the age of the oldest event waiting to run. */
  stats(): Promise<WebhookInboxStats> {
    return this.queries.stats();
  }
}
