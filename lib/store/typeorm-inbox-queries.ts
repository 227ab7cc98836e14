import { EntityManager, In, LessThan, WhereExpressionBuilder } from 'typeorm';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from './entities/webhook-handler-run.entity';
import { filteredEvents } from './event-filter-query';
import { paymentEventTimes, sampleInbox } from './inbox-samples';
import type {
  DeletedEvents,
  InboxQueries,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  SettledEventSelection,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from './ports/inbox-queries.interface';
import { deleteSettledBatch, prunePayloadBatch } from './retention-batches';
import { StoreConnection } from './store-connection';
import { REPLAYABLE_STATUSES, WebhookEventStatus } from './webhook-event-status';

/**
 * Statuses an event can be put back from: `processing` belongs to a worker, `pending` is
 * already waiting.
 */

/** The columns a list reads: every one but the payload. */
const SUMMARY_COLUMNS: readonly string[] = Object.keys({
  id: true,
  endpoint: true,
  provider: true,
  eventId: true,
  type: true,
  nativeType: true,
  paymentRef: true,
  merchantRef: true,
  amount: true,
  currency: true,
  paymentStatus: true,
  occurredAt: true,
  receivedAt: true,
  bodySha256: true,
  status: true,
  attempts: true,
  nextAttemptAt: true,
  lockedBy: true,
  lockedUntil: true,
  lastError: true,
  processedAt: true,
  deliveryCount: true,
  outcome: true,
  providerStatus: true,
} satisfies Record<keyof WebhookEventSummary, true>).map((property) => `e.${property}`);

/** Longest last error kept on an event. */
const MAX_ERROR_LENGTH = 2000;

/** {@link InboxQueries} on PostgreSQL or SQLite through the store's connection. */
export class TypeOrmInboxQueries implements InboxQueries {
  constructor(private readonly connection: StoreConnection) {}

  list(filter: WebhookEventFilter, limit: number): Promise<WebhookEventSummary[]> {
    return this.connection.transaction((manager) =>
      filteredEvents(manager.createQueryBuilder(WebhookEventEntity, 'e'), filter)
        .select([...SUMMARY_COLUMNS])
        .orderBy('e.received_at', 'DESC')
        .addOrderBy('e.id', 'DESC')
        .limit(limit)
        .getMany(),
    );
  }

  count(filter: WebhookEventFilter): Promise<number> {
    return this.connection.transaction((manager) =>
      filteredEvents(manager.createQueryBuilder(WebhookEventEntity, 'e'), filter).getCount(),
    );
  }

  find(id: string): Promise<WebhookEventDetails | null> {
    return this.connection.transaction(async (manager) => {
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

  replayable(filter: WebhookEventFilter, limit: number): Promise<string[]> {
    return this.connection.transaction(async (manager) => {
      const rows = await filteredEvents(manager.createQueryBuilder(WebhookEventEntity, 'e'), filter)
        .andWhere('e.status IN (:...replayable)', { replayable: REPLAYABLE_STATUSES })
        .select('e.id', 'id')
        .orderBy('e.received_at', 'ASC')
        .limit(limit)
        .getRawMany<{ id: string }>();
      return rows.map((row) => row.id);
    });
  }

  async replay(ids: readonly string[]): Promise<number> {
    if (ids.length === 0) {
      return 0;
    }
    return this.connection.transaction((manager) =>
      this.requeue(manager, (qb) => qb.andWhere('id IN (:...ids)', { ids: [...ids] })),
    );
  }

  async settleByHand(id: string, status: 'dead' | 'ignored', reason: string): Promise<boolean> {
    const result = await this.connection.transaction((manager) =>
      manager
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({
          status,
          lastError: `Settled by hand: ${reason}`.slice(0, MAX_ERROR_LENGTH),
          nextAttemptAt: null,
          processedAt: status === 'ignored' ? new Date() : null,
        })
        .where('id = :id', { id })
        .andWhere("status <> 'processing'")
        .execute(),
    );
    return (result.affected ?? 0) > 0;
  }

  purge(selection: SettledEventSelection, limit: number): Promise<number> {
    return this.connection.transaction(async (manager) => {
      const rows = await manager.find(WebhookEventEntity, {
        select: { id: true },
        where: {
          status: In([...selection.statuses]),
          receivedAt: LessThan(selection.olderThan),
          ...(selection.endpoint === undefined ? {} : { endpoint: selection.endpoint }),
        },
        take: limit,
      });
      const ids = rows.map((row) => row.id);
      if (ids.length > 0) {
        await manager.delete(WebhookHandlerRunEntity, { eventId: In(ids) });
        await manager.delete(WebhookEventEntity, { id: In(ids) });
      }
      return ids.length;
    });
  }

  stats(): Promise<WebhookInboxStats> {
    return this.connection.transaction(async (manager) => {
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

  deleteSettled(before: Date, limit: number): Promise<DeletedEvents> {
    return this.connection.transaction((manager) => deleteSettledBatch(manager, before, limit));
  }

  prunePayloads(before: Date, limit: number, after?: PrunedPayload): Promise<PrunedPayload[]> {
    return this.connection.transaction((manager) =>
      prunePayloadBatch(manager, before, limit, after),
    );
  }

  sample(statuses: readonly WebhookEventStatus[], since: Date | null): Promise<InboxSampleRows> {
    return this.connection.transaction((manager) => sampleInbox(manager, statuses, since));
  }

  paymentEventTimes(paymentRefs: readonly string[]): Promise<PaymentEventTime[]> {
    // NOTE: a single SELECT needs no BEGIN and COMMIT around it, which would triple the round
    // trips of a query that runs every few milliseconds under load.
    return this.connection.read((manager) => paymentEventTimes(manager, paymentRefs));
  }

  async providerKinds(endpoint?: string): Promise<string[]> {
    const rows = await this.connection.transaction((manager) => {
      const query = manager
        .createQueryBuilder(WebhookEventEntity, 'e')
        .select('DISTINCT e.provider', 'provider');
      if (endpoint !== undefined) {
        query.where('e.endpoint = :endpoint', { endpoint });
      }
      return query.getRawMany<{ provider: string }>();
    });
    return rows.map((row) => row.provider);
  }

  /** Puts replayable events back as pending, due now; `where` narrows them. */
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
      .where('status IN (:...replayable)', { replayable: REPLAYABLE_STATUSES });
    where(qb);
    const result = await qb.execute();
    return result.affected ?? 0;
  }
}
