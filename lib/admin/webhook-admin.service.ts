import { Inject, Injectable } from '@nestjs/common';
import {
  Brackets,
  EntityManager,
  In,
  LessThan,
  SelectQueryBuilder,
  WhereExpressionBuilder,
} from 'typeorm';
import { WebhookEventEntity } from '../store/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from '../store/entities/webhook-handler-run.entity';
import { fittedTo } from '../store/fitted-value';
import { InboxSignal } from '../store/inbox-signal';
import { WebhookEventStatus } from '../store/webhook-event-status';
import { WebhookStore } from '../store/webhook-store.interface';
import { SafeLogger } from '../observability/safe-logger';

const DEFAULT_LIST_LIMIT = 100;
const MAX_LIST_LIMIT = 1000;
const REPLAY_BATCH = 500;
const PURGE_BATCH = 500;
/**
 * Statuses an event can be put back from: `processing` belongs to a worker, `pending` is
 * already waiting.
 */
const REPLAYABLE: readonly WebhookEventStatus[] = ['processed', 'ignored', 'dead', 'retrying'];
/** Statuses purge may delete: settled events only, never anything still to run. */
const PURGEABLE: readonly WebhookEventStatus[] = ['processed', 'ignored', 'dead'];

/** Which stored events an admin operation applies to. Every field narrows the set. */
export interface WebhookEventFilter {
  /** Endpoint name. */
  endpoint?: string;
  /** One status or several. */
  status?: WebhookEventStatus | readonly WebhookEventStatus[];
  /** Event type, normalized or `'<kind>:<native>'`. */
  type?: string;
  /** The provider's payment id. */
  paymentRef?: string;
  /** The application's order id. */
  merchantRef?: string;
  /** Received at or after. */
  since?: Date;
  /** Received before. */
  until?: Date;
}

/** Options of `WebhookAdmin.list()`. */
export interface WebhookEventListOptions extends WebhookEventFilter {
  /**
   * Most events returned, newest first.
   * @default 100 (at most 1000)
   */
  limit?: number;
}

/** One stored event with what happened to it. */
export interface WebhookEventDetails {
  /** The inbox row. */
  readonly event: WebhookEventEntity;
  /** The handlers that finished for it, with their attempt and outcome. */
  readonly handlerRuns: readonly WebhookHandlerRunEntity[];
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

/** Counts that tell whether the inbox is healthy. */
export interface WebhookInboxStats {
  /** Events per endpoint and status. */
  readonly counts: readonly { endpoint: string; status: WebhookEventStatus; count: number }[];
  /** When the oldest event still waiting to run (pending or retrying) was received. */
  readonly oldestPendingAt: Date | null;
}

/**
 * Looks at and repairs the inbox without SQL: list and show events, put them back through the
 * handlers, settle them by hand, purge old ones. A replayed event runs only the handlers not
 * already in its ledger, so a handler that succeeded never runs twice.
 */
@Injectable()
export class WebhookAdmin {
  private readonly logger = new SafeLogger('WebhookAdmin');

  constructor(
    @Inject(WebhookStore) private readonly store: WebhookStore,
    private readonly signal: InboxSignal,
  ) {}

  /** Stored events matching `options`, newest first. */
  async list(options: WebhookEventListOptions = {}): Promise<WebhookEventEntity[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.store.transaction((manager) =>
      this.filtered(manager.createQueryBuilder(WebhookEventEntity, 'e'), options)
        .orderBy('e.received_at', 'DESC')
        .addOrderBy('e.id', 'DESC')
        .limit(limit)
        .getMany(),
    );
  }

  /** How many stored events match `filter`. */
  count(filter: WebhookEventFilter = {}): Promise<number> {
    return this.store.transaction((manager) =>
      this.filtered(manager.createQueryBuilder(WebhookEventEntity, 'e'), filter).getCount(),
    );
  }

  /** One event by inbox id, with its handler runs; null when there is none. */
  show(id: string): Promise<WebhookEventDetails | null> {
    return this.store.transaction(async (manager) => {
      const event = await manager.findOneBy(WebhookEventEntity, { id });
      if (!event) {
        return null;
      }
      const handlerRuns = await manager.find(WebhookHandlerRunEntity, {
        where: { eventId: id },
        order: { finishedAt: 'ASC' },
      });
      return { event, handlerRuns };
    });
  }

