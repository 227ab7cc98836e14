import { Brackets, EntityManager, ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { BackgroundJobKind, WebhookReplayEntity } from '../schema/entities/webhook-replay.entity';
import { filteredEvents } from '../queries/event-filter-query';
import type { ReplayJob } from '../ports/replay-jobs.port';
import type { WebhookEventFilter } from '../ports/inbox-queries.port';
import { sqlDialectOf } from '../schema/sql-dialect';
import { dateOf } from '../schema/stored-date';
import { REPLAYABLE_STATUSES } from '../ports/webhook-event-status';
import { LIVE_STATUS } from '../work/work-rows';

/** Longest error a replay keeps of its last failed batch. */
const MAX_ERROR_LENGTH = 2000;

/** A filter as a replay keeps it: JSON, dates as ISO text, empty fields left out. */
export function filterText(filter: WebhookEventFilter): string {
  return JSON.stringify(
    Object.fromEntries(
      Object.entries(filter)
        .filter(([, value]) => value !== undefined)
        .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
    ),
  );
}

/** A filter kept by {@link filterText}, its dates read back. */
export function filterOfText(text: string): WebhookEventFilter {
  const parsed = JSON.parse(text) as Record<string, unknown>;
  return {
    ...parsed,
    ...(typeof parsed.since === 'string' ? { since: new Date(parsed.since) } : {}),
    ...(typeof parsed.until === 'string' ? { until: new Date(parsed.until) } : {}),
  } as WebhookEventFilter;
}

/** A stored replay as the port returns it. */
export function replayJobOf(row: WebhookReplayEntity): ReplayJob {
  return {
    id: row.id,
    filter: filterOfText(row.filter),
    status: row.status as ReplayJob['status'],
    total: Number(row.total),
    replayed: Number(row.replayed),
    ratePerSecond: row.ratePerSecond === null ? null : Number(row.ratePerSecond),
    actor: row.actor,
    createdAt: dateOf(row.createdAt)!,
    updatedAt: dateOf(row.updatedAt)!,
    finishedAt: dateOf(row.finishedAt),
    lockedBy: leaseHolderOf(row),
    error: row.error,
  };
}

/** The instance holding a job, while its lease lasts; null when nobody does. */
export function leaseHolderOf(row: WebhookReplayEntity): string | null {
  return row.lockedUntil !== null && dateOf(row.lockedUntil)! > new Date() ? row.lockedBy : null;
}

/** The error a failed batch leaves on its replay. */
export function batchError(error: string): string {
  return error.slice(0, MAX_ERROR_LENGTH);
}

/** Locks the replay's row for this transaction on PostgreSQL (SQLite has one writer). */
export function lockedReplay(
  manager: EntityManager,
  id: string,
): Promise<WebhookReplayEntity | null> {
  const query = manager.createQueryBuilder(WebhookReplayEntity, 'j').where('j.id = :id', { id });
  if (sqlDialectOf(manager.connection).kind === 'postgres') {
    query.setLock('pessimistic_write');
  }
  return query.getOne();
}

/**
 * A running job of `kind` nobody holds, or whose holder's lease ran out, locked for this
 * transaction; of a backfill, only one whose handler is among `handlers`.
 */
export function freeReplay(
  manager: EntityManager,
  now: Date,
  kind: BackgroundJobKind = 'replay',
  handlers?: readonly string[],
): Promise<WebhookReplayEntity | null> {
  const query = manager
    .createQueryBuilder(WebhookReplayEntity, 'j')
    .where('j.status = :status', { status: underWay(kind) })
    .andWhere('j.kind = :kind', { kind })
    .andWhere('(j.locked_until IS NULL OR j.locked_until < :now)', { now });
  if (handlers !== undefined) {
    query.andWhere('j.handler IN (:...handlers)', { handlers });
  }
  query.orderBy('j.created_at', 'ASC').limit(1);
  if (sqlDialectOf(manager.connection).kind === 'postgres') {
    query.setLock('pessimistic_write').setOnLocked('skip_locked');
  }
  return query.getOne();
}

/**
 * The next `limit` events a replay puts back: those its filter matches, in a status a replay
 * puts back, received before it started and after its cursor, oldest first.
 */
export async function nextReplayed(
  manager: EntityManager,
  job: WebhookReplayEntity,
  limit: number,
): Promise<{ id: string; receivedAt: Date }[]> {
  const query = filteredEvents(
    manager.createQueryBuilder(WebhookEventEntity, 'e'),
    filterOfText(job.filter),
    true,
  )
    .andWhere(`${LIVE_STATUS} IN (:...replayable)`, { replayable: REPLAYABLE_STATUSES })
    .andWhere('e.received_at < :startedAt', { startedAt: dateOf(job.createdAt) });
  const rows = await afterCursor(query, job)
    .select('e.id', 'id')
    .addSelect('e.received_at', 'received_at')
    .limit(limit)
    .getRawMany<{ id: string; received_at: unknown }>();
  return rows.map((row) => ({ id: row.id, receivedAt: dateOf(row.received_at)! }));
}

/** `query` (events as `e`) narrowed to the events after `job`'s cursor, oldest first. */
export function afterCursor<T extends ObjectLiteral>(
  query: SelectQueryBuilder<T>,
  job: Pick<WebhookReplayEntity, 'cursorAt' | 'cursorId'>,
): SelectQueryBuilder<T> {
  const cursorAt = dateOf(job.cursorAt);
  if (cursorAt !== null && job.cursorId !== null) {
    query.andWhere(
      new Brackets((after) =>
        after
          .where('e.received_at > :cursorAt', { cursorAt })
          .orWhere('(e.received_at = :cursorAt AND e.id > :cursorId)', { cursorId: job.cursorId }),
      ),
    );
  }
  return query.orderBy('e.received_at', 'ASC').addOrderBy('e.id', 'ASC');
}

/** The status a job of `kind` has while it is under way (see `AddRecoveryJobs1765000000000`). */
export function underWay(kind: BackgroundJobKind): 'running' | 'active' {
  return kind === 'replay' ? 'running' : 'active';
}

/** Cancels a job of `kind` under way; false when there is none under way with that id. */
export async function cancelJob(
  manager: EntityManager,
  id: string,
  kind: BackgroundJobKind,
): Promise<boolean> {
  const now = new Date();
  const result = await manager
    .createQueryBuilder()
    .update(WebhookReplayEntity)
    .set({ status: 'canceled', finishedAt: now, updatedAt: now, lockedBy: null, lockedUntil: null })
    .where('id = :id AND kind = :kind AND status = :status', { id, kind, status: underWay(kind) })
    .execute();
  return (result.affected ?? 0) > 0;
}

/**
 * Takes a job of `kind` under way that nobody holds (or whose lease ran out) for `holder`: of a
 * backfill, one whose handler is among `handlers`.
 */
export async function claimJob(
  manager: EntityManager,
  holder: string,
  leaseMs: number,
  kind: BackgroundJobKind,
  handlers?: readonly string[],
): Promise<WebhookReplayEntity | null> {
  const now = new Date();
  const row = await freeReplay(manager, now, kind, handlers);
  if (!row) {
    return null;
  }
  const lease = { lockedBy: holder, lockedUntil: new Date(now.getTime() + leaseMs) };
  await manager.update(WebhookReplayEntity, { id: row.id }, lease);
  return { ...row, ...lease };
}

/** The jobs of `kind`, newest first, at most `limit`. */
export function jobsOfKind(
  manager: EntityManager,
  kind: BackgroundJobKind,
  limit: number,
): Promise<WebhookReplayEntity[]> {
  return manager.find(WebhookReplayEntity, {
    where: { kind },
    order: { createdAt: 'DESC' },
    take: limit,
  });
}

/** The job `id` when it is of `kind`; null otherwise. */
export function jobOfKind(
  manager: EntityManager,
  id: string,
  kind: BackgroundJobKind,
): Promise<WebhookReplayEntity | null> {
  return manager.findOneBy(WebhookReplayEntity, { id, kind });
}
