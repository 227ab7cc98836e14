import { In } from 'typeorm';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { parameterList, StoreConnection } from './store-connection';
import { dateOf } from './stored-date';
import { ClaimOptions, ExpiredLease, ReleaseOptions } from './webhook-store.interface';

/** Claims due events for a worker, extends its leases, and gives held events back. */
export class InboxClaims {
  constructor(private readonly connection: StoreConnection) {}

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
    return rows
      .map((row) => connection.events.hydrate(row))
      .sort((a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0));
  }

  private claimWhere(
    condition: 'expired' | 'due',
    max: number,
    workerId: string,
    leaseMs: number,
    now: Date,
    options: ClaimOptions,
  ): Promise<Record<string, unknown>[]> {
    const { connection } = this;
    const { dialect } = connection;
    const nowValue = dialect.date(now);
    const until = dialect.date(new Date(now.getTime() + leaseMs));
    const ordered = options.orderedEndpoints ?? [];
    const { params, bind } = parameterList(dialect);
    const set = `status = 'processing', locked_by = ${bind(workerId)}, locked_until = ${bind(until)}`;
    const where =
      condition === 'expired'
        ? `e.status = 'processing' AND e.locked_until < ${bind(nowValue)}`
        : `e.status IN ('pending', 'retrying') AND e.next_attempt_at <= ${bind(nowValue)}`;
    let orderGuard = '';
    if (ordered.length > 0) {
      const names = ordered.map((name) => bind(name)).join(', ');
      const at = (alias: string) => `COALESCE(${alias}.occurred_at, ${alias}.received_at)`;
      // NOTE: on an ordered endpoint an event waits while an earlier event of the same payment
      // is still to run or running; a dead one no longer holds the payment back.
      orderGuard =
        ` AND (e.payment_ref IS NULL OR e.endpoint NOT IN (${names}) OR NOT EXISTS (` +
        'SELECT 1 FROM webhook_events o WHERE o.endpoint = e.endpoint AND o.payment_ref = e.payment_ref ' +
        `AND o.id <> e.id AND ((o.status = 'processing' AND o.locked_until >= ${bind(nowValue)}) OR ` +
        `(o.status IN ('pending', 'retrying', 'processing') AND (${at('o')} < ${at('e')} OR ` +
        `(${at('o')} = ${at('e')} AND o.received_at < e.received_at) OR ` +
        `(${at('o')} = ${at('e')} AND o.received_at = e.received_at AND o.id < e.id))))))`;
    }
    const order = condition === 'expired' ? 'e.locked_until' : 'e.next_attempt_at';
    // NOTE: the claimed rows come back whole from the UPDATE itself: no second read.
    const sql =
      `UPDATE webhook_events SET ${set}, attempts = attempts + 1 WHERE id IN (` +
      `SELECT e.id FROM webhook_events e WHERE ${where}${orderGuard} ORDER BY ${order} ` +
      `LIMIT ${bind(max)} ${dialect.skipLocked}) RETURNING ${connection.events.columns}`;
    // NOTE: not prepared: a generic plan, made once for any time and limit, could turn the
    // ordering guard's anti-join into a scan of the whole inbox as it grows; a fresh plan per
    // claim costs little next to the claim, which serves concurrency/2 events.
    return connection.rows(connection.dataSource.manager, sql, params, {
      prepare: false,
    }) as Promise<Record<string, unknown>[]>;
  }

  /** Events whose lease ran out, the longest expired first: who held them, at which attempt. */
  async expiredLeases(now: Date, limit: number): Promise<ExpiredLease[]> {
    const { connection } = this;
    const { params, bind } = parameterList(connection.dialect);
    const sql =
      'SELECT id, attempts, locked_by, next_attempt_at FROM webhook_events ' +
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
      `UPDATE webhook_events SET locked_by = ${bind(holder)}, ` +
      `locked_until = ${bind(dialect.date(new Date(now.getTime() + leaseMs)))}` +
      `${nextAttempt ? ', attempts = attempts + 1' : ''} ` +
      `WHERE id = ${bind(lease.id)} AND status = 'processing' AND ${held} ` +
      `AND attempts = ${bind(lease.attempt)} AND locked_until < ${bind(dialect.date(now))} ` +
      'RETURNING id';
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
    const sql =
      `UPDATE webhook_events SET locked_by = ${bind(workerId)}, ` +
      `locked_until = ${bind(dialect.date(new Date(now.getTime() + leaseMs)))} ` +
      `WHERE id = ${bind(id)} AND status = 'processing' AND attempts = ${bind(attempt)} ` +
      `AND (locked_by = ${bind(from)} OR locked_until < ${bind(dialect.date(now))}) ` +
      `RETURNING ${connection.events.columns}`;
    const rows = (await connection.lock.run(() =>
      connection.rows(connection.dataSource.manager, sql, params),
    )) as Record<string, unknown>[];
    return rows.length === 1 ? connection.events.hydrate(rows[0]) : null;
  }

  /** Extends the lease of events `workerId` still holds. */
  async extendLease(ids: string[], workerId: string, leaseMs: number, now: Date): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    await this.connection.lock.run(() =>
      this.connection.dataSource
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
        .where({ id: In(ids), lockedBy: workerId, status: 'processing' })
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
    await this.connection.lock.run(() =>
      this.connection.dataSource
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({
          status: 'retrying',
          nextAttemptAt: now,
          lockedBy: null,
          lockedUntil: null,
          ...(options.countAttempt ? {} : { attempts: () => 'attempts - 1' }),
        })
        .where({ id: In(ids), lockedBy: workerId, status: 'processing' })
        .execute(),
    );
  }
}