  /**
   * Puts one stored event back through its handlers now, with a fresh attempt budget.
   * Handlers already in its ledger are skipped.
   * @returns false when there is no such event, it is already waiting, or a worker holds it
   * right now.
   */
  async redeliver(id: string): Promise<boolean> {
    const changed = await this.store.transaction((manager) =>
      this.requeue(manager, (qb) => qb.andWhere('id = :id', { id })),
    );
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
      const ids = await this.store.transaction(async (manager) => {
        const rows = await this.filtered(
          manager.createQueryBuilder(WebhookEventEntity, 'e'),
          filter,
        )
          .andWhere('e.status IN (:...replayable)', { replayable: REPLAYABLE })
          .select('e.id', 'id')
          .orderBy('e.received_at', 'ASC')
          .limit(REPLAY_BATCH)
          .getRawMany<{ id: string }>();
        return rows.map((row) => row.id);
      });
      if (ids.length === 0) {
        break;
      }
      replayed += await this.store.transaction((manager) =>
        this.requeue(manager, (qb) => qb.andWhere('id IN (:...ids)', { ids })),
      );
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
    const result = await this.store.transaction((manager) =>
      manager
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({
          status,
          lastError: `Settled by hand: ${reason}`.slice(0, 2000),
          nextAttemptAt: null,
          processedAt: status === 'ignored' ? new Date() : null,
        })
        .where('id = :id', { id })
        .andWhere("status <> 'processing'")
        .execute(),
    );
    return (result.affected ?? 0) > 0;
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
      const batch = await this.store.transaction(async (manager) => {
        const rows = await manager.find(WebhookEventEntity, {
          select: { id: true },
          where: {
            status: In([...statuses]),
            receivedAt: LessThan(options.olderThan),
            ...(options.endpoint === undefined ? {} : { endpoint: options.endpoint }),
          },
          take: PURGE_BATCH,
        });
        const ids = rows.map((row) => row.id);
        if (ids.length > 0) {
          await manager.delete(WebhookHandlerRunEntity, { eventId: In(ids) });
          await manager.delete(WebhookEventEntity, { id: In(ids) });
        }
        return ids.length;
      });
      deleted += batch;
      if (batch < PURGE_BATCH) {
        break;
      }
    }
    return deleted;
  }

  /** Counts per endpoint and status, and the age of the oldest event waiting to run. */
  stats(): Promise<WebhookInboxStats> {
    return this.store.transaction(async (manager) => {
      const rows = await manager
        .createQueryBuilder(WebhookEventEntity, 'e')
        .select('e.endpoint', 'endpoint')
        .addSelect('e.status', 'status')
        .addSelect('COUNT(*)', 'count')
        .groupBy('e.endpoint')
        .addGroupBy('e.status')
        .orderBy('e.endpoint')
        .addOrderBy('e.status')
        .getRawMany<{ endpoint: string; status: WebhookEventStatus; count: string | number }>();
      const oldest = await manager.findOne(WebhookEventEntity, {
        select: { id: true, receivedAt: true },
        where: { status: In(['pending', 'retrying']) },
        order: { receivedAt: 'ASC' },
      });
      return {
        counts: rows.map((row) => ({ ...row, count: Number(row.count) })),
        oldestPendingAt: oldest?.receivedAt ?? null,
      };
    });
  }

  private async requeue(
    manager: EntityManager,
    where: (qb: WhereExpressionBuilder) => WhereExpressionBuilder,
  ): Promise<number> {
    const qb = manager
      .createQueryBuilder()
      .update(WebhookEventEntity)
      .set({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: new Date(),
        processedAt: null,
        lockedBy: null,
        lockedUntil: null,
      })
      .where('status IN (:...replayable)', { replayable: REPLAYABLE });
    where(qb);
    const result = await qb.execute();
    return result.affected ?? 0;
  }

  private filtered(
    qb: SelectQueryBuilder<WebhookEventEntity>,
    filter: WebhookEventFilter,
  ): SelectQueryBuilder<WebhookEventEntity> {
    // NOTE: a value too long for its column (or holding a NUL) is stored fitted to it; the
    // filter is fitted the same way, so the full value finds its event.
    const stored = (property: 'type' | 'paymentRef' | 'merchantRef', value: string) =>
      fittedTo(qb.expressionMap.mainAlias!.metadata.findColumnWithPropertyName(property)!, value);
    return qb.where(
      new Brackets((where) => {
        where.where('1 = 1');
        if (filter.endpoint !== undefined) {
          where.andWhere('e.endpoint = :endpoint', { endpoint: filter.endpoint });
        }
        if (filter.status !== undefined) {
          const statuses = typeof filter.status === 'string' ? [filter.status] : [...filter.status];
          where.andWhere('e.status IN (:...statuses)', { statuses });
        }
        if (filter.type !== undefined) {
          where.andWhere('e.type = :type', { type: stored('type', filter.type) });
        }
        if (filter.paymentRef !== undefined) {
          where.andWhere('e.payment_ref = :paymentRef', {
            paymentRef: stored('paymentRef', filter.paymentRef),
          });
        }
        if (filter.merchantRef !== undefined) {
          where.andWhere('e.merchant_ref = :merchantRef', {
            merchantRef: stored('merchantRef', filter.merchantRef),
          });
        }
        if (filter.since !== undefined) {
          where.andWhere('e.received_at >= :since', { since: filter.since });
        }
        if (filter.until !== undefined) {
          where.andWhere('e.received_at < :until', { until: filter.until });
        }
      }),
    );
  }
}
