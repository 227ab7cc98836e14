import { IdempotencyStore, PurgedIdempotencyRecords } from '../idempotency/idempotency-store.port';
import type { PrunedPayload, RetentionQueries } from '../store/ports/retention-queries.port';
import { dedupHorizonDays, type ResolvedRetentionOptions } from '../options/retention-options';
import { SafeLogger } from '../telemetry/safe-logger';

const DAY_MS = 86_400_000;

/** The module options retention reads. */
export interface WebhookRetentionSettings {
  readonly retention: ResolvedRetentionOptions;
}

/** The part of an idempotency store retention uses. */
export type ExpiringIdempotencyRecords = Pick<IdempotencyStore, 'purgeExpired'>;

/** What one retention run did. */
export interface RetentionReport {
  /** Settled events received before this lost their raw body and headers. */
  readonly payloadsPrunedBefore: Date;
  /** Settled events received before this were deleted, with their ledger rows. */
  readonly eventsDeletedBefore: Date;
  /** Events whose raw body and headers were cleared in this run. */
  readonly prunedPayloads: number;
  /** Events deleted in this run. */
  readonly deletedEvents: number;
  /** Handler ledger rows deleted with them. */
  readonly deletedHandlerRuns: number;
  /** Expired idempotency records deleted; null when no idempotency store is registered. */
  readonly idempotency: PurgedIdempotencyRecords | null;
}

/**
 * Keeps the inbox small without losing what matters: processed and ignored events lose their
 * payload (raw body and headers; the normalized columns and the body's SHA-256 stay) after
 * `retention.processedDays`, and are deleted, with their ledger rows, once both
 * `processedDays` and `retention.dedupDays` have passed, so a provider's late retry is still
 * recognised as a duplicate. Dead events and events still to run are never touched. Expired
 * idempotency keys are purged when an idempotency store is registered.
 *
 * Every batch is its own short transaction (through the store, so on SQLite it queues behind
 * handler transactions), and on PostgreSQL rows another transaction holds are skipped, so the
 * inbox is never locked for long. Runs every `retention.intervalMs` while the app is up.
 *
 * @example
 * ```ts
 * // From a @Cron() method instead of the built-in interval (`retention: { intervalMs: 0 }`):
 * const report = await this.retention.run();
 * ```
 */
export class WebhookRetention {
  private readonly logger = new SafeLogger('WebhookRetention');
  private readonly options: ResolvedRetentionOptions;
  private readonly running = new Set<Promise<RetentionReport>>();
  private timer?: NodeJS.Timeout;
  private stopping = false;

  /**
   * @param idempotency expired keys are purged through it; without one that step is skipped.
   * @internal the module constructs it; an app injects it, so its dependencies are not part of the API.
   */
  constructor(
    private readonly queries: RetentionQueries,
    settings: WebhookRetentionSettings,
    private readonly idempotency?: ExpiringIdempotencyRecords | null,
  ) {
    this.options = settings.retention;
  }

  start(): void {
    if (this.options.intervalMs === 0) {
      return;
    }
    this.timer = setInterval(() => {
      if (this.running.size > 0) {
        return;
      }
      this.run().catch((error: unknown) =>
        this.logger.error(`Scheduled retention run failed: ${(error as Error).message}`),
      );
    }, this.options.intervalMs);
    this.timer.unref();
  }

  /** Stops the schedule and lets a running batch finish; the rest waits for the next run. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.stopping = true;
    await Promise.allSettled([...this.running]);
  }

  /**
   * Prunes payloads, deletes events past their dedup window and purges expired idempotency
   * records, as of `now`.
   * @throws TypeError when `now` is not a valid Date; a database error as it comes.
   */
  run(now: Date = new Date()): Promise<RetentionReport> {
    if (!(now instanceof Date) || Number.isNaN(now.getTime())) {
      return Promise.reject(new TypeError('WebhookRetention.run(now) needs a valid Date'));
    }
    const run = this.execute(now);
    this.running.add(run);
    const forget = () => this.running.delete(run);
    run.then(forget, forget);
    return run;
  }

  private async execute(now: Date): Promise<RetentionReport> {
    const payloadsPrunedBefore = new Date(now.getTime() - this.options.processedDays * DAY_MS);
    const eventsDeletedBefore = new Date(now.getTime() - dedupHorizonDays(this.options) * DAY_MS);
    // NOTE: delete first, so no batch is spent pruning rows that are deleted right after.
    const deleted = await this.deleteSettled(eventsDeletedBefore);
    const prunedPayloads = await this.prunePayloads(payloadsPrunedBefore);
    const idempotency =
      this.idempotency && !this.stopping
        ? await this.idempotency.purgeExpired(now, this.options.batchSize)
        : null;
    const report: RetentionReport = {
      payloadsPrunedBefore,
      eventsDeletedBefore,
      prunedPayloads,
      deletedEvents: deleted.events,
      deletedHandlerRuns: deleted.handlerRuns,
      idempotency,
    };
    const purged = idempotency ? idempotency.keys + idempotency.calls : 0;
    if (prunedPayloads + deleted.events + purged > 0) {
      this.logger.log(
        `Pruned ${prunedPayloads} payload(s), deleted ${deleted.events} event(s)` +
          (idempotency
            ? ` and ${idempotency.keys} idempotency key(s), ${idempotency.calls} call(s)`
            : ''),
      );
    }
    return report;
  }

  private async deleteSettled(before: Date): Promise<{ events: number; handlerRuns: number }> {
    const total = { events: 0, handlerRuns: 0 };
    const { batchSize } = this.options;
    while (!this.stopping) {
      const batch = await this.queries.deleteSettled(before, batchSize);
      total.events += batch.events;
      total.handlerRuns += batch.handlerRuns;
      if (batch.found < batchSize) {
        break;
      }
    }
    return total;
  }

  private async prunePayloads(before: Date): Promise<number> {
    const { batchSize } = this.options;
    let pruned = 0;
    let cursor: PrunedPayload | undefined;
    while (!this.stopping) {
      const batch = await this.queries.prunePayloads(before, batchSize, cursor);
      pruned += batch.length;
      if (batch.length < batchSize) {
        break;
      }
      cursor = batch[batch.length - 1];
    }
    return pruned;
  }
}
