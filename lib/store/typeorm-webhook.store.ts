import { randomBytes } from 'node:crypto';
import { DataSource, EntityManager, EntityMetadata, In, QueryRunner } from 'typeorm';
import type { ColumnMetadata } from 'typeorm/metadata/ColumnMetadata';
import { timeOrderedId } from '../core/time-ordered-id';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  AnswerDeadline,
  DEFAULT_STORE_TIMEOUT_MS,
  WebhookStoreTimeoutError,
} from './answer-deadline';
import { pgInline, sendWithBoundary } from './boundary-statements';
import { WebhookEventEntity } from './entities/webhook-event.entity';
import { WebhookHandlerRunEntity } from './entities/webhook-handler-run.entity';
import { ConnectionLock, LockWaitTimeout } from './connection-lock';
import { fittedTo } from './fitted-value';
import { GroupCommit } from './group-commit';
import { INSERT_COLUMNS } from './inbox-columns';
import { IngressConnections, poolSizeOf } from './ingress-connections';
import { checkTables } from './schema-check';
import { retryWhileBusy } from './sqlite-busy';
import { SqlDialect, sqlDialectOf } from './sql-dialect';
import { storedBodyText } from './stored-body';
import {
  APP_TRANSACTION_PATIENCE_MS,
  SqliteConnections,
  makeDurable,
  sqliteFileOf,
} from './sqlite-connections';
import { WEBHOOK_TABLES } from './webhooks-schema';
import { refusedWrites } from './write-check';
import { WRITE_CHECK_FAILED, WRITE_CHECK_TIMEOUT } from './write-check.messages';
import {
  ClaimOptions,
  HandlerRunOutcome,
  HandlerSettlement,
  ProcessedResult,
  NewWebhookEvent,
  RecordResult,
  WebhookStore,
} from './webhook-store.interface';
import { APP_DATA_SOURCE_CLOSED } from './sqlite.messages';
import { MISSING_ENTITIES, MISSING_TABLES, ASYNC_COMMIT } from '../webhooks.messages';

const MAX_ERROR_LENGTH = 2000;

/** A statement and its parameters. */
interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

// NOTE: one statement decides "new or duplicate" under the unique index; no read-then-write.
const UPSERT_TAIL =
  'ON CONFLICT (endpoint, event_id) DO UPDATE SET delivery_count = webhook_events.delivery_count + 1 ' +
  'RETURNING id, endpoint, event_id, status, delivery_count, body_sha256';

/** PostgreSQL channel on which instances announce newly stored events to each other. */
const INBOX_CHANNEL = 'webhook_events_inbox';

/** How long announcements from one process are coalesced, in ms. */
const ANNOUNCE_COALESCE_MS = 10;

/** The part of a `pg` client the listener uses. */
interface NotificationClient {
  query(sql: string): Promise<unknown>;
  on(
    event: 'notification',
    listener: (message: { channel: string; payload?: string }) => void,
  ): void;
  on(event: 'error', listener: (error: Error) => void): void;
  removeAllListeners(event?: string): void;
}

/** A delivery waiting for its group-commit write, and the time it may wait. */
interface PendingRecord {
  readonly event: NewWebhookEvent;
  readonly deadline: AnswerDeadline;
}

/** How the store is set up. */
export interface TypeOrmWebhookStoreOptions {
  /**
   * Longest a delivery's write may take before its answer fails (see `storeTimeoutMs`).
   * @default 2000
   */
  readonly storeTimeoutMs?: number;
  /**
   * On SQLite, the intake file: deliveries that arrive while a transaction holds the database
   * file are stored there, answered, and moved into `webhook_events` once it ends.
   * @default the database's file name with `.webhooks` before its extension
   */
  readonly sqliteIntakePath?: string;
}

/** What the store reads once from the event entity's metadata. */
interface EventTable {
  readonly entity: EntityMetadata;
  /** Every column, as a claim returns them. */
  readonly columns: string;
  /** The column each insert value is fitted to, in `INSERT_COLUMNS` order. */
  readonly inserted: readonly (ColumnMetadata | undefined)[];
}

/** The columns `record()` reads back from its upsert. */
interface RecordedRow {
  id: string;
  endpoint: string;
  event_id: string;
  status: string;
  delivery_count: number | string;
  body_sha256: string;
}

