import type { EntityManager, QueryRunner } from 'typeorm';
import { isCopyConflict } from './event-copies';
import { AnswerDeadline } from '../connections/answer-deadline';
import { LockWaitTimeout } from '../connections/connection-lock';
import { fittedTo } from '../schema/fitted-value';
import { GroupCommit } from './group-commit';
import { HandlerLedger } from '../ledger/handler-ledger';
import { InboxNotifications } from '../work/inbox-notifications';
import { ANSWER_WAIT_MS, InboxRecorder, RecordedRow, SETTLING } from './inbox-recorder';
import { IngressConnections } from '../connections/ingress-connections';
import { INLINE_BOUND_PASSED, INLINE_CUT_OFF } from './inline-settlement.messages';
import { runInSavepoint, SAVEPOINT } from '../ledger/savepoint-run';
import { isSqliteBusy } from '../connections/sqlite-busy';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { inTransaction } from '../connections/transactions';
import type { InboxEvent } from '../ports/inbox-event';
import type { HandlerRunOutcome } from '../ports/inbox-worker.port';
import type { InlineRecordResult, NewWebhookEvent } from '../ports/inbox-writer.port';
import {
  InlineEnd,
  InlineRequest,
  InlineRun,
  InlineRunDeferred,
  InlineSession,
} from '../ports/inline-run';

/** Most deliveries in one transaction settled on arrival. */
const MAX_BATCH = { postgres: 64, sqlite: 256 } as const;
/** Transactions settling on arrival at once on PostgreSQL, and the connections kept for them. */
const MAX_WRITES = 4;

/** A delivery waiting for its transaction. */
interface PendingSettle {
  readonly event: NewWebhookEvent;
  readonly request: InlineRequest;
  readonly run: InlineRun;
  readonly deadline: AnswerDeadline;
}

/** What one delivery's part of a transaction left: its end, and which handlers ran. */
interface Settled {
  readonly event: InboxEvent;
  readonly end: InlineEnd;
  readonly ran: readonly RanHandler[];
  /** The handlers whose ledger rows were written with the event but did not finish. */
  readonly unrun: readonly string[];
}

/** A handler that ran inside the transaction, and the outcome it reported. */
interface RanHandler {
  readonly handlerKey: string;
  readonly outcome: string | undefined;
}

/**
 * Stores fresh events and runs their handlers in the same transaction, before the answer (see
 * `recordInline()` of the store). Concurrent deliveries share one transaction, as group commit
 * shares one upsert: the rows are written processed by one multi-row upsert, each event's
 * handlers then run in turn, each in its own SAVEPOINT (opened only when it sends a statement),
 * and one statement writes the ledger rows and, for the events that did not settle, their work
 * rows. The happy path costs no work row, no claim and no settlement update. Past the bound
 * (counted from the transaction's start) a running handler is cut off and the events whose turn
 * has not come are left pending, due now, to the background.
 */
export class InlineSettlement {
  private readonly batches: GroupCommit<PendingSettle, InlineRecordResult | undefined>;
  private readonly connections?: IngressConnections;

  constructor(
    private readonly connection: StoreConnection,
    private readonly recorder: InboxRecorder,
    private readonly ledger: HandlerLedger,
    private readonly notifications: InboxNotifications,
    private readonly timeoutMs: number,
  ) {
    const { kind } = connection.dialect;
    if (kind === 'postgres') {
      this.connections = new IngressConnections(connection.appDataSource, MAX_WRITES, timeoutMs);
    }
    this.batches = new GroupCommit(
      (batch) => this.settleBatch(batch),
      MAX_BATCH[kind],
      kind === 'postgres' ? MAX_WRITES : 1,
    );
  }

  /**
   * Stores `event` and runs `run` in its transaction; undefined, with nothing written, when the
   * SQLite file is held longer than an answer waits: the caller records the event the usual
   * way. Fails like `record()` when the store fails or does not answer within `storeTimeoutMs`
   * plus `boundMs`.
   */
  record(
    event: NewWebhookEvent,
    request: InlineRequest,
    run: InlineRun,
  ): Promise<InlineRecordResult | undefined> {
    const deadline = new AnswerDeadline(this.timeoutMs + request.boundMs);
    return this.recorder.watched(
      deadline.race(this.batches.submit({ event, request, run, deadline })),
    );
  }

