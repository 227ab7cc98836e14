import { In } from 'typeorm';
import { WebhookEventEntity } from '../schema/entities/webhook-event.entity';
import { WebhookWorkEntity } from '../schema/entities/webhook-work.entity';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { dateOf } from '../schema/stored-date';
import { inTransaction } from '../connections/transactions';
import { ClaimOptions, ExpiredLease, ReleaseOptions } from '../ports/inbox-worker.port';
import { claimedEvents } from './work-rows';
import { WorkVacuum } from './work-vacuum';

/** The event's columns as `e.<column>`, for a read that joins its work row. */
function eventColumns(connection: StoreConnection): string {
  return connection.events.entity.columns.map((column) => `e.${column.databaseName}`).join(', ');
}

/**
 * Claims due events for a worker, extends its leases, and gives held events back: all on the
 * events' work rows.
 */
export class InboxClaims {
  constructor(
    private readonly connection: StoreConnection,
    private readonly vacuum?: WorkVacuum,
  ) {}

  /** Claims up to `limit` due events (and events whose lease expired) for `workerId`. */
  async claim(
    workerId: string,
    limit: number,
    leaseMs: number,
    now: Date,
    options: ClaimOptions = {},
  ): Promise<WebhookEventEntity[]> {
    const { connection } = this;
    const claimWhere = (condition: 'expired' | 'due', max: number) =>
      this.claimWhere(condition, max, workerId, leaseMs, now, options);
    const rows = await connection.lock.run(async () => {
      if (connection.sqlite?.staging) {
        // NOTE: deliveries stored in the intake are claimed like the others once moved; a
        // failed move is retried at the next claim and holds back none of the events here.
        await connection.sqlite.moveStaged().catch(() => undefined);
      }
      // NOTE: two statements, each matching one partial index (due events by next_attempt_at,
      // expired leases by locked_until); one query with OR would scan the whole inbox.
      const claimed = options.expired === false ? [] : await claimWhere('expired', limit);
      if (claimed.length < limit) {
        claimed.push(...(await claimWhere('due', limit - claimed.length)));
      }
      return claimed;
    });
    this.vacuum?.claimedRows(rows.length);
    return rows.sort(
      (a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0),
    );
  }

