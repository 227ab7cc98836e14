import { EntityManager, In } from 'typeorm';
import { timeOrderedId } from '../../core/time-ordered-id';
import { WebhookHistoryEntity } from '../schema/entities/webhook-history.entity';
import { WebhookPauseEntity } from '../schema/entities/webhook-pause.entity';
import type {
  EventHistoryEntry,
  EventHistoryKind,
  FailedAttempt,
  FailureGroup,
  FailureGroupFilter,
} from '../ports/event-history';
import type { DispatchPause, DispatchPauseScope } from '../ports/pause-queries.port';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { dateOf } from '../schema/stored-date';
import { inTransaction } from '../connections/transactions';
import { PARKED_UNTIL } from '../ports/webhook-event-status';

/** Longest error text kept on a history row: the message and its first frames. */
const MAX_ERROR_LENGTH = 4000;

/** Every endpoint, or every handler, in a pause. */
export const ANY = '*';

/**
 * The rows of `h` (a history row's alias) that are an event's current failures: failed
 * attempts at the attempt its work row (`w`) counts, after its latest replay.
 */
export function currentFailure(h: string, w: string): string {
  return (
    `${h}.kind = 'attempt' AND ${h}.attempt = ${w}.attempts AND NOT EXISTS (` +
    `SELECT 1 FROM webhook_history r WHERE r.event_id = ${h}.event_id AND r.kind = 'replay' AND r.id > ${h}.id)`
  );
}

/** A row of history to write. */
interface HistoryRow {
  readonly eventId: string;
  readonly kind: EventHistoryKind;
  readonly at: Date;
  readonly finishedAt?: Date | null;
  readonly attempt?: number | null;
  readonly handlerKey?: string | null;
  readonly outcome: string;
  readonly errorClass?: string | null;
  readonly error?: string | null;
  readonly fingerprint?: string | null;
  readonly worker?: string | null;
  readonly actor?: string | null;
  readonly detail?: string | null;
}

const COLUMNS =
  'id, event_id, kind, at, finished_at, attempt, handler_key, outcome, error_class, error, ' +
  'fingerprint, worker, actor, detail';

/** Cuts `value` to `length` characters (history is read, never matched, so no digest). */
function cut(value: string | null | undefined, length: number): string | null {
  return value === undefined || value === null ? null : value.slice(0, length);
}

/** Writes history rows in `manager`'s transaction: one statement. */
export async function writeHistory(
  connection: StoreConnection,
  manager: EntityManager,
  rows: readonly HistoryRow[],
): Promise<void> {
  if (rows.length === 0) {
    return;
  }
  const { params, bind } = parameterList(connection.dialect);
  const date = (value: Date | null | undefined) => (value ? connection.dialect.date(value) : null);
  const values = rows.map((row) =>
    [
      timeOrderedId(row.at.getTime()),
      row.eventId,
      row.kind,
      date(row.at),
      date(row.finishedAt),
      row.attempt ?? null,
      cut(row.handlerKey, 255),
      cut(row.outcome, 16),
      cut(row.errorClass, 128),
      cut(row.error, MAX_ERROR_LENGTH),
      cut(row.fingerprint, 64),
      cut(row.worker, 128),
      cut(row.actor, 128),
      row.detail ?? null,
    ]
      .map(bind)
      .join(', '),
  );
  await connection.rows(
    manager,
    `INSERT INTO webhook_history (${COLUMNS}) VALUES (${values.join('), (')})`,
    params,
    { prepare: false },
  );
}

/** The history rows of failed attempts an event settled `outcome` after. */
export function attemptRows(
  eventId: string,
  outcome: 'retrying' | 'dead',
  failed: readonly FailedAttempt[],
): HistoryRow[] {
  return failed.map((attempt) => ({
    eventId,
    kind: 'attempt',
    at: attempt.startedAt,
    finishedAt: attempt.finishedAt,
    attempt: attempt.attempt,
    handlerKey: attempt.handlerKey,
    outcome,
    errorClass: attempt.errorClass,
    error: attempt.error,
    fingerprint: attempt.fingerprint,
    worker: attempt.worker,
  }));
}

/** An event's history, oldest first. */
export async function readHistory(
  manager: EntityManager,
  eventId: string,
): Promise<EventHistoryEntry[]> {
  const rows = await manager.find(WebhookHistoryEntity, {
    where: { eventId },
    order: { id: 'ASC' },
  });
  return rows.map(({ id: _id, eventId: _event, ...entry }) => ({
    ...entry,
    at: dateOf(entry.at)!,
    finishedAt: dateOf(entry.finishedAt),
  }));
}

/**
 * The conditions on `h` (a current failure, see {@link currentFailure}) that `filter` sets,
 * with their parameters bound by `bind`.
 */
export function failureConditions(
  filter: Pick<FailureGroupFilter, 'handler' | 'error' | 'fingerprint'>,
  bind: (value: unknown) => string,
): string[] {
  const conditions: string[] = [];
  if (filter.handler !== undefined) {
    conditions.push(`h.handler_key = ${bind(filter.handler)}`);
  }
  if (filter.fingerprint !== undefined) {
    conditions.push(`h.fingerprint = ${bind(filter.fingerprint)}`);
  }
  if (filter.error !== undefined) {
    conditions.push(`LOWER(h.error) LIKE ${bind(containsPattern(filter.error))} ESCAPE '\\'`);
  }
  return conditions;
}

