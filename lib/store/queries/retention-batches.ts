import { Brackets, EntityManager, In } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from '../schema/entities/webhook-handler-run.entity';
import { WebhookHistoryEntity } from '../schema/entities/webhook-history.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import type {
  DeletedEvents,
  PrunedPayload,
  RetentionQueries,
} from '../ports/retention-queries.port';
import type { StoreConnection } from '../connections/store-connection';
import { sqlDialectOf } from '../schema/sql-dialect';

/**
 * The only statuses retention touches: handling is over. `dead` events wait for a replay or a
 * purge by hand; `pending`, `retrying` and `processing` are still to run.
 */
const SETTLED = ['processed', 'ignored'] as const;

/** One retention batch of deletions, in the caller's transaction. */
export async function deleteSettledBatch(
  manager: EntityManager,
  before: Date,
  limit: number,
): Promise<DeletedEvents> {
  const rows = await settledBefore(manager, before)
    .select('e.id')
    .orderBy('e.received_at', 'ASC')
    .limit(limit)
    .getMany();
  if (rows.length === 0) {
    return { found: 0, events: 0, handlerRuns: 0 };
  }
  const ids = rows.map((row) => row.id);
  // NOTE: the rows are locked (PostgreSQL) or the database is (SQLite) until the commit,
  // so no replay can make an event pending between losing its ledger and being deleted.
  const runs = await manager.delete(WebhookHandlerRunEntity, { eventId: In(ids) });
  await manager.delete(WebhookHistoryEntity, { eventId: In(ids) });
  // NOTE: a processed or ignored event has no work row; one left by hand would outlive it.
  await manager.delete(WebhookWorkEntity, { eventId: In(ids) });
  const events = await manager.delete(WebhookEventEntity, { id: In(ids) });
  return { found: ids.length, events: events.affected ?? 0, handlerRuns: runs.affected ?? 0 };
}

/** One retention batch of payload pruning, in the caller's transaction. */
export async function prunePayloadBatch(
  manager: EntityManager,
  before: Date,
  limit: number,
  after?: PrunedPayload,
): Promise<PrunedPayload[]> {
  const query = settledBefore(manager, before)
    .select(['e.id', 'e.receivedAt'])
    .andWhere("(e.raw_body <> '' OR e.headers <> '{}')")
    .orderBy('e.received_at', 'ASC')
    .addOrderBy('e.id', 'ASC')
    .limit(limit);
  if (after) {
    const { receivedAt, id } = after;
    // NOTE: keyset pagination: each run reads past the rows it pruned only once.
    query.andWhere(
      new Brackets((next) =>
        next
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
  return rows.map((row) => ({ id: row.id, receivedAt: row.receivedAt }));
}

/** Settled events received before `before`, locked for this transaction on PostgreSQL. */
function settledBefore(manager: EntityManager, before: Date) {
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

/** {@link RetentionQueries} on PostgreSQL or SQLite through the store's connection. */
export class TypeOrmRetentionQueries implements RetentionQueries {
  constructor(private readonly connection: StoreConnection) {}

  deleteSettled(before: Date, limit: number): Promise<DeletedEvents> {
    return this.connection.transaction((manager) => deleteSettledBatch(manager, before, limit));
  }

  prunePayloads(before: Date, limit: number, after?: PrunedPayload): Promise<PrunedPayload[]> {
    return this.connection.transaction((manager) =>
      prunePayloadBatch(manager, before, limit, after),
    );
  }
}
