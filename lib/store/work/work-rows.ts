import { EntityManager } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { dateOf } from '../schema/stored-date';
import type { WorkLease } from '../ports/inbox-event';

/** How `webhook_events` reads with its work row: the row's status when it has one. */
export const LIVE_STATUS = 'COALESCE(w.status, e.status)';

/**
 * Writes the work row of each event among `rows` (an upsert's returned rows) that was stored
 * new and pending. SQLite's way (see `InboxRecorder`); PostgreSQL writes them in the insert.
 */
export async function queueNew(
  connection: StoreConnection,
  manager: EntityManager,
  rows: readonly { id: string; status: string; delivery_count: number | string }[],
): Promise<void> {
  const fresh = rows.filter((row) => row.status === 'pending' && Number(row.delivery_count) === 1);
  if (fresh.length === 0) {
    return;
  }
  const { params, bind } = parameterList(connection.dialect);
  const ids = fresh.map((row) => bind(row.id)).join(', ');
  await connection.rows(
    manager,
    'INSERT INTO webhook_work (event_id, status, attempts, next_attempt_at) ' +
      `SELECT id, 'pending', 0, next_attempt_at FROM webhook_events WHERE id IN (${ids}) ` +
      'ON CONFLICT (event_id) DO NOTHING',
    params,
    { prepare: false },
  );
}

/**
 * The events of claimed work rows, each as its work row has it: `processing`, its attempt and
 * its due time. On SQLite the events are read by a second statement (its UPDATE cannot return
 * another table's columns); on PostgreSQL `claimed` rows already carry the event's columns.
 */
export async function claimedEvents(
  connection: StoreConnection,
  manager: EntityManager,
  claimed: readonly Record<string, unknown>[],
): Promise<WebhookEventEntity[]> {
  if (claimed.length === 0) {
    return [];
  }
  let rows = claimed;
  if (connection.dialect.kind === 'sqlite') {
    const { params, bind } = parameterList(connection.dialect);
    const ids = claimed.map((row) => bind(row.event_id)).join(', ');
    const events = (await connection.rows(
      manager,
      `SELECT ${connection.events.columns} FROM webhook_events WHERE id IN (${ids})`,
      params,
      { prepare: false },
    )) as Record<string, unknown>[];
    const byId = new Map(events.map((event) => [event.id as string, event]));
    rows = claimed.flatMap((work) => {
      const event = byId.get(work.event_id as string);
      return event
        ? [{ ...event, work_attempts: work.attempts, work_due: work.next_attempt_at }]
        : [];
    });
  }
  return rows.map((row) => {
    const event = connection.events.hydrate(row);
    event.status = 'processing';
    event.attempts = Number(row.work_attempts);
    event.nextAttemptAt = dateOf(row.work_due as Date | string | null);
    return event;
  });
}

/**
 * `events` with the live state of those that have a work row: its status, attempts and due
 * time, and its lease.
 */
export async function withWork<
  T extends Pick<WebhookEventEntity, 'id' | 'status' | 'attempts' | 'nextAttemptAt'>,
>(manager: EntityManager, events: readonly T[]): Promise<(T & WorkLease)[]> {
  const work =
    events.length === 0
      ? []
      : await manager
          .createQueryBuilder(WebhookWorkEntity, 'w')
          .where('w.event_id IN (:...ids)', { ids: events.map((event) => event.id) })
          .getMany();
  const byId = new Map(work.map((row) => [row.eventId, row]));
  return events.map((event) => {
    const row = byId.get(event.id);
    return Object.assign(event, {
      ...(row
        ? { status: row.status, attempts: row.attempts, nextAttemptAt: row.nextAttemptAt }
        : {}),
      lockedBy: row?.lockedBy ?? null,
      lockedUntil: row?.lockedUntil ?? null,
    });
  });
}