/** A LIKE pattern (escaped with `\\`) for lower-cased text that contains `text`. */
export function containsPattern(text: string): string {
  return `%${text.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** Dead and retrying events grouped by endpoint, handler and fingerprint, largest first. */
export async function readFailureGroups(
  connection: StoreConnection,
  manager: EntityManager,
  filter: FailureGroupFilter,
  limit: number,
): Promise<FailureGroup[]> {
  const { params, bind } = parameterList(connection.dialect);
  const statuses = filter.status ? [filter.status] : ['dead', 'retrying'];
  const conditions = [
    `w.status IN (${statuses.map(bind).join(', ')})`,
    currentFailure('h', 'w'),
    ...failureConditions(filter, bind),
  ];
  if (filter.endpoint !== undefined) {
    conditions.push(`e.endpoint = ${bind(filter.endpoint)}`);
  }
  if (filter.tenant !== undefined) {
    conditions.push(`e.tenant = ${bind(filter.tenant)}`);
  }
  // NOTE: the sample is the latest failure of the group: the largest history id in it.
  const groups = (await connection.rows(
    manager,
    'SELECT e.endpoint AS endpoint, h.handler_key AS handler_key, h.fingerprint AS fingerprint, ' +
      'COUNT(DISTINCT e.id) AS count, ' +
      "COUNT(DISTINCT CASE WHEN w.status = 'dead' THEN e.id END) AS dead, " +
      'MIN(h.at) AS first_seen, MAX(h.at) AS last_seen, MAX(h.id) AS sample ' +
      'FROM webhook_work w INNER JOIN webhook_events e ON e.id = w.event_id ' +
      'INNER JOIN webhook_history h ON h.event_id = w.event_id ' +
      `WHERE ${conditions.join(' AND ')} ` +
      'GROUP BY e.endpoint, h.handler_key, h.fingerprint ' +
      `ORDER BY COUNT(DISTINCT e.id) DESC, MAX(h.at) DESC LIMIT ${bind(limit)}`,
    params,
    { prepare: false },
  )) as Record<string, unknown>[];
  if (groups.length === 0) {
    return [];
  }
  const samples = await manager.findBy(WebhookHistoryEntity, {
    id: In(groups.map((group) => group.sample as string)),
  });
  const byId = new Map(samples.map((sample) => [sample.id, sample]));
  return groups.map((group) => {
    const sample = byId.get(group.sample as string);
    return {
      endpoint: group.endpoint as string,
      handlerKey: (group.handler_key as string | null) ?? null,
      fingerprint: (group.fingerprint as string | null) ?? '',
      errorClass: sample?.errorClass ?? null,
      count: Number(group.count),
      dead: Number(group.dead),
      firstSeen: dateOf(group.first_seen as Date | string)!,
      lastSeen: dateOf(group.last_seen as Date | string)!,
      sampleId: sample?.eventId ?? '',
      sampleError: sample?.error ?? null,
    };
  });
}

/** The stored pauses, oldest first. */
export async function readPauses(manager: EntityManager): Promise<DispatchPause[]> {
  const rows = await manager.find(WebhookPauseEntity, { order: { pausedAt: 'ASC' } });
  return rows.map((row) => ({
    endpoint: row.endpoint,
    handler: row.handlerKey,
    pausedAt: dateOf(row.pausedAt)!,
    pausedBy: row.pausedBy,
    reason: row.reason,
  }));
}

/** The stored key of a pause's scope. */
export function pauseKey(scope: DispatchPauseScope): { endpoint: string; handlerKey: string } {
  return { endpoint: scope.endpoint ?? ANY, handlerKey: scope.handler ?? ANY };
}

/**
 * Gives back a held event whose handlers `handlerKeys` a pause holds on `endpoint`, its attempt
 * not counted: parked (due at `PARKED_UNTIL`) while a pause still holds one of them, else due
 * now. On PostgreSQL the pauses read are locked (FOR SHARE) until the commit, so a `resume()`
 * deleting one waits for this park and then wakes the event; SQLite has one writer at a time.
 * Resolves to whether the event was parked, or null when the worker no longer held it.
 */
export function parkHeld(
  connection: StoreConnection,
  id: string,
  workerId: string,
  endpoint: string,
  handlerKeys: readonly string[],
  now: Date,
): Promise<boolean | null> {
  return connection.lock.run(() =>
    inTransaction(connection.dataSource, async (manager) => {
      const { dialect } = connection;
      const pauses = parameterList(dialect);
      const held = (await connection.rows(
        manager,
        'SELECT endpoint FROM webhook_pauses ' +
          `WHERE endpoint IN (${pauses.bind(endpoint)}, '${ANY}') ` +
          `AND handler_key IN (${[...handlerKeys, ANY].map(pauses.bind).join(', ')})` +
          (dialect.kind === 'postgres' ? ' FOR SHARE' : ''),
        pauses.params,
        { prepare: false },
      )) as unknown[];
      const parked = held.length > 0;
      const dueAt = parked ? PARKED_UNTIL : now;
      const { params, bind } = parameterList(dialect);
      const [work] = (await connection.rows(
        manager,
        "UPDATE webhook_work SET status = CASE WHEN attempts > 1 THEN 'retrying' ELSE 'pending' END, " +
          `attempts = attempts - 1, next_attempt_at = ${bind(dialect.date(dueAt))}, locked_by = NULL, locked_until = NULL ` +
          `WHERE event_id = ${bind(id)} AND locked_by = ${bind(workerId)} AND status = 'processing' ` +
          'RETURNING status, attempts',
        params,
      )) as { status: 'pending' | 'retrying'; attempts: number | string }[];
      if (!work) {
        return null;
      }
      const event = parameterList(dialect);
      const assignments = connection.events.assignments(
        { status: work.status, nextAttemptAt: dueAt, attempts: Number(work.attempts) },
        event.bind,
      );
      await connection.rows(
        manager,
        `UPDATE webhook_events SET ${assignments.join(', ')} WHERE id = ${event.bind(id)}`,
        event.params,
      );
      return parked;
    }),
  );
}
