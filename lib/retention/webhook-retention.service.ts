import {
  BeforeApplicationShutdown,
  Inject,
  Injectable,
  OnApplicationBootstrap,
  Optional,
} from '@nestjs/common';
import { Brackets, EntityManager, In } from 'typeorm';
import {
  IdempotencyStore,
  PurgedIdempotencyRecords,
} from '../idempotency/idempotency-store.interface';
import { WebhookEventEntity } from '../store/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from '../store/entities/webhook-handler-run.entity';
import { sqlDialectOf } from '../store/sql-dialect';
import { WebhookStore } from '../store/webhook-store.interface';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../webhooks.constants';
import { dedupHorizonDays, type ResolvedRetentionOptions } from './retention-options';
import { SafeLogger } from '../observability/safe-logger';

const DAY_MS = 86_400_000;
/**
 * The only statuses retention touches: handling is over. `dead` events wait for a replay or a
 * purge by hand; `pending`, `retrying` and `processing` are still to run.
 */
const SETTLED = ['processed', 'ignored'] as const;

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

/** Where the payload pruning continues: after this (received_at, id). */
interface PruneCursor {
  readonly receivedAt: Date;
  readonly id: string;
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
@Injectable()
export class WebhookRetention implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new SafeLogger('WebhookRetention');
  private readonly options: ResolvedRetentionOptions;
  private readonly running = new Set<Promise<RetentionReport>>();
  private timer?: NodeJS.Timeout;
  private stopping = false;

  /**
   * @param idempotency expired keys are purged through it; without one that step is skipped.
   */
  constructor(
    @Inject(WebhookStore) private readonly store: WebhookStore,
    @Inject(WEBHOOKS_RESOLVED_OPTIONS) settings: WebhookRetentionSettings,
    @Optional()
    @Inject(IdempotencyStore)
    private readonly idempotency?: ExpiringIdempotencyRecords | null,
  ) {
    this.options = settings.retention;
  }

  onApplicationBootstrap(): void {
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
  async beforeApplicationShutdown(): Promise<void> {
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
      const batch = await this.store.transaction(async (manager) => {
        const rows = await this.settledBefore(manager, before)
          .select('e.id')
          .orderBy('e.received_at', 'ASC')
          .limit(batchSize)
          .getMany();
        if (rows.length === 0) {
          return { found: 0, events: 0, handlerRuns: 0 };
        }
        const ids = rows.map((row) => row.id);
        // NOTE: the rows are locked (PostgreSQL) or the database is (SQLite) until the commit,
        // so no replay can make an event pending between losing its ledger and being deleted.
        const runs = await manager.delete(WebhookHandlerRunEntity, { eventId: In(ids) });
        const events = await manager.delete(WebhookEventEntity, { id: In(ids) });
        return { found: ids.length, events: events.affected ?? 0, handlerRuns: runs.affected ?? 0 };
      });
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
    let cursor: PruneCursor | undefined;
    while (!this.stopping) {
      const batch = await this.store.transaction(async (manager) => {
        const query = this.settledBefore(manager, before)
          .select(['e.id', 'e.receivedAt'])
          .andWhere("(e.raw_body <> '' OR e.headers <> '{}')")
          .orderBy('e.received_at', 'ASC')
          .addOrderBy('e.id', 'ASC')
          .limit(batchSize);
        if (cursor) {
          const { receivedAt, id } = cursor;
          // NOTE: keyset pagination: each run reads past the rows it pruned only once.
          query.andWhere(
            new Brackets((after) =>
              after
                .where('e.received_at > :afterAt', { afterAt: receivedAt })
                .orWhere('(e.received_at = :afterAt AND e.id > :afterId)', { afterId: id }),
            ),
          );
        }
        const rows = await query.getMany();
        if (rows.length > 0) {
          await manager
            .createQueryBuilder()
            .update(WebhookEventEntity)
            .set({ rawBody: '', headers: {} })
            .where({ id: In(rows.map((row) => row.id)) })
            .execute();
        }
        return rows;
      });
      pruned += batch.length;
      if (batch.length < batchSize) {
        break;
      }
      const last = batch[batch.length - 1];
      cursor = { receivedAt: last.receivedAt, id: last.id };
    }
    return pruned;
  }

  /** Settled events received before `before`, locked for this transaction on PostgreSQL. */
  private settledBefore(manager: EntityManager, before: Date) {
    const query = manager
      .createQueryBuilder(WebhookEventEntity, 'e')
      .where('e.status IN (:...settled)', { settled: SETTLED })
      .andWhere('e.received_at < :before', { before });
    if (sqlDialectOf(manager.connection).kind === 'postgres') {
      // NOTE: skip rows a replay or another instance's run holds instead of waiting on them.
      query.setLock('pessimistic_write').setOnLocked('skip_locked');
    }
    return query;
  }
}
