import { EntityManager } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { attemptRows, writeHistory } from '../history/event-history';
import type { FailedAttempt } from '../ports/event-history';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { inTransaction } from '../connections/transactions';
import { ProcessedResult } from '../ports/inbox-worker.port';

const MAX_ERROR_LENGTH = 2000;

/** The placeholders of one statement, as `parameterList()` makes them. */
type Binder = ReturnType<typeof parameterList>;

/**
 * The statement on the work row of a held event that settles with `changes.status`: deleted
 * when the event is processed or ignored (its work is over), else kept as retrying or dead with
 * its lease ended. Only the lease holder may settle an event: a worker whose lease expired and
 * was reclaimed by another must not overwrite the newer outcome. It returns the work row's
 * event id and attempts when the event was still held.
 */
function workStatement(
  connection: StoreConnection,
  id: string,
  workerId: string,
  changes: Partial<WebhookEventEntity>,
  { bind }: Binder,
): string {
  // NOTE: placeholders in the order they appear (SQLite's are positional).
  const held = () =>
    `WHERE event_id = ${bind(id)} AND locked_by = ${bind(workerId)} AND status = 'processing' ` +
    'RETURNING event_id, attempts';
  if (changes.status === 'processed' || changes.status === 'ignored') {
    return `DELETE FROM webhook_work ${held()}`;
  }
  const due = changes.nextAttemptAt ? connection.dialect.date(changes.nextAttemptAt) : null;
  const set =
    `UPDATE webhook_work SET status = ${bind(changes.status)}, next_attempt_at = ${bind(due)}, ` +
    'locked_by = NULL, locked_until = NULL ';
  return set + held();
}

/**
 * Settles a held event in `manager`: its work row (see {@link workStatement}) and the event's
 * own row, which takes `changes` and the attempts counted on the work row. On PostgreSQL one
 * statement does both, after `before` (a statement of the same parameter list, run first as a
 * data-modifying WITH); on SQLite, whose statements cost no round trip, `before` runs first and
 * the caller's transaction holds the two that follow. True when the event was still held.
 */
export async function settleHeld(
  connection: StoreConnection,
  manager: EntityManager,
  id: string,
  workerId: string,
  changes: Partial<WebhookEventEntity>,
  before?: { readonly sql: string; readonly binder: Binder },
): Promise<boolean> {
  if (connection.dialect.kind === 'postgres') {
    const binder = before?.binder ?? parameterList(connection.dialect);
    const work = workStatement(connection, id, workerId, changes, binder);
    const assignments = connection.events.assignments(changes, binder.bind);
    const sql =
      `WITH ${before ? `before_settling AS (${before.sql}), ` : ''}held AS (${work}) ` +
      `UPDATE webhook_events SET ${assignments.join(', ')}, attempts = held.attempts ` +
      'FROM held WHERE webhook_events.id = held.event_id RETURNING webhook_events.id';
    return (await connection.rows(manager, sql, binder.params)).length > 0;
  }
  if (before) {
    await connection.rows(manager, before.sql, before.binder.params);
  }
  const binder = parameterList(connection.dialect);
  const work = workStatement(connection, id, workerId, changes, binder);
  const [held] = (await connection.rows(manager, work, binder.params)) as {
    attempts: number | string;
  }[];
  if (!held) {
    return false;
  }
  const event = parameterList(connection.dialect);
  const assignments = connection.events.assignments(
    { ...changes, attempts: Number(held.attempts) },
    event.bind,
  );
  await connection.rows(
    manager,
    `UPDATE webhook_events SET ${assignments.join(', ')} WHERE id = ${event.bind(id)}`,
    event.params,
  );
  return true;
}

/** The changes that mark an event processed with `result`. */
export function processedChanges(
  now: Date,
  result: ProcessedResult = {},
): Partial<WebhookEventEntity> {
  return {
    status: 'processed',
    processedAt: now,
    lastError: null,
    nextAttemptAt: null,
    outcome: result.outcome ?? null,
    providerStatus: result.providerStatus ?? null,
  };
}

/** Settles events a worker holds: processed, ignored, retrying or dead. */
export class EventSettlement {
  constructor(private readonly connection: StoreConnection) {}

  markProcessed(
    id: string,
    workerId: string,
    now: Date,
    result?: ProcessedResult,
  ): Promise<boolean> {
    return this.finish(id, workerId, processedChanges(now, result));
  }

  markIgnored(id: string, workerId: string, now: Date): Promise<boolean> {
    return this.finish(id, workerId, { status: 'ignored', processedAt: now, nextAttemptAt: null });
  }

  scheduleRetry(
    id: string,
    workerId: string,
    nextAttemptAt: Date,
    error: string,
    result: ProcessedResult = {},
    failed: readonly FailedAttempt[] = [],
  ): Promise<boolean> {
    const changes: Partial<WebhookEventEntity> = {
      status: 'retrying',
      nextAttemptAt,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
      ...(result.providerStatus === undefined ? {} : { providerStatus: result.providerStatus }),
    };
    return this.finish(id, workerId, changes, failed);
  }

  markDead(
    id: string,
    workerId: string,
    error: string,
    failed: readonly FailedAttempt[] = [],
  ): Promise<boolean> {
    const changes: Partial<WebhookEventEntity> = {
      status: 'dead',
      nextAttemptAt: null,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
    };
    return this.finish(id, workerId, changes, failed);
  }

  /**
   * True when the event was still held by `workerId`; its `failed` attempts go into its
   * history in the same transaction, only then.
   */
  private finish(
    id: string,
    workerId: string,
    changes: Partial<WebhookEventEntity>,
    failed: readonly FailedAttempt[] = [],
  ): Promise<boolean> {
    const { connection } = this;
    const settle = async (manager: EntityManager) => {
      const held = await settleHeld(connection, manager, id, workerId, changes);
      if (held && failed.length > 0) {
        const outcome = changes.status === 'dead' ? 'dead' : 'retrying';
        await writeHistory(connection, manager, attemptRows(id, outcome, failed));
      }
      return held;
    };
    // NOTE: on PostgreSQL a settlement without history is one statement, which needs no
    // transaction around it.
    return connection.lock.run(() =>
      connection.dialect.kind === 'postgres' && failed.length === 0
        ? settle(connection.dataSource.manager)
        : inTransaction(connection.dataSource, settle),
    );
  }
}
