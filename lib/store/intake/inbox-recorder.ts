import { EntityManager } from 'typeorm';
import { timeOrderedId } from '../../core/time-ordered-id';
import {
  AnswerDeadline,
  DEFAULT_STORE_TIMEOUT_MS,
  WebhookStoreTimeoutError,
} from '../connections/answer-deadline';
import { LockWaitTimeout } from '../connections/connection-lock';
import { DiskFullWatch, probeEvent } from '../connections/disk-full';
import { fittedTo } from '../schema/fitted-value';
import { GroupCommit } from './group-commit';
import { EventCopies, firstOfEach, retryingCopies, sameEventOf } from './event-copies';
import { dedupKeyOf, dedupKeyOfRow, INSERT_COLUMNS } from '../schema/inbox-columns';
import { InboxNotifications } from '../work/inbox-notifications';
import { IngressConnections } from '../connections/ingress-connections';
import { retryWhileBusy } from '../connections/sqlite-busy';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { queueNew } from '../work/work-rows';
import { storedBodyText } from '../schema/stored-body';
import { inTransaction } from '../connections/transactions';
import { refusedWrites } from '../connections/write-check';
import { WRITE_CHECK_FAILED, WRITE_CHECK_TIMEOUT } from '../connections/write-check.messages';
import { NewWebhookEvent, RecordResult } from '../ports/inbox-writer.port';

/** The columns an upsert returns: its row's key, its id and what `record()` reports. */
const RECORDED_COLUMNS = 'id, endpoint, tenant, event_id, status, delivery_count, body_sha256';

// NOTE: one statement decides "new or duplicate" under the unique index; no read-then-write.
const upsertTail = (returning: string) =>
  'ON CONFLICT (endpoint, tenant, event_id) DO UPDATE SET delivery_count = webhook_events.delivery_count + 1 ' +
  `RETURNING ${returning}`;
const UPSERT_TAIL = upsertTail(RECORDED_COLUMNS);

/** What an upsert of the answer path returns, and whether it queues its new pending events. */
export interface UpsertMode {
  readonly returning: string;
  readonly queue: boolean;
}

/** A delivery stored to be run by the background: the columns `record()` reports, work rows written. */
const RECORDING: UpsertMode = { returning: RECORDED_COLUMNS, queue: true };

/** Events settled on arrival: every column (the event as handlers get it), no work row. */
export const SETTLING: UpsertMode = { returning: '*', queue: false };

/**
 * `upsert` (an INSERT into webhook_events ending in `UPSERT_TAIL`) with the work row of each
 * new pending event written by the same statement, on PostgreSQL: one round trip, atomic.
 */
function withWorkRows(upsert: string): string {
  return (
    `WITH recorded AS (${upsert}, next_attempt_at), queued AS (` +
    'INSERT INTO webhook_work (event_id, status, attempts, next_attempt_at) ' +
    "SELECT id, 'pending', 0, next_attempt_at FROM recorded WHERE delivery_count = 1 AND status = 'pending') " +
    `SELECT ${RECORDED_COLUMNS} FROM recorded`
  );
}

/** A delivery waiting for its group-commit write, and the time it may wait. */
interface PendingRecord {
  readonly event: NewWebhookEvent;
  readonly deadline: AnswerDeadline;
}

/** The columns `record()` reads back from its upsert. */
export interface RecordedRow {
  id: string;
  endpoint: string;
  tenant: string;
  event_id: string;
  status: string;
  delivery_count: number | string;
  body_sha256: string;
  /** Set when the row is another copy's, on which the delivery was counted (see `countedOnCopy()`). */
  copy?: true;
}

/**
 * Most deliveries written by one group-commit statement. SQLite's are larger: its writes take
 * turns with handler transactions on the one connection, so each write must take everything
 * that arrived while a handler held it (22 parameters a row stay under SQLite's 32,766).
 */
const MAX_RECORD_BATCH = { postgres: 200, sqlite: 1_000 } as const;
/**
 * Group-commit writes running at once on PostgreSQL, and the connections kept for them (SQLite
 * has one connection).
 */
const MAX_RECORD_WRITES = 2;

/**
 * Longest an answer waits for the SQLite file before its delivery goes to the intake instead:
 * long enough for the package's own short writes, far shorter than a slow handler.
 */
export const ANSWER_WAIT_MS = 100;

/**
 * Stores verified deliveries on the answer path: concurrent ones share one multi-row upsert
 * (group commit), each write is bounded by the store timeout, and on SQLite a delivery that
 * cannot wait for the database file goes to the intake.
 */
export class InboxRecorder {
  private recordSql: string;
  /** One event's upsert as {@link SETTLING} writes it. */
  private readonly settleSql: string;
  private readonly recorder: GroupCommit<PendingRecord, RecordResult>;
  private readonly ingress?: IngressConnections;
  private readonly timeoutMs: number;
  private readonly copies: EventCopies;
  private readonly disk = new DiskFullWatch();