  private async settleBatch(
    batch: readonly PendingSettle[],
  ): Promise<PromiseSettledResult<InlineRecordResult | undefined>[]> {
    // NOTE: deliveries already answered 503 are left out; their providers send them again.
    const live = batch.filter((pending) => !pending.deadline.expired);
    let results: InlineRecordResult[] | undefined;
    try {
      results = live.length > 0 ? await this.transaction(live) : [];
    } catch (error) {
      // NOTE: another process holds the SQLite file: the usual path waits for it or uses the
      // intake. A copy of an event stored meanwhile: the usual path counts the delivery on it.
      if (!(error instanceof LockWaitTimeout || isSqliteBusy(error) || isCopyConflict(error))) {
        throw error;
      }
      results = undefined;
    }
    return batch.map((pending) => {
      const i = live.indexOf(pending);
      return i < 0
        ? { status: 'rejected', reason: pending.deadline.error() }
        : { status: 'fulfilled', value: results?.[i] };
    });
  }

  /** The batch's transaction, on a connection kept for it (PostgreSQL) or the file's (SQLite). */
  private transaction(batch: readonly PendingSettle[]): Promise<InlineRecordResult[]> {
    const work = (manager: EntityManager) =>
      inTransaction(manager, (inner) => this.inTransaction(inner, batch));
    if (this.connections) {
      return this.connections.run(work);
    }
    return this.connection.lock.run(
      () => {
        this.connection.sqlite?.shareSubscribers();
        return work(this.connection.dataSource.manager);
      },
      { urgent: true, waitMs: ANSWER_WAIT_MS },
    );
  }

  private async inTransaction(
    manager: EntityManager,
    batch: readonly PendingSettle[],
  ): Promise<InlineRecordResult[]> {
    const started = Date.now();
    const processedAt = new Date(started);
    const values = batch.map((pending) => this.recorder.rowValues(pending.event, processedAt));
    const rows = await this.store(manager, batch, values, processedAt);
    const boundMs = Math.min(...batch.map((pending) => pending.request.boundMs));
    const turns = new Turns(this.connection, manager.queryRunner!, started + boundMs, boundMs);
    const settled: Settled[] = [];
    const results = batch.map((pending, i): InlineRecordResult => {
      const row = rows[i];
      return {
        id: row.id,
        duplicate: Number(row.delivery_count) > 1,
        sameBody: row.body_sha256 === pending.event.bodySha256,
        status: row.status,
        ...(row.copy ? { copy: true } : {}),
      };
    });
    for (const [i, pending] of batch.entries()) {
      // NOTE: a key twice in one batch: its second delivery is counted as the first's duplicate.
      if (results[i].duplicate) {
        continue;
      }
      const event = this.connection.events.hydrate(
        rows[i] as RecordedRow & Record<string, unknown>,
      );
      event.status = 'processing';
      event.nextAttemptAt = pending.event.receivedAt;
      const session = turns.session(event);
      const end: InlineEnd = turns.passed ? { kind: 'queued' } : await pending.run(session);
      settled.push({
        event,
        end,
        ran: session.ran,
        unrun: pending.request.handlerKeys.filter(
          (key) => !session.ran.some((run) => run.handlerKey === key),
        ),
      });
      if (end.kind !== 'processed') {
        turns.unsettled(event);
      }
      results[i] = {
        ...results[i],
        status:
          end.kind === 'processed' ? 'processed' : end.kind === 'held' ? 'processing' : 'pending',
        end,
      };
    }
    await this.close(manager, settled);
    if (settled.some((one) => one.end.kind === 'queued')) {
      this.notifications.announce();
    }
    return results;
  }

  /**
   * The batch's rows, written processed, with the ledger rows of every handler of its new
   * events (one statement on PostgreSQL; two on SQLite, whose statements cost no round trip).
   * A ledger row is written before its handler runs, as a worker writes it: the transaction's
   * commit is when both count, and `close()` takes back those of the handlers that do not finish.
   */
  private async store(
    manager: EntityManager,
    batch: readonly PendingSettle[],
    values: readonly unknown[][],
    at: Date,
  ): Promise<RecordedRow[]> {
    const { connection } = this;
    // NOTE: the id is the first value of a row (`INSERT_COLUMNS`); a duplicate keeps its own.
    const ledger = batch.flatMap((pending, i) =>
      pending.request.handlerKeys.map((key) => [
        values[i][0],
        this.ledger.fitted('handlerKey', key),
      ]),
    );
    if (connection.dialect.kind === 'postgres') {
      return this.recorder.upsertMany(manager, values, SETTLING, (upsert, bind) =>
        ledger.length === 0
          ? upsert
          : `WITH recorded AS (${upsert}), ledger AS (` +
            'INSERT INTO webhook_handler_runs (event_id, handler_key, attempt, finished_at) ' +
            `SELECT l.event_id, l.handler_key, 1, CAST(${bind(connection.dialect.date(at))} AS timestamptz) ` +
            `FROM (VALUES ${ledger.map((row) => `(${row.map(bind).join(', ')})`).join(', ')}) ` +
            'AS l (event_id, handler_key) JOIN recorded AS r ON r.id = l.event_id) ' +
            'SELECT * FROM recorded',
      );
    }
    const rows = await this.recorder.upsertMany(manager, values, SETTLING);
    const fresh = new Set(
      rows.filter((row) => Number(row.delivery_count) === 1).map((row) => row.id),
    );
    const written = ledger.filter(([id]) => fresh.has(id as string));
    if (written.length > 0) {
      const { params, bind } = parameterList(connection.dialect);
      const when = connection.dialect.date(at);
      await connection.rows(
        manager,
        'INSERT INTO webhook_handler_runs (event_id, handler_key, attempt, finished_at) VALUES ' +
          written.map(([id, key]) => `(${bind(id)}, ${bind(key)}, 1, ${bind(when)})`).join(', '),
        params,
        { prepare: false },
      );
    }
    return rows;
  }