  private async claimWhere(
    condition: 'expired' | 'due',
    max: number,
    workerId: string,
    leaseMs: number,
    now: Date,
    options: ClaimOptions,
  ): Promise<WebhookEventEntity[]> {
    const { connection } = this;
    const { dialect } = connection;
    const nowValue = dialect.date(now);
    const until = dialect.date(new Date(now.getTime() + leaseMs));
    const ordered = options.orderedEndpoints ?? [];
    const { params, bind } = parameterList(dialect);
    const set = `status = 'processing', locked_by = ${bind(workerId)}, locked_until = ${bind(until)}`;
    const where =
      condition === 'expired'
        ? `w.status = 'processing' AND w.locked_until < ${bind(nowValue)}`
        : `w.status IN ('pending', 'retrying') AND w.next_attempt_at <= ${bind(nowValue)}`;
    let from = 'webhook_work w';
    let orderGuard = '';
    if (ordered.length > 0) {
      const names = ordered.map((name) => bind(name)).join(', ');
      const at = (alias: string) => `COALESCE(${alias}.occurred_at, ${alias}.received_at)`;
      // NOTE: on an ordered endpoint an event waits while an earlier event of the same payment
      // is still to run or running; a dead one no longer holds the payment back. The events of
      // a payment are found by the inbox's payment_ref index, their work by its key.
      from = 'webhook_work w JOIN webhook_events e ON e.id = w.event_id';
      orderGuard =
        ` AND (e.payment_ref IS NULL OR e.endpoint NOT IN (${names}) OR NOT EXISTS (` +
        'SELECT 1 FROM webhook_events o JOIN webhook_work ow ON ow.event_id = o.id ' +
        'WHERE o.endpoint = e.endpoint AND o.payment_ref = e.payment_ref ' +
        `AND o.id <> e.id AND ((ow.status = 'processing' AND ow.locked_until >= ${bind(nowValue)}) OR ` +
        `(ow.status IN ('pending', 'retrying', 'processing') AND (${at('o')} < ${at('e')} OR ` +
        `(${at('o')} = ${at('e')} AND o.received_at < e.received_at) OR ` +
        `(${at('o')} = ${at('e')} AND o.received_at = e.received_at AND o.id < e.id))))))`;
    }
    const order = condition === 'expired' ? 'w.locked_until' : 'w.next_attempt_at';
    const lock = dialect.skipLocked === '' ? '' : ' FOR UPDATE OF w SKIP LOCKED';
    const claim =
      `UPDATE webhook_work SET ${set}, attempts = attempts + 1 WHERE event_id IN (` +
      `SELECT w.event_id FROM ${from} WHERE ${where}${orderGuard} ORDER BY ${order} ` +
      `LIMIT ${bind(max)}${lock}) RETURNING event_id, attempts, next_attempt_at`;
    // NOTE: on PostgreSQL the claimed events come back whole from the claim itself: no second
    // read.
    const sql =
      dialect.kind === 'postgres'
        ? `WITH claimed AS (${claim}) SELECT ${eventColumns(connection)}, ` +
          'c.attempts AS work_attempts, c.next_attempt_at AS work_due ' +
          'FROM claimed c JOIN webhook_events e ON e.id = c.event_id'
        : claim;
    // NOTE: not prepared: a generic plan, made once for any time and limit, could turn the
    // ordering guard's anti-join into a scan of the whole inbox as it grows; a fresh plan per
    // claim costs little next to the claim, which serves concurrency/2 events.
    const manager = connection.dataSource.manager;
    const rows = (await connection.rows(manager, sql, params, {
      prepare: false,
    })) as Record<string, unknown>[];
    return claimedEvents(connection, manager, rows);
  }

  /** Events whose lease ran out, the longest expired first: who held them, at which attempt. */
  async expiredLeases(now: Date, limit: number): Promise<ExpiredLease[]> {
    const { connection } = this;
    const { params, bind } = parameterList(connection.dialect);
    const sql =
      'SELECT event_id AS id, attempts, locked_by, next_attempt_at FROM webhook_work ' +
      `WHERE status = 'processing' AND locked_until < ${bind(connection.dialect.date(now))} ` +
      `ORDER BY locked_until LIMIT ${bind(limit)}`;
    // NOTE: not prepared, as the claim: it orders and limits over a range of the inbox.
    const rows = (await connection.lock.run(() =>
      connection.rows(connection.dataSource.manager, sql, params, { prepare: false }),
    )) as {
      id: string;
      attempts: number | string;
      locked_by: string | null;
      next_attempt_at: Date | string | null;
    }[];
    return rows.map((row) => ({
      id: row.id,
      attempt: Number(row.attempts),
      lockedBy: row.locked_by,
      dueAt: dateOf(row.next_attempt_at),
    }));
  }

  /**
   * Moves an event whose lease ran out from its holder to `holder` for `leaseMs`, counting a
   * new attempt when `nextAttempt`; false when someone else moved, renewed or settled it first.
   */
  async handOver(
    lease: ExpiredLease,
    holder: string,
    leaseMs: number,
    now: Date,
    nextAttempt: boolean,
  ): Promise<boolean> {
    const { connection } = this;
    const { dialect } = connection;
    const { params, bind } = parameterList(dialect);
    const held =
      lease.lockedBy === null ? 'locked_by IS NULL' : `locked_by = ${bind(lease.lockedBy)}`;
    const sql =
      `UPDATE webhook_work SET locked_by = ${bind(holder)}, ` +
      `locked_until = ${bind(dialect.date(new Date(now.getTime() + leaseMs)))}` +
      `${nextAttempt ? ', attempts = attempts + 1' : ''} ` +
      `WHERE event_id = ${bind(lease.id)} AND status = 'processing' AND ${held} ` +
      `AND attempts = ${bind(lease.attempt)} AND locked_until < ${bind(dialect.date(now))} ` +
      'RETURNING event_id';
    const rows = await connection.lock.run(() =>
      connection.rows(connection.dataSource.manager, sql, params),
    );
    return rows.length === 1;
  }