  constructor(
    private readonly connection: StoreConnection,
    private readonly notifications: InboxNotifications,
    timeoutMs = DEFAULT_STORE_TIMEOUT_MS,
  ) {
    this.copies = new EventCopies(connection);
    const { dialect } = connection;
    this.timeoutMs = timeoutMs;
    if (dialect.kind === 'postgres') {
      this.ingress = new IngressConnections(
        connection.appDataSource,
        MAX_RECORD_WRITES,
        this.timeoutMs,
      );
    }
    const insert =
      `INSERT INTO webhook_events (${INSERT_COLUMNS.join(', ')}) ` +
      `VALUES (${INSERT_COLUMNS.map((_, i) => dialect.param(i + 1)).join(', ')}) `;
    this.recordSql = insert + UPSERT_TAIL;
    this.settleSql = insert + upsertTail(SETTLING.returning);
    if (dialect.kind === 'postgres') {
      this.recordSql = withWorkRows(this.recordSql);
    }
    this.recorder = new GroupCommit(
      (batch) => this.recordBatch(batch),
      MAX_RECORD_BATCH[dialect.kind],
      dialect.kind === 'sqlite' ? 1 : MAX_RECORD_WRITES,
    );
  }

  /**
   * Fails with `WebhookStoreTimeoutError` once the event is not committed within
   * `storeTimeoutMs`. A write already sent may still commit after that; the provider's retry
   * then finds the event stored and is answered as a duplicate.
   */
  record(event: NewWebhookEvent): Promise<RecordResult> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    return this.watched(deadline.race(this.recorder.submit({ event, deadline })));
  }

  /** `written`, noting on the way whether writes fail for want of space (see {@link DiskFullWatch}). */
  watched<T>(written: Promise<T>): Promise<T> {
    return written.then(
      (result) => {
        this.disk.stored();
        return result;
      },
      (error: unknown) => {
        this.disk.failed(error);
        throw error;
      },
    );
  }

  /**
   * Writes concurrent deliveries in one transaction with one multi-row upsert (group commit).
   * When the batch fails and holds more than one delivery, each is retried on its own, so one
   * bad row never turns the others' answers into errors.
   */
  private async recordBatch(
    batch: readonly PendingRecord[],
  ): Promise<PromiseSettledResult<RecordResult>[]> {
    if (batch.length === 1) {
      return Promise.allSettled([this.recordOne(batch[0])]);
    }
    const written = new Map<PendingRecord, RecordedRow>();
    try {
      await this.answering(
        batch.map((pending) => pending.deadline),
        async (manager) => {
          // NOTE: deliveries already answered 503 are left out; their providers send them again.
          const live = batch.filter((pending) => !pending.deadline.expired);
          const values = live.map((pending) => this.rowValues(pending.event));
          const keys = new Set(values.map(dedupKeyOf));
          // NOTE: distinct keys make one statement, atomic on its own: no BEGIN and COMMIT round
          // trips. A key repeated within the batch, or a copy looked for, needs a second
          // statement, so a transaction.
          const single = keys.size === values.length && !values.some(sameEventOf);
          const rows = single
            ? await this.upsertMany(manager, values)
            : await inTransaction(manager, (inner) => this.upsertMany(inner, values));
          live.forEach((pending, i) => written.set(pending, rows[i]));
        },
      );
    } catch (error) {
      const staged = await this.stagedBatch(error, batch, written);
      if (!staged) {
        // NOTE: a write the store held back fails when every delivery in it is past its time, so
        // those retried alone are skipped at once.
        return Promise.allSettled(batch.map((pending) => this.recordOne(pending)));
      }
    }
    return batch.map((pending) => {
      const row = written.get(pending);
      return row
        ? { status: 'fulfilled', value: this.recorded(pending.event, row) }
        : { status: 'rejected', reason: pending.deadline.error() };
    });
  }

  private async recordOne({ event, deadline }: PendingRecord): Promise<RecordResult> {
    const values = this.rowValues(event);
    const [row] = await retryingCopies(() =>
      this.answering([deadline], (manager) => this.upsertedOne(manager, RECORDING, values)),
    ).catch((error: unknown) => this.staged(error, [event]));
    return this.recorded(event, row as RecordedRow);
  }

  /** One event's upsert, or its delivery counted on another copy's row (`countedOnCopy()`). */
  private async upsertedOne(manager: EntityManager, mode: UpsertMode, values: unknown[]) {
    const copy = await this.copies.countedOnCopy<RecordedRow>(manager, values, mode.returning);
    return copy
      ? [copy]
      : this.upserted(manager, mode.queue ? this.recordSql : this.settleSql, values);
  }

  /**
   * Runs a write a provider's answer waits for: on PostgreSQL on a connection kept for it, on
   * SQLite ahead of the handler transactions waiting for the connection, tried again while
   * another connection holds the write lock. Skipped when every delivery waiting for it has
   * been answered already (their time ran out). With an intake, it waits for the file at most
   * {@link ANSWER_WAIT_MS} and then fails with LockWaitTimeout.
   */
  private answering<T>(
    deadlines: readonly AnswerDeadline[],
    work: (manager: EntityManager) => Promise<T>,
  ): Promise<T> {
    deadlines.forEach((deadline) => (deadline.stage = 'connection'));
    const start = (manager: EntityManager): Promise<T> => {
      const waiting = deadlines.filter((deadline) => !deadline.expired);
      if (waiting.length === 0) {
        return Promise.reject(deadlines[0].error());
      }
      waiting.forEach((deadline) => (deadline.stage = 'statement'));
      return work(manager);
    };
    if (this.ingress) {
      return this.ingress.run(start);
    }
    const until = Math.max(...deadlines.map((deadline) => deadline.until));
    return this.connection.lock.run(
      () => {
        const manager = this.connection.dataSource.manager;
        return retryWhileBusy(manager, () => start(manager), until);
      },
      { urgent: true, waitMs: this.connection.sqlite ? ANSWER_WAIT_MS : undefined },
    );
  }

  /**
   * Stores deliveries in the intake when the answer could not wait longer for the database file
   * (`error` is a LockWaitTimeout).
   * @throws `error` when it is anything else.
   */
  private staged(error: unknown, events: readonly NewWebhookEvent[]): Promise<RecordedRow[]> {
    if (!(error instanceof LockWaitTimeout) || !this.connection.sqlite) {
      throw error;
    }
    return this.connection.sqlite.stage(events.map((event) => this.rowValues(event)));
  }

  /**
   * {@link staged} for a group-commit batch: the deliveries still waiting for their answer go to
   * the intake and their rows into `written`. False when the batch's error was not the wait for
   * the file, or the intake failed too.
   */
  private async stagedBatch(
    error: unknown,
    batch: readonly PendingRecord[],
    written: Map<PendingRecord, RecordedRow>,
  ): Promise<boolean> {
    if (!(error instanceof LockWaitTimeout) || !this.connection.sqlite) {
      return false;
    }
    const live = batch.filter((pending) => !pending.deadline.expired);
    try {
      const rows = await this.staged(
        error,
        live.map((pending) => pending.event),
      );
      live.forEach((pending, i) => written.set(pending, rows[i]));
      return true;
    } catch {
      return false;
    }
  }

  /**
   * One multi-row upsert for the first delivery of each key, then one statement per repeated
   * key (an upsert may not touch one row twice); rows come back in the order of `values` (each
   * event's values in `INSERT_COLUMNS` order). Rows are matched to events by their key as
   * stored, so a value fitted to its column finds its event. `wrap` makes the statement sent of
   * the multi-row upsert, binding its own values after the upsert's.
   */
  async upsertMany(
    manager: EntityManager,
    values: readonly unknown[][],
    mode: UpsertMode = RECORDING,
    wrap?: (upsert: string, bind: (value: unknown) => string) => string,
  ): Promise<RecordedRow[]> {
    const copies = await this.copies.countedOnCopies<RecordedRow>(manager, values, mode.returning);
    const first = firstOfEach(values, copies);
    if (first.size === 0) {
      return values.map((_, i) => copies.get(i)!);
    }
    const { params, bind } = parameterList(this.connection.dialect);
    const tuples = [...first.values()].map((i) => `(${values[i].map(bind).join(', ')})`);
    const upsert =
      `INSERT INTO webhook_events (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ` +
      upsertTail(mode.returning);
    const sql = wrap
      ? wrap(upsert, bind)
      : this.connection.dialect.kind === 'postgres' && mode.queue
        ? withWorkRows(upsert)
        : upsert;
    const byKey = new Map<string, RecordedRow>();
    const inserted = await this.upserted(manager, sql, params, { prepare: false });
    for (const row of inserted) {
      byKey.set(dedupKeyOfRow(row), row);
    }
    const rows: RecordedRow[] = [];
    for (const [i, event] of values.entries()) {
      const key = dedupKeyOf(event);
      const copy = copies.get(i);
      if (copy) {
        rows.push(copy);
      } else if (first.get(key) === i) {
        rows.push(byKey.get(key)!);
      } else {
        const [again] = await this.upsertedOne(manager, mode, event);
        rows.push(again);
      }
    }
    return rows;
  }

  async recordAll(events: readonly NewWebhookEvent[]): Promise<RecordResult[]> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    const rows = await this.watched(
      deadline.race(
        retryingCopies(() =>
          this.answering([deadline], (answerManager) =>
            inTransaction(answerManager, async (manager) => {
              const recorded: RecordedRow[] = [];
              for (const event of events) {
                const [row] = await this.upsertedOne(manager, RECORDING, this.rowValues(event));
                recorded.push(row);
              }
              return recorded;
            }),
          ),
        ).catch((error: unknown) => this.staged(error, events)),
      ),
    );
    return rows.map((row, i) => this.recorded(events[i], row));
  }

  /**
   * Runs a short write of the answer path other than an event's (a signed transmission's
   * record) the way events are recorded: on the connections kept for answers, ahead of handler
   * transactions, bounded by `storeTimeoutMs`. On a SQLite file it fails with LockWaitTimeout
   * once the file has been held {@link ANSWER_WAIT_MS}, for the caller to use the intake.
   */
  answer<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    return deadline.race(this.answering([deadline], work));
  }

  async checkWrites(): Promise<string | undefined> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    try {
      return await deadline.race(this.writeRefusal(deadline));
    } catch (error) {
      return error instanceof WebhookStoreTimeoutError
        ? WRITE_CHECK_TIMEOUT(deadline.timeoutMs, deadline.stage)
        : WRITE_CHECK_FAILED(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * Why the package's writes are refused: the write over no row, then, while a full disk is
   * remembered, the probe, in a turn of its own (on SQLite the connection a failed turn leaves
   * is mended before the next).
   */
  private async writeRefusal(deadline: AnswerDeadline): Promise<string | undefined> {
    const refused = await this.answering([deadline], (manager) =>
      refusedWrites(manager, this.connection.dialect),
    );
    return (
      refused ?? this.disk.check(() => this.answering([deadline], (manager) => this.probe(manager)))
    );
  }

  /** Writes a probe row and deletes it again, committed (see `probeEvent()`). */
  private probe(manager: EntityManager): Promise<void> {
    return inTransaction(manager, async (inner) => {
      const [row] = (await this.connection.rows(
        inner,
        this.recordSql,
        this.rowValues(probeEvent()),
      )) as RecordedRow[];
      await this.connection.rows(
        inner,
        `DELETE FROM webhook_events WHERE id = ${this.connection.param(1)}`,
        [row.id],
      );
    });
  }

  /**
   * Runs an upsert of events and writes the work row of each new pending one with it: on
   * PostgreSQL `sql` does both (see {@link withWorkRows}); on SQLite a second statement in the
   * same transaction does (SQLite has no INSERT inside WITH).
   */
  private upserted(
    manager: EntityManager,
    sql: string,
    params: unknown[],
    options?: { prepare: false },
  ): Promise<RecordedRow[]> {
    const { connection } = this;
    if (connection.dialect.kind === 'postgres') {
      return connection.rows(manager, sql, params, options) as Promise<RecordedRow[]>;
    }
    return inTransaction(manager, async (inner) => {
      const rows = (await connection.rows(inner, sql, params, options)) as RecordedRow[];
      await queueNew(connection, inner, rows);
      return rows;
    });
  }

  /**
   * The values of an event's row, in `INSERT_COLUMNS` order, each fitted to its column: a
   * signed delivery never fails to store because of its content (see `fitColumn()`). With
   * `processedAt`, the row of an event settled on arrival: processed at attempt 1.
   */
  rowValues(event: NewWebhookEvent, processedAt?: Date): unknown[] {
    const d = (value: Date | null) => (value === null ? null : this.connection.dialect.date(value));
    const columns = this.connection.events.inserted;
    const values = [
      timeOrderedId(event.receivedAt.getTime()),
      event.endpoint,
      event.tenant ?? '',
      event.provider,
      event.eventId,
      event.type,
      event.nativeType,
      event.paymentRef,
      event.merchantRef,
      event.amount,
      event.currency,
      event.paymentStatus,
      d(event.occurredAt),
      d(event.receivedAt),
      storedBodyText(event.rawBody),
      event.bodySha256,
      JSON.stringify(event.headers),
      processedAt ? 'processed' : event.status,
      processedAt ? 1 : 0,
      event.status === 'pending' && !processedAt ? d(event.receivedAt) : null,
      processedAt ? d(processedAt) : event.status === 'ignored' ? d(event.receivedAt) : null,
      1,
      event.sameEvent ?? null,
    ];
    return values.map((value, i) => (columns[i] ? fittedTo(columns[i], value) : value));
  }

  private recorded(event: NewWebhookEvent, row: RecordedRow): RecordResult {
    if (Number(row.delivery_count) === 1 && event.status === 'pending') {
      this.notifications.announce();
    }
    return {
      id: row.id,
      duplicate: Number(row.delivery_count) > 1,
      sameBody: row.body_sha256 === event.bodySha256,
      status: row.status,
      ...(row.copy ? { copy: true } : {}),
    };
  }
}