  /**
   * The transaction's last statement, when the batch needs one: the outcomes handlers reported,
   * on their ledger rows and their event; the ledger rows of the handlers that did not finish,
   * taken back; and for the events that did not settle, their row made pending again with its
   * work row (held by a worker, or due now). On PostgreSQL one statement; on SQLite one by one.
   */
  private async close(manager: EntityManager, settled: readonly Settled[]): Promise<void> {
    const pieces: ((bind: (value: unknown) => string) => string)[] = [];
    const reported = settled.flatMap(({ event, ran }) =>
      ran.flatMap(({ handlerKey, outcome }) =>
        outcome === undefined
          ? []
          : [
              [
                event.id,
                this.ledger.fitted('handlerKey', handlerKey),
                this.ledger.fitted('outcome', outcome),
              ],
            ],
      ),
    );
    if (reported.length > 0) {
      pieces.push(
        (bind) =>
          'UPDATE webhook_handler_runs SET outcome = CASE ' +
          reported
            .map(
              ([id, key, outcome]) =>
                `WHEN event_id = ${bind(id)} AND handler_key = ${bind(key)} THEN ${bind(outcome)}`,
            )
            .join(' ') +
          // NOTE: each row named: one statement must not touch a row another part of it deletes.
          ` END WHERE ${reported.map(([id, key]) => `(event_id = ${bind(id)} AND handler_key = ${bind(key)})`).join(' OR ')}`,
      );
    }
    const outcomes = settled.flatMap(({ event, end }) =>
      end.kind === 'processed' && end.outcome !== null
        ? [{ id: event.id, outcome: this.fittedOutcome(end.outcome) }]
        : [],
    );
    if (outcomes.length > 0) {
      pieces.push(
        (bind) =>
          'UPDATE webhook_events SET outcome = CASE id ' +
          outcomes.map(({ id, outcome }) => `WHEN ${bind(id)} THEN ${bind(outcome)}`).join(' ') +
          ` END WHERE id IN (${outcomes.map(({ id }) => bind(id)).join(', ')})`,
      );
    }
    const unrun = settled.flatMap(({ event, unrun }) =>
      unrun.map((key) => [event.id, this.ledger.fitted('handlerKey', key)]),
    );
    if (unrun.length > 0) {
      pieces.push(
        (bind) =>
          'DELETE FROM webhook_handler_runs WHERE ' +
          unrun
            .map(([id, key]) => `(event_id = ${bind(id)} AND handler_key = ${bind(key)})`)
            .join(' OR '),
      );
    }
    const left = settled.filter(({ end }) => end.kind !== 'processed');
    if (left.length > 0) {
      pieces.push(
        (bind) =>
          'INSERT INTO webhook_work (event_id, status, attempts, next_attempt_at, locked_by, locked_until) VALUES ' +
          left
            .map(({ event, end }) => `(${this.workValues(event, end).map(bind).join(', ')})`)
            .join(', '),
        (bind) =>
          "UPDATE webhook_events SET status = 'pending', attempts = 0, processed_at = NULL, " +
          `next_attempt_at = received_at WHERE id IN (${left.map(({ event }) => bind(event.id)).join(', ')})`,
      );
    }
    await this.run(manager, pieces);
  }

  /** `pieces` as one statement on PostgreSQL (all but the last as WITH queries); one by one on SQLite. */
  private async run(
    manager: EntityManager,
    pieces: readonly ((bind: (value: unknown) => string) => string)[],
  ): Promise<void> {
    const { dialect } = this.connection;
    if (pieces.length === 0) {
      return;
    }
    if (dialect.kind === 'postgres') {
      const { params, bind } = parameterList(dialect);
      const texts = pieces.map((piece) => piece(bind));
      const main = texts.pop()!;
      const sql =
        texts.length > 0
          ? `WITH ${texts.map((text, i) => `s${i} AS (${text})`).join(', ')} ${main}`
          : main;
      await this.connection.rows(manager, sql, params, { prepare: false });
      return;
    }
    for (const piece of pieces) {
      const { params, bind } = parameterList(dialect);
      await this.connection.rows(manager, piece(bind), params, { prepare: false });
    }
  }