  /**
   * Takes event `id` at `attempt` for `workerId`: from `from` (who handed it out), or from any
   * holder whose lease ran out. Null when the event is settled, at another attempt, or held.
   */
  async takeOver(
    id: string,
    attempt: number,
    from: string,
    workerId: string,
    leaseMs: number,
    now: Date,
  ): Promise<WebhookEventEntity | null> {
    const { connection } = this;
    const { dialect } = connection;
    const { params, bind } = parameterList(dialect);
    const take =
      `UPDATE webhook_work SET locked_by = ${bind(workerId)}, ` +
      `locked_until = ${bind(dialect.date(new Date(now.getTime() + leaseMs)))} ` +
      `WHERE event_id = ${bind(id)} AND status = 'processing' AND attempts = ${bind(attempt)} ` +
      `AND (locked_by = ${bind(from)} OR locked_until < ${bind(dialect.date(now))}) ` +
      'RETURNING event_id, attempts, next_attempt_at';
    const sql =
      dialect.kind === 'postgres'
        ? `WITH taken AS (${take}) SELECT ${eventColumns(connection)}, ` +
          't.attempts AS work_attempts, t.next_attempt_at AS work_due ' +
          'FROM taken t JOIN webhook_events e ON e.id = t.event_id'
        : take;
    const [event] = await connection.lock.run(async () => {
      const manager = connection.dataSource.manager;
      const rows = (await connection.rows(manager, sql, params)) as Record<string, unknown>[];
      return claimedEvents(connection, manager, rows);
    });
    return event ?? null;
  }

  /** Extends the lease of events `workerId` still holds. */
  async extendLease(ids: string[], workerId: string, leaseMs: number, now: Date): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    await this.connection.lock.run(() =>
      this.connection.dataSource
        .createQueryBuilder()
        .update(WebhookWorkEntity)
        .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
        .where({ eventId: In(ids), lockedBy: workerId, status: 'processing' })
        .execute(),
    );
  }

  /**
   * Gives held events back for another run now (graceful shutdown): without counting the
   * attempt, unless `countAttempt`.
   */
  async release(
    ids: string[],
    workerId: string,
    now: Date,
    options: ReleaseOptions = {},
  ): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    const { connection } = this;
    await connection.lock.run(() =>
      inTransaction(connection.dataSource, async (manager) => {
        const { params, bind } = parameterList(connection.dialect);
        // NOTE: placeholders in the order they appear (SQLite's are positional).
        const due = bind(connection.dialect.date(now));
        const held = ids.map((id) => bind(id)).join(', ');
        const released = (await connection.rows(
          manager,
          `UPDATE webhook_work SET status = 'retrying', next_attempt_at = ${due}, ` +
            `locked_by = NULL, locked_until = NULL${options.countAttempt ? '' : ', attempts = attempts - 1'} ` +
            `WHERE event_id IN (${held}) AND locked_by = ${bind(workerId)} AND status = 'processing' ` +
            'RETURNING event_id, attempts',
          params,
          { prepare: false },
        )) as { event_id: string; attempts: number | string }[];
        // NOTE: the event's own row says where it stands after this settlement, as always.
        for (const row of released) {
          const event = parameterList(connection.dialect);
          const assignments = connection.events.assignments(
            { status: 'retrying', nextAttemptAt: now, attempts: Number(row.attempts) },
            event.bind,
          );
          await connection.rows(
            manager,
            `UPDATE webhook_events SET ${assignments.join(', ')} WHERE id = ${event.bind(row.event_id)}`,
            event.params,
          );
        }
      }),
    );
  }
}