/**
 * Most deliveries written by one group-commit statement. SQLite's are larger: its writes take
 * turns with handler transactions on the one connection, so each write must take everything
 * that arrived while a handler held it (21 parameters a row stay under SQLite's 32,766).
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
const ANSWER_WAIT_MS = 100;

/** How the store is set up beyond its data source. */
/** The inbox on PostgreSQL or SQLite through a TypeORM data source. */
export class TypeOrmWebhookStore implements WebhookStore {
  private readonly dialect: SqlDialect;
  private readonly lock: ConnectionLock;
  private readonly recordSql: string;
  private readonly recorder: GroupCommit<PendingRecord, RecordResult>;
  private readonly ingress?: IngressConnections;
  private readonly timeoutMs: number;
  /** Whether a transaction's first and last statements travel with its BEGIN and COMMIT. */
  private readonly boundaries: boolean;
  private metadata?: EventTable;
  private announcing = false;
  /** Signs this store's notifications, so its own listener can tell them from other instances'. */
  private readonly announcer = randomBytes(8).toString('hex');
  private sqlite?: SqliteConnections;

  constructor(
    private readonly appDataSource: DataSource,
    private readonly options: TypeOrmWebhookStoreOptions = {},
  ) {
    const dataSource = appDataSource;
    this.timeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
    this.dialect = sqlDialectOf(dataSource);
    this.lock = new ConnectionLock(this.dialect.kind === 'sqlite', APP_TRANSACTION_PATIENCE_MS);
    // NOTE: pg-native answers a query of several statements with the last one's rows only.
    this.boundaries =
      this.dialect.kind === 'postgres' && !(dataSource.options as { native?: boolean }).native;
    if (this.dialect.kind === 'postgres') {
      this.ingress = new IngressConnections(dataSource, MAX_RECORD_WRITES, this.timeoutMs);
    }
    const p = (i: number) => this.dialect.param(i);
    this.recordSql =
      `INSERT INTO webhook_events (${INSERT_COLUMNS.join(', ')}) ` +
      `VALUES (${INSERT_COLUMNS.map((_, i) => p(i + 1)).join(', ')}) ` +
      UPSERT_TAIL;
    this.recorder = new GroupCommit(
      (batch) => this.recordBatch(batch),
      MAX_RECORD_BATCH[this.dialect.kind],
      this.dialect.kind === 'sqlite' ? 1 : MAX_RECORD_WRITES,
    );
  }

  /** Checks the data source can hold the inbox durably; fails startup with the fix otherwise. */
  async initialize(): Promise<void> {
    if (!this.dataSource.hasMetadata(WebhookEventEntity)) {
      throw new WebhookConfigurationError(MISSING_ENTITIES);
    }
    if (this.dialect.kind === 'sqlite') {
      await this.lock.run(() => makeDurable(this.appDataSource));
      const file = sqliteFileOf(this.appDataSource);
      if (file) {
        const { sqliteIntakePath } = this.options;
        this.sqlite = await SqliteConnections.open(
          this.appDataSource,
          file,
          this.lock,
          sqliteIntakePath,
        );
      }
    } else {
      const [row] = (await this.dataSource.query('SHOW synchronous_commit')) as {
        synchronous_commit: string;
      }[];
      if (row?.synchronous_commit === 'off') {
        throw new WebhookConfigurationError(ASYNC_COMMIT);
      }
    }
    try {
      const manager = this.dataSource.manager;
      if (!(await this.lock.run(() => checkTables(this.dataSource, manager, WEBHOOK_TABLES)))) {
        throw new WebhookConfigurationError(MISSING_TABLES);
      }
      await this.lock.run(async () => this.sqlite?.moveStaged());
    } catch (error) {
      await this.close();
      throw error;
    }
  }

  /**
   * Where the package's statements go: the app's data source, or on a SQLite file a second
   * connection to it of the package's own (see {@link SqliteConnections}), used only while the
   * app's data source is open.
   */
  private get dataSource(): DataSource {
    if (!this.sqlite) {
      return this.appDataSource;
    }
    if (!this.appDataSource.isInitialized) {
      throw new Error(APP_DATA_SOURCE_CLOSED);
    }
    return this.sqlite.own;
  }