  /** A work row's values: held by the worker of `end` at attempt 1, or pending and due now. */
  private workValues(event: InboxEvent, end: InlineEnd): unknown[] {
    const due = this.connection.dialect.date(event.receivedAt);
    if (end.kind === 'held') {
      const until = this.connection.dialect.date(new Date(Date.now() + end.leaseMs));
      return [event.id, 'processing', event.attempts, due, end.workerId, until];
    }
    return [event.id, 'pending', 0, due, null, null];
  }

  /** An outcome as the event's column holds it (see `fitColumn()`). */
  private fittedOutcome(outcome: string): unknown {
    return fittedTo(this.connection.events.entity.findColumnWithPropertyName('outcome')!, outcome);
  }
}

/**
 * The turns of the handlers in one transaction: each runs with the time left of the bound, in
 * a SAVEPOINT opened when it sends its first statement (on PostgreSQL the first also sets the
 * transaction's `statement_timeout` to the bound). Once a run is cut off, or the bound has
 * passed, no handler starts any more.
 */
class Turns {
  /** Whether the bound has passed or a run was cut off: nothing more starts. */
  private stopped = false;
  private timeoutSet = false;
  /** The payments of this transaction's events that did not settle. */
  private readonly left = new Set<string>();

  constructor(
    private readonly connection: StoreConnection,
    private readonly runner: QueryRunner,
    private readonly until: number,
    private readonly boundMs: number,
  ) {}

  /** Notes that `event` did not settle: later events of its payment wait for it. */
  unsettled(event: InboxEvent): void {
    this.left.add(paymentKey(event));
  }

  get passed(): boolean {
    return this.stopped || Date.now() >= this.until;
  }

  session(event: InboxEvent): InlineSession & { readonly ran: RanHandler[] } {
    const ran: RanHandler[] = [];
    return {
      event,
      ran,
      earlierUnsettled: () => this.earlierUnsettled(event),
      runHandler: async (_eventId, handlerKey, _attempt, work): Promise<HandlerRunOutcome> => {
        if (this.passed) {
          this.stopped = true;
          throw new InlineRunDeferred(Promise.resolve(), INLINE_BOUND_PASSED(this.boundMs));
        }
        const result = await runInSavepoint(
          this.connection,
          this.runner,
          work,
          this.until - Date.now(),
          INLINE_CUT_OFF(this.boundMs),
          () => this.openSavepoint(),
        );
        switch (result.kind) {
          case 'ran':
            ran.push({ handlerKey, outcome: result.outcome });
            return 'ran';
          case 'failed':
            throw result.error;
          case 'cut':
            this.stopped = true;
            throw new InlineRunDeferred(result.first, INLINE_CUT_OFF(this.boundMs));
        }
      },
    };
  }

  /** The statements that open a run's savepoint, as one text on PostgreSQL. */
  private openSavepoint(): string[] {
    if (this.connection.dialect.kind !== 'postgres' || this.timeoutSet) {
      return [`SAVEPOINT ${SAVEPOINT}`];
    }
    this.timeoutSet = true;
    return [`SET LOCAL statement_timeout = ${this.boundMs}`, `SAVEPOINT ${SAVEPOINT}`];
  }

  /**
   * Whether an earlier event of `event`'s payment (same endpoint and tenant) is unsettled: it has
   * a work row, or did not settle earlier in this transaction, or (PostgreSQL) another
   * transaction settling on arrival holds the payment's advisory lock. That lock is only tried,
   * never waited for, so two transactions never wait on each other's payments crosswise; the one
   * that finds it taken leaves its event to the background, which keeps the order.
   */
  private async earlierUnsettled(event: InboxEvent): Promise<boolean> {
    const { connection } = this;
    const manager = this.runner.manager;
    if (this.left.has(paymentKey(event))) {
      return true;
    }
    if (connection.dialect.kind === 'postgres') {
      const [{ locked }] = (await connection.rows(
        manager,
        'SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked',
        [paymentKey(event)],
      )) as { locked: boolean }[];
      if (!locked) {
        return true;
      }
    }
    const { params, bind } = parameterList(connection.dialect);
    const rows = await connection.rows(
      manager,
      'SELECT 1 AS earlier FROM webhook_work w JOIN webhook_events e ON e.id = w.event_id ' +
        `WHERE e.endpoint = ${bind(event.endpoint)} AND e.tenant = ${bind(event.tenant)} ` +
        `AND e.payment_ref = ${bind(event.paymentRef)} AND e.id <> ${bind(event.id)} LIMIT 1`,
      params,
    );
    return rows.length > 0;
  }
}

/** A payment at an endpoint and tenant, as one string. */
function paymentKey(event: InboxEvent): string {
  return JSON.stringify([event.endpoint, event.tenant, event.paymentRef]);
}