  /** Closes the connections the store opened (on SQLite); the app's data source stays open. */
  async close(): Promise<void> {
    await this.sqlite?.close();
  }

  /** Nest calls it on shutdown, after the dispatcher stopped. */
  onApplicationShutdown(): Promise<void> {
    return this.close();
  }

  /**
   * Fails with `WebhookStoreTimeoutError` once the event is not committed within
   * `storeTimeoutMs`. A write already sent may still commit after that; the provider's retry
   * then finds the event stored and is answered as a duplicate.
   */
  record(event: NewWebhookEvent): Promise<RecordResult> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    return deadline.race(this.recorder.submit({ event, deadline }));
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
          const events = live.map((pending) => pending.event);
          const keys = new Set(events.map((event) => `${event.endpoint}\n${event.eventId}`));
          // NOTE: distinct keys make one statement, atomic on its own: no BEGIN and COMMIT round
          // trips. A key repeated within the batch needs a second statement, so a transaction.
          const rows =
            keys.size === events.length
              ? await this.upsertMany(manager, events)
              : await manager.transaction((inner) => this.upsertMany(inner, events));
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
    const [row] = await this.answering([deadline], (manager) =>
      this.rows(manager, this.recordSql, this.recordParams(event)),
    ).catch((error: unknown) => this.staged(error, [event]));
    return this.recorded(event, row as RecordedRow);
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
    return this.lock.run(
      () => {
        const manager = this.dataSource.manager;
        return retryWhileBusy(manager, () => start(manager), until);
      },
      { urgent: true, waitMs: this.sqlite ? ANSWER_WAIT_MS : undefined },
    );
  }

  /**
   * Stores deliveries in the intake when the answer could not wait longer for the database file
   * (`error` is a LockWaitTimeout).
   * @throws `error` when it is anything else.
   */
  private staged(error: unknown, events: readonly NewWebhookEvent[]): Promise<RecordedRow[]> {
    if (!(error instanceof LockWaitTimeout) || !this.sqlite) {
      throw error;
    }
    return this.sqlite.stage(events.map((event) => this.recordParams(event)));
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
    if (!(error instanceof LockWaitTimeout) || !this.sqlite) {
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
   * key (an upsert may not touch one row twice); rows come back in the order of `events`.
   */
  private async upsertMany(
    manager: EntityManager,
    events: readonly NewWebhookEvent[],
  ): Promise<RecordedRow[]> {
    const keyOf = (endpoint: string, eventId: string) => `${endpoint}\n${eventId}`;
    const first = new Map<string, number>();
    events.forEach((event, i) => {
      const key = keyOf(event.endpoint, event.eventId);
      if (!first.has(key)) {
        first.set(key, i);
      }
    });
    const unique = [...first.values()].map((i) => events[i]);
    const params: unknown[] = [];
    const tuples = unique.map((event) => {
      const values = this.recordParams(event).map((value) => {
        params.push(value);
        return this.dialect.param(params.length);
      });
      return `(${values.join(', ')})`;
    });
    const sql =
      `INSERT INTO webhook_events (${INSERT_COLUMNS.join(', ')}) VALUES ${tuples.join(', ')} ` +
      UPSERT_TAIL;
    const byKey = new Map<string, RecordedRow>();
    for (const row of (await this.rows(manager, sql, params)) as RecordedRow[]) {
      byKey.set(keyOf(row.endpoint, row.event_id), row);
    }
    const rows: RecordedRow[] = [];
    for (const [i, event] of events.entries()) {
      const key = keyOf(event.endpoint, event.eventId);
      if (first.get(key) === i) {
        rows.push(byKey.get(key)!);
      } else {
        const [again] = await this.rows(manager, this.recordSql, this.recordParams(event));
        rows.push(again as RecordedRow);
      }
    }
    return rows;
  }

  async recordAll(events: readonly NewWebhookEvent[]): Promise<RecordResult[]> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    const rows = await deadline.race(
      this.answering([deadline], (answerManager) =>
        answerManager.transaction(async (manager) => {
          const recorded: RecordedRow[] = [];
          for (const event of events) {
            const [row] = await this.rows(manager, this.recordSql, this.recordParams(event));
            recorded.push(row as RecordedRow);
          }
          return recorded;
        }),
      ).catch((error: unknown) => this.staged(error, events)),
    );
    return rows.map((row, i) => this.recorded(events[i], row));
  }

  async checkWrites(): Promise<string | undefined> {
    const deadline = new AnswerDeadline(this.timeoutMs);
    try {
      return await deadline.race(
        this.answering([deadline], (manager) => refusedWrites(manager, this.dialect)),
      );
    } catch (error) {
      return error instanceof WebhookStoreTimeoutError
        ? WRITE_CHECK_TIMEOUT(deadline.timeoutMs, deadline.stage)
        : WRITE_CHECK_FAILED(error instanceof Error ? error.message : String(error));
    }
  }

  /**
   * The values of an event's row, in `INSERT_COLUMNS` order, each fitted to its column: a
   * signed delivery never fails to store because of its content (see `fitColumn()`).
   */
  private recordParams(event: NewWebhookEvent): unknown[] {
    const d = (value: Date | null) => (value === null ? null : this.dialect.date(value));
    const columns = this.eventTable().inserted;
    const values = [
      timeOrderedId(event.receivedAt.getTime()),
      event.endpoint,
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
      event.status,
      0,
      event.status === 'pending' ? d(event.receivedAt) : null,
      event.status === 'ignored' ? d(event.receivedAt) : null,
      1,
    ];
    return values.map((value, i) => (columns[i] ? fittedTo(columns[i], value) : value));
  }

  private recorded(event: NewWebhookEvent, row: RecordedRow): RecordResult {
    if (Number(row.delivery_count) === 1 && event.status === 'pending') {
      this.announce();
    }
    return {
      id: row.id,
      duplicate: Number(row.delivery_count) > 1,
      sameBody: row.body_sha256 === event.bodySha256,
      status: row.status,
    };
  }

  async claim(
    workerId: string,
    limit: number,
    leaseMs: number,
    now: Date,
    options: ClaimOptions = {},
  ): Promise<WebhookEventEntity[]> {
    const nowValue = this.dialect.date(now);
    const until = this.dialect.date(new Date(now.getTime() + leaseMs));
    const ordered = options.orderedEndpoints ?? [];
    // NOTE: two statements, each matching one partial index (due events by next_attempt_at,
    // expired leases by locked_until); one query with OR would scan the whole inbox.
    const claimWhere = (condition: 'expired' | 'due', max: number) => {
      const values: unknown[] = [];
      // NOTE: placeholders are bound in the order they appear in the text: SQLite's are positional.
      const bind = (value: unknown) => {
        values.push(value);
        return this.dialect.param(values.length);
      };
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
        `LIMIT ${bind(max)} ${this.dialect.skipLocked}) RETURNING ${this.eventColumns}`;
      return this.rows(this.dataSource.manager, sql, values) as Promise<Record<string, unknown>[]>;
    };
    const rows = await this.lock.run(async () => {
      if (this.sqlite?.staging) {
        // NOTE: deliveries stored in the intake are claimed like the others once moved; a
        // failed move is retried at the next claim and holds back none of the events here.
        await this.sqlite.moveStaged().catch(() => undefined);
      }
      const claimed = options.expired === false ? [] : await claimWhere('expired', limit);
      if (claimed.length < limit) {
        claimed.push(...(await claimWhere('due', limit - claimed.length)));
      }
      return claimed;
    });
    return rows
      .map((row) => this.hydrate(row))
      .sort((a, b) => (a.nextAttemptAt?.getTime() ?? 0) - (b.nextAttemptAt?.getTime() ?? 0));
  }

  /** The event entity's metadata (read once the data source knows the entity). */
  private get eventMetadata(): EntityMetadata {
    return this.eventTable().entity;
  }

  /** Every column of an event, as a claim returns it. */
  private get eventColumns(): string {
    return this.eventTable().columns;
  }

  private eventTable(): EventTable {
    if (!this.metadata) {
      const entity = this.dataSource.getMetadata(WebhookEventEntity);
      const columns = entity.columns.map((column) => column.databaseName).join(', ');
      // NOTE: the body and the headers are made storable as they are written out (base64 for a
      // body PostgreSQL's text cannot hold, JSON for the headers); checking them again would
      // only cost a scan of the body.
      const inserted = INSERT_COLUMNS.map((name) =>
        name === 'raw_body' || name === 'headers'
          ? undefined
          : entity.findColumnWithDatabaseName(name),
      );
      this.metadata = { entity, columns, inserted };
    }
    return this.metadata;
  }

  /** An event entity from a raw row, converted the way TypeORM reads the column. */
  private hydrate(row: Record<string, unknown>): WebhookEventEntity {
    const entity = new WebhookEventEntity();
    const target = entity as unknown as Record<string, unknown>;
    for (const column of this.eventMetadata.columns) {
      target[column.propertyName] = this.dataSource.driver.prepareHydratedValue(
        row[column.databaseName],
        column,
      );
    }
    return entity;
  }

  async extendLease(ids: string[], workerId: string, leaseMs: number, now: Date): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    await this.lock.run(() =>
      this.dataSource
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({ lockedUntil: new Date(now.getTime() + leaseMs) })
        .where({ id: In(ids), lockedBy: workerId, status: 'processing' })
        .execute(),
    );
  }

  async finishedHandlers(eventId: string): Promise<Map<string, string | null>> {
    const runs = await this.lock.run(() =>
      this.dataSource.getRepository(WebhookHandlerRunEntity).find({
        select: { handlerKey: true, outcome: true },
        where: { eventId },
      }),
    );
    return new Map(runs.map((run) => [run.handlerKey, run.outcome]));
  }

  async runHandler(
    eventId: string,
    handlerKey: string,
    attempt: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
    settle?: HandlerSettlement,
  ): Promise<HandlerRunOutcome> {
    const p = (i: number) => this.dialect.param(i);
    return this.lock.run(async () => {
      this.sqlite?.shareSubscribers();
      const runId = timeOrderedId();
      // NOTE: the ledger row is written first: a second worker that reaches the same
      // (event, handler) waits on the unique index until this transaction ends, then skips.
      // Its time is read once this run has its turn on the connection (SQLite), not before.
      const ledger: Statement = {
        sql:
          `INSERT INTO webhook_handler_runs (id, event_id, handler_key, attempt, finished_at) ` +
          `VALUES (${p(1)}, ${p(2)}, ${p(3)}, ${p(4)}, ${p(5)}) ` +
          'ON CONFLICT (event_id, handler_key) DO NOTHING RETURNING id',
        params: [
          runId,
          eventId,
          this.ledgerValue('handlerKey', handlerKey),
          attempt,
          this.dialect.date(new Date()),
        ],
      };
      const runner = this.dataSource.createQueryRunner();
      try {
        const [inserted] = await this.begin(runner, [ledger]);
        if (inserted.length === 0) {
          await runner.commitTransaction();
          return 'already_done' as const;
        }
        const outcome = await work(runner.manager);
        const last: Statement[] = [];
        if (outcome !== undefined) {
          last.push({
            sql: `UPDATE webhook_handler_runs SET outcome = ${p(1)} WHERE id = ${p(2)}`,
            params: [this.ledgerValue('outcome', outcome), runId],
          });
        }
        if (settle) {
          const result = settle.result(outcome);
          last.push(
            this.settleStatement(eventId, settle.workerId, {
              status: 'processed',
              processedAt: new Date(),
              lastError: null,
              nextAttemptAt: null,
              outcome: result.outcome ?? null,
              providerStatus: result.providerStatus ?? null,
            }),
          );
        }
        const rows = await this.commit(runner, last);
        return settle && rows[rows.length - 1].length > 0
          ? ('ran_and_settled' as const)
          : ('ran' as const);
      } catch (error) {
        if (runner.isTransactionActive) {
          await runner.rollbackTransaction().catch(() => undefined);
        }
        throw error;
      } finally {
        await runner.release();
      }
    });
  }

  /** A value for a ledger column, fitted to it (see `fitColumn()`). */
  private ledgerValue(property: 'handlerKey' | 'outcome', value: string): unknown {
    const ledger = this.dataSource.getMetadata(WebhookHandlerRunEntity);
    return fittedTo(ledger.findColumnWithPropertyName(property)!, value);
  }

  /**
   * Starts a transaction on `runner` with `statements` as its first; on PostgreSQL they travel
   * in the round trip of its BEGIN. Resolves to each statement's rows.
   */
  private async begin(runner: QueryRunner, statements: Statement[]): Promise<unknown[][]> {
    if (this.boundaries) {
      const rows = await sendWithBoundary(
        runner,
        'START TRANSACTION',
        statements.map(({ sql, params }) => pgInline(sql, params)),
        () => runner.startTransaction(),
      );
      if (rows) {
        return rows;
      }
    } else {
      await runner.startTransaction();
    }
    return this.each(runner, statements);
  }

  /**
   * Commits the transaction on `runner` with `statements` as its last; on PostgreSQL they travel
   * in the round trip of its COMMIT. Resolves to each statement's rows.
   */
  private async commit(runner: QueryRunner, statements: Statement[]): Promise<unknown[][]> {
    if (this.boundaries && statements.length > 0) {
      const rows = await sendWithBoundary(
        runner,
        'COMMIT',
        statements.map(({ sql, params }) => pgInline(sql, params)),
        () => runner.commitTransaction(),
      );
      if (rows) {
        return rows;
      }
      // NOTE: TypeORM committed without the COMMIT statement they were to travel with.
      throw new Error(
        'The transaction was committed without its last statements (the outcome and the ' +
          "event's new status); the event is settled when its lease ends",
      );
    }
    const rows = await this.each(runner, statements);
    await runner.commitTransaction();
    return rows;
  }

  private async each(runner: QueryRunner, statements: Statement[]): Promise<unknown[][]> {
    const rows: unknown[][] = [];
    for (const { sql, params } of statements) {
      rows.push(await this.rows(runner.manager, sql, params));
    }
    return rows;
  }

  markProcessed(
    id: string,
    workerId: string,
    now: Date,
    result: ProcessedResult = {},
  ): Promise<boolean> {
    return this.finish(id, workerId, {
      status: 'processed',
      processedAt: now,
      lastError: null,
      nextAttemptAt: null,
      outcome: result.outcome ?? null,
      providerStatus: result.providerStatus ?? null,
    });
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
  ): Promise<boolean> {
    return this.finish(id, workerId, {
      status: 'retrying',
      nextAttemptAt,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
      ...(result.providerStatus === undefined ? {} : { providerStatus: result.providerStatus }),
    });
  }

  markDead(id: string, workerId: string, error: string): Promise<boolean> {
    return this.finish(id, workerId, {
      status: 'dead',
      nextAttemptAt: null,
      lastError: error.slice(0, MAX_ERROR_LENGTH),
    });
  }

  async release(ids: string[], workerId: string, now: Date): Promise<void> {
    if (ids.length === 0) {
      return;
    }
    await this.lock.run(() =>
      this.dataSource
        .createQueryBuilder()
        .update(WebhookEventEntity)
        .set({
          status: 'retrying',
          nextAttemptAt: now,
          lockedBy: null,
          lockedUntil: null,
          attempts: () => 'attempts - 1',
        })
        .where({ id: In(ids), lockedBy: workerId, status: 'processing' })
        .execute(),
    );
  }

  async watch(listener: () => void): Promise<() => Promise<void>> {
    if (this.dialect.kind !== 'postgres') {
      return async () => undefined;
    }
    if (poolSizeOf(this.dataSource) < 2) {
      throw new Error(
        'the PostgreSQL pool has one connection, which listening would hold for good; set the ' +
          "data source's poolSize to 4 or more (2 is enough to listen)",
      );
    }
    const driver = this.dataSource.driver as unknown as {
      obtainMasterConnection(): Promise<[NotificationClient, (error?: Error) => void]>;
    };
    let active = true;
    let current: { client: NotificationClient; release: (error?: Error) => void } | undefined;
    let retry: NodeJS.Timeout | undefined;
    const connect = async (): Promise<void> => {
      if (!active) {
        return;
      }
      try {
        const [client, release] = await driver.obtainMasterConnection();
        current = { client, release };
        client.on('notification', (message) => {
          // NOTE: this process learns of its own inserts from the ingress at once; waking on
          // their echo would only cost a claim that finds nothing.
          if (message.channel === INBOX_CHANNEL && message.payload !== this.announcer) {
            listener();
          }
        });
        client.on('error', (error) => {
          // NOTE: the connection broke (server restart, network): listen again on a new one;
          // polling covers the gap, and a wake-up on reconnect catches what was missed.
          client.removeAllListeners();
          release(error);
          current = undefined;
          retry = setTimeout(() => void connect(), 1000);
          retry.unref();
        });
        await client.query(`LISTEN ${INBOX_CHANNEL}`);
        listener();
      } catch {
        current?.release(new Error('LISTEN failed'));
        current = undefined;
        retry = setTimeout(() => void connect(), 1000);
        retry.unref();
      }
    };
    await connect();
    return async () => {
      active = false;
      clearTimeout(retry);
      if (current) {
        const { client, release } = current;
        current = undefined;
        client.removeAllListeners();
        await client.query(`UNLISTEN ${INBOX_CHANNEL}`).catch(() => undefined);
        release();
      }
    };
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.lock.run(() => {
      this.sqlite?.shareSubscribers();
      return this.dataSource.transaction(work);
    });
  }

  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.lock.run(() => {
      this.sqlite?.shareSubscribers();
      return work(this.dataSource.manager);
    });
  }

  /**
   * Tells other instances a pending event was stored. NOTIFY is sent after the insert committed
   * and at most once per short window, so a burst of deliveries costs one notification. Its
   * payload names this store, whose own listener skips it.
   */
  private announce(): void {
    if (this.dialect.kind !== 'postgres' || this.announcing) {
      return;
    }
    this.announcing = true;
    setTimeout(() => {
      this.announcing = false;
      this.dataSource
        .query(`SELECT pg_notify('${INBOX_CHANNEL}', '${this.announcer}')`)
        .catch(() => undefined);
    }, ANNOUNCE_COALESCE_MS).unref();
  }

  /**
   * Rows of a statement. `query()` returns `[rows, count]` for a PostgreSQL UPDATE … RETURNING
   * and plain rows elsewhere; the structured result is the same on both drivers.
   */
  private async rows(manager: EntityManager, sql: string, params: unknown[]): Promise<unknown[]> {
    const runner = manager.queryRunner ?? this.dataSource.createQueryRunner();
    try {
      const result = await runner.query(sql, params, true);
      return (result.records as unknown[] | undefined) ?? [];
    } finally {
      if (!manager.queryRunner) {
        await runner.release();
      }
    }
  }

  private finish(
    id: string,
    workerId: string,
    changes: Partial<WebhookEventEntity>,
  ): Promise<boolean> {
    return this.lock.run(() => this.settle(this.dataSource.manager, id, workerId, changes));
  }

  /**
   * Applies `changes` to a held event and ends the lease. Only the lease holder may settle an
   * event: a worker whose lease expired and was reclaimed by another must not overwrite the
   * newer outcome. True when the event was still held.
   */
  private async settle(
    manager: EntityManager,
    id: string,
    workerId: string,
    changes: Partial<WebhookEventEntity>,
  ): Promise<boolean> {
    const { sql, params } = this.settleStatement(id, workerId, changes);
    return (await this.rows(manager, sql, params)).length > 0;
  }

  /** The statement `settle()` runs; it returns the event's id when the event was still held. */
  private settleStatement(
    id: string,
    workerId: string,
    changes: Partial<WebhookEventEntity>,
  ): Statement {
    const params: unknown[] = [];
    const bind = (value: unknown) => {
      params.push(value);
      return this.dialect.param(params.length);
    };
    const assignments = Object.entries({ ...changes, lockedBy: null, lockedUntil: null }).map(
      ([property, value]) => {
        const column = this.eventMetadata.findColumnWithPropertyName(property)!;
        const stored: unknown = this.dataSource.driver.preparePersistentValue(value, column);
        return `${column.databaseName} = ${bind(fittedTo(column, stored))}`;
      },
    );
    const sql =
      `UPDATE webhook_events SET ${assignments.join(', ')} ` +
      `WHERE id = ${bind(id)} AND locked_by = ${bind(workerId)} AND status = 'processing' RETURNING id`;
    return { sql, params };
  }
}
