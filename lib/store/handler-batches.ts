import type { EntityManager, QueryRunner } from 'typeorm';
import { processedChanges, settleHeld } from './event-settlement';
import { HandlerLedger } from './handler-ledger';
import { fittedTo } from './fitted-value';
import { HANDLER_CUT_OFF, HANDLER_LEFT_TRANSACTION_ABORTED } from './handler-batches.messages';
import { parameterList, StoreConnection } from './store-connection';
import { inTransaction } from './transactions';
import { HandlerRunOutcome, HandlerSettlement } from './webhook-store.interface';

/** How handler runs share transactions (`dispatch.batch`, resolved). */
export interface HandlerBatchSettings {
  /** Most runs in one batch. */
  readonly size: number;
  /** How long a batch waits for more runs after its first, in ms. */
  readonly waitMs: number;
  /** How long one run may hold its batch, and how long a batch starts new runs, in ms. */
  readonly handlerBoundMs: number;
}

/** A statement a handler sent after it was cut off from its batch (see `handlerBoundMs`). */
export class HandlerCutOffError extends Error {
  override readonly name = 'HandlerCutOffError';
}

/** The work of one handler run, as `runHandler()` takes it. */
type HandlerWork = (manager: EntityManager) => Promise<string | undefined>;

/** A run waiting for its batch, and how its caller is answered. */
interface QueuedRun {
  readonly eventId: string;
  readonly handlerKey: string;
  readonly attempt: number;
  readonly work: HandlerWork;
  readonly settle: HandlerSettlement | undefined;
  readonly resolve: (outcome: HandlerRunOutcome) => void;
  readonly reject: (error: unknown) => void;
}

/** How one run of a batch went. */
type RunResult =
  | { readonly kind: 'already_done' }
  | { readonly kind: 'ran'; readonly outcome: string | undefined }
  | { readonly kind: 'failed'; readonly error: unknown }
  /** Held its batch past the bound: rolled back, to run again on its own once `first` ends. */
  | { readonly kind: 'cut'; readonly first: Promise<unknown> }
  /** Not started: the batch was open past the bound; it goes to the next batch. */
  | { readonly kind: 'deferred' };

/** The runs of a batch that did not finish, kept an outcome, or settle their event. */
interface BatchEnd {
  readonly unrun: readonly QueuedRun[];
  readonly outcomes: readonly { readonly run: QueuedRun; readonly outcome: string }[];
  readonly settling: readonly {
    readonly run: QueuedRun;
    readonly settle: HandlerSettlement;
    readonly outcome: string | undefined;
  }[];
}

/** The savepoint each run of a batch sits in (one at a time, so one name serves). */
const SAVEPOINT = 'payment_webhooks_run';

/** PostgreSQL's `query_canceled`, which `statement_timeout` raises. */
const QUERY_CANCELED = '57014';

function ledgerKey(eventId: string, handlerKey: string): string {
  return `${eventId}\u0000${handlerKey}`;
}

function isQueryCanceled(error: unknown): boolean {
  const { code, driverError } = (error ?? {}) as {
    code?: unknown;
    driverError?: { code?: unknown };
  };
  return code === QUERY_CANCELED || driverError?.code === QUERY_CANCELED;
}

/**
 * The batch's query runner as one handler sees it: statements go through while the handler
 * holds its turn; once {@link close}d they fail with {@link HandlerCutOffError}, so a handler cut
 * off at the bound (or one that left a statement unawaited) never writes into the batch's
 * transaction outside its own savepoint.
 */
class FencedRunner {
  readonly runner: QueryRunner;
  /** A statement of the handler was cancelled by `statement_timeout`. */
  timedOut = false;
  /** The last statement of the handler that failed, if one did. */
  failed?: unknown;
  private closed = false;
  private readonly inFlight = new Set<Promise<unknown>>();
  private manager?: EntityManager;

  constructor(target: QueryRunner) {
    this.runner = new Proxy(target, {
      get: (own, property, receiver) => {
        if (property === 'query') {
          return (...args: unknown[]) => this.query(own, receiver as QueryRunner, args);
        }
        if (property === 'manager') {
          return this.manager ?? own.manager;
        }
        return Reflect.get(own, property, receiver) as unknown;
      },
      set: (own, property, value, receiver) => {
        // NOTE: an EntityManager made on this runner claims it as its own; the batch's runner
        // keeps its manager.
        if (property === 'manager') {
          this.manager = value as EntityManager;
          return true;
        }
        return Reflect.set(own, property, value, receiver);
      },
    });
  }

  /** Refuses the handler's statements from now on. */
  close(): void {
    this.closed = true;
  }

  /** Resolves once no statement of the handler is running. */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0) {
      await Promise.allSettled([...this.inFlight]);
    }
  }

  private query(own: QueryRunner, receiver: QueryRunner, args: unknown[]): Promise<unknown> {
    if (this.closed) {
      return Promise.reject(new HandlerCutOffError(HANDLER_CUT_OFF));
    }
    const sent = (own.query as (...values: unknown[]) => Promise<unknown>).apply(receiver, args);
    this.inFlight.add(sent);
    sent.then(
      () => this.inFlight.delete(sent),
      (error: unknown) => {
        this.inFlight.delete(sent);
        this.failed = error;
        this.timedOut ||= isQueryCanceled(error);
      },
    );
    return sent;
  }
}

/**
 * Handler runs committed in batches. Runs that arrive within `waitMs` of each other (up to
 * `size`) share one transaction: one statement writes all their ledger rows first (a run whose
 * row exists already does not run), each handler then runs inside its own SAVEPOINT (a failure
 * rolls back to it), and one statement at the end keeps the outcomes, takes back the ledger rows
 * of the runs that did not finish, and settles the events whose last handler ran. The commit is
 * when every run of the batch counts; until then none does, so a crash anywhere before it loses
 * no event and runs nothing twice. A handler that holds the batch longer than `handlerBoundMs` is
 * cut off (see {@link FencedRunner}) and runs again on its own.
 */
export class HandlerBatches {
  private queue: QueuedRun[] = [];
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly connection: StoreConnection,
    private readonly ledger: HandlerLedger,
    private readonly settings: HandlerBatchSettings,
  ) {}

  /** `runHandler()` of the store, answered once the run's batch has committed. */
  runHandler(
    eventId: string,
    handlerKey: string,
    attempt: number,
    work: HandlerWork,
    settle?: HandlerSettlement,
  ): Promise<HandlerRunOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ eventId, handlerKey, attempt, work, settle, resolve, reject });
      this.schedule();
    });
  }

  /** Starts a batch when one is full, else makes sure one starts within `waitMs`. */
  private schedule(): void {
    if (this.queue.length >= this.settings.size) {
      this.flush();
    } else if (this.queue.length > 0 && !this.timer) {
      this.timer = setTimeout(() => this.flush(), this.settings.waitMs);
    }
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const runs = this.queue.splice(0, this.settings.size);
    if (runs.length > 0) {
      void this.execute(runs);
    }
    this.schedule();
  }

  private async execute(runs: readonly QueuedRun[]): Promise<void> {
    if (runs.length === 1) {
      // NOTE: a batch of one has no mates to keep apart or to hold: its own transaction does the
      // same in two round trips fewer (no savepoint, no statement timeout to set and reset).
      const [run] = runs;
      await this.ledger
        .runHandler(run.eventId, run.handlerKey, run.attempt, run.work, run.settle)
        .then(run.resolve, run.reject);
      return;
    }
    let results: Map<QueuedRun, RunResult>;
    let settled: ReadonlySet<string>;
    try {
      ({ results, settled } = await this.connection.lock.run(() => {
        this.connection.sqlite?.shareSubscribers();
        return inTransaction(this.connection.dataSource, (manager) => this.inBatch(manager, runs));
      }));
    } catch (error) {
      // NOTE: the batch did not commit: no run of it counts, and each fails as its own would.
      runs.forEach((run) => run.reject(error));
      return;
    }
    const deferred: QueuedRun[] = [];
    for (const run of runs) {
      const result = results.get(run)!;
      switch (result.kind) {
        case 'already_done':
          run.resolve('already_done');
          break;
        case 'ran':
          run.resolve(settled.has(run.eventId) && run.settle ? 'ran_and_settled' : 'ran');
          break;
        case 'failed':
          run.reject(result.error);
          break;
        case 'cut':
          // NOTE: never two runs of one handler at once: the second starts when the first ends.
          void result.first
            .catch(() => undefined)
            .then(() =>
              this.ledger.runHandler(
                run.eventId,
                run.handlerKey,
                run.attempt,
                run.work,
                run.settle,
              ),
            )
            .then(run.resolve, run.reject);
          break;
        case 'deferred':
          deferred.push(run);
          break;
      }
    }
    if (deferred.length > 0) {
      this.queue.unshift(...deferred);
      this.flush();
    }
  }

  /** The batch's work inside its transaction on `manager`. */
  private async inBatch(
    manager: EntityManager,
    runs: readonly QueuedRun[],
  ): Promise<{ results: Map<QueuedRun, RunResult>; settled: ReadonlySet<string> }> {
    const runner = manager.queryRunner!;
    const results = new Map<QueuedRun, RunResult>();
    const claimed = await this.claimLedgerRows(manager, runs, results);
    const postgres = this.connection.dialect.kind === 'postgres';
    const started = Date.now();
    let inSavepoint = false;
    for (const run of claimed) {
      if (inSavepoint && Date.now() - started >= this.settings.handlerBoundMs) {
        results.set(run, { kind: 'deferred' });
        continue;
      }
      await this.savepointStatements(
        runner,
        inSavepoint
          ? [`RELEASE SAVEPOINT ${SAVEPOINT}`, `SAVEPOINT ${SAVEPOINT}`]
          : postgres
            ? [
                `SET LOCAL statement_timeout = ${this.settings.handlerBoundMs}`,
                `SAVEPOINT ${SAVEPOINT}`,
              ]
            : [`SAVEPOINT ${SAVEPOINT}`],
      );
      inSavepoint = true;
      results.set(run, await this.runInSavepoint(runner, run));
    }
    if (inSavepoint) {
      await this.savepointStatements(
        runner,
        postgres
          ? [`RELEASE SAVEPOINT ${SAVEPOINT}`, 'SET LOCAL statement_timeout TO DEFAULT']
          : [`RELEASE SAVEPOINT ${SAVEPOINT}`],
      );
    }
    const settled = await this.finish(manager, claimed, results);
    return { results, settled };
  }

  /**
   * Statements without parameters between the runs: one round trip on PostgreSQL (a text of
   * several statements), one by one on SQLite, whose driver takes one at a time.
   */
  private async savepointStatements(
    runner: QueryRunner,
    statements: readonly string[],
  ): Promise<void> {
    if (this.connection.dialect.kind === 'postgres') {
      await runner.query(statements.join('; '));
      return;
    }
    for (const statement of statements) {
      await runner.query(statement);
    }
  }

  /**
   * Writes the ledger rows of `runs` in one statement, in key order (two batches never wait on
   * each other's rows crosswise), and returns the runs whose row it wrote, in arrival order.
   * The others are done already, or are a second run of a key in this batch, which waits for the
   * next one as it would wait on the first's row.
   */
  private async claimLedgerRows(
    manager: EntityManager,
    runs: readonly QueuedRun[],
    results: Map<QueuedRun, RunResult>,
  ): Promise<QueuedRun[]> {
    const unique = new Map<string, QueuedRun>();
    for (const run of runs) {
      const key = ledgerKey(run.eventId, this.ledgerHandlerKey(run));
      if (unique.has(key)) {
        results.set(run, { kind: 'deferred' });
      } else {
        unique.set(key, run);
      }
    }
    const { params, bind } = parameterList(this.connection.dialect);
    const now = this.connection.dialect.date(new Date());
    const values = [...unique.values()]
      .sort((a, b) => compare(a.eventId, b.eventId) || compare(a.handlerKey, b.handlerKey))
      .map(
        (run) =>
          `(${[run.eventId, this.ledgerHandlerKey(run), run.attempt, now].map(bind).join(', ')})`,
      );
    const rows = (await this.connection.rows(
      manager,
      'INSERT INTO webhook_handler_runs (event_id, handler_key, attempt, finished_at) ' +
        `VALUES ${values.join(', ')} ON CONFLICT (event_id, handler_key) DO NOTHING ` +
        'RETURNING event_id, handler_key',
      params,
      { prepare: false },
    )) as { event_id: string; handler_key: string }[];
    const written = new Set(rows.map((row) => ledgerKey(row.event_id, row.handler_key)));
    const claimed: QueuedRun[] = [];
    for (const [key, run] of unique) {
      if (written.has(key)) {
        claimed.push(run);
      } else {
        results.set(run, { kind: 'already_done' });
      }
    }
    return claimed;
  }

  /** The run's handler key as its ledger row holds it (see `fitColumn()`). */
  private ledgerHandlerKey(run: QueuedRun): string {
    return String(this.ledger.fitted('handlerKey', run.handlerKey));
  }

  /**
   * Runs one handler on a fenced view of the batch's runner, for up to `handlerBoundMs`. A run
   * that throws, or is cut off, is rolled back to its savepoint once its last statement ended.
   */
  private async runInSavepoint(runner: QueryRunner, run: QueuedRun): Promise<RunResult> {
    const fence = new FencedRunner(runner);
    const manager = this.connection.dataSource.createEntityManager(fence.runner);
    const first = Promise.resolve().then(() => run.work(manager));
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<{ readonly cut: true }>((resolve) => {
      timer = setTimeout(() => resolve({ cut: true }), this.settings.handlerBoundMs);
    });
    let result: RunResult;
    try {
      const ended = await Promise.race([first.then((outcome) => ({ outcome })), bound]);
      result = 'cut' in ended ? { kind: 'cut', first } : { kind: 'ran', outcome: ended.outcome };
    } catch (error) {
      result = { kind: 'failed', error };
    } finally {
      clearTimeout(timer);
    }
    fence.close();
    await fence.idle();
    if (fence.timedOut) {
      // NOTE: `statement_timeout` stopped the handler: that is the bound, not its failure.
      result = { kind: 'cut', first };
    } else if (result.kind === 'ran' && fence.failed !== undefined) {
      result = await this.checkStillUsable(runner, fence.failed, result);
    }
    if (result.kind !== 'ran') {
      await runner.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
    }
    return result;
  }

  /**
   * A handler that caught the failure of one of its statements and returned: on PostgreSQL that
   * failure may have left the transaction aborted, which would fail the whole batch; then the
   * run fails with it instead, and is rolled back to its savepoint.
   */
  private async checkStillUsable(
    runner: QueryRunner,
    statementError: unknown,
    ran: RunResult,
  ): Promise<RunResult> {
    if (this.connection.dialect.kind !== 'postgres') {
      return ran;
    }
    try {
      await runner.query('SELECT 1');
      return ran;
    } catch {
      const error = new Error(HANDLER_LEFT_TRANSACTION_ABORTED(describe(statementError)), {
        cause: statementError,
      });
      return { kind: 'failed', error };
    }
  }

  /**
   * One statement on PostgreSQL (SQLite's in-process statements run one by one): the ledger
   * rows of the runs that did not finish are taken back, the outcomes kept, and the events whose
   * last handler ran settled as processed. Returns the ids of the events it settled.
   */
  private async finish(
    manager: EntityManager,
    claimed: readonly QueuedRun[],
    results: ReadonlyMap<QueuedRun, RunResult>,
  ): Promise<ReadonlySet<string>> {
    const unrun: QueuedRun[] = [];
    const outcomes: { run: QueuedRun; outcome: string }[] = [];
    const settling: { run: QueuedRun; settle: HandlerSettlement; outcome: string | undefined }[] =
      [];
    const end: BatchEnd = { unrun, outcomes, settling };
    for (const run of claimed) {
      const result = results.get(run)!;
      if (result.kind !== 'ran') {
        unrun.push(run);
        continue;
      }
      if (result.outcome !== undefined) {
        outcomes.push({ run, outcome: result.outcome });
      }
      if (run.settle) {
        settling.push({ run, settle: run.settle, outcome: result.outcome });
      }
    }
    if (unrun.length + outcomes.length + settling.length === 0) {
      return new Set();
    }
    const now = new Date();
    return this.connection.dialect.kind === 'postgres'
      ? this.finishInOneStatement(manager, now, end)
      : this.finishStepByStep(manager, now, end);
  }

  private async finishInOneStatement(
    manager: EntityManager,
    now: Date,
    { unrun, outcomes, settling }: BatchEnd,
  ): Promise<ReadonlySet<string>> {
    const { params, bind } = parameterList(this.connection.dialect);
    const key = (run: QueuedRun) => this.ledger.fitted('handlerKey', run.handlerKey);
    const parts: string[] = [];
    if (unrun.length > 0) {
      const rows = unrun.map((run) => `(${bind(run.eventId)}, ${bind(key(run))})`);
      parts.push(
        'unrun AS (DELETE FROM webhook_handler_runs WHERE (event_id, handler_key) IN ' +
          `(${rows.join(', ')}))`,
      );
    }
    if (outcomes.length > 0) {
      const rows = outcomes.map(
        ({ run, outcome }) =>
          `(${bind(run.eventId)}, ${bind(key(run))}, ${bind(this.ledger.fitted('outcome', outcome))})`,
      );
      parts.push(
        'outcomes AS (UPDATE webhook_handler_runs AS r SET outcome = o.outcome ' +
          `FROM (VALUES ${rows.join(', ')}) AS o (event_id, handler_key, outcome) ` +
          'WHERE r.event_id = o.event_id AND r.handler_key = o.handler_key)',
      );
    }
    let main = 'SELECT NULL AS id WHERE false';
    if (settling.length > 0) {
      const events = this.connection.events;
      const column = (property: 'outcome' | 'providerStatus') =>
        events.entity.findColumnWithPropertyName(property)!;
      const rows = settling.map(({ run, settle, outcome }) => {
        const { outcome: joined, providerStatus } = processedChanges(now, settle.result(outcome));
        return `(${[
          run.eventId,
          settle.workerId,
          fittedTo(column('outcome'), joined),
          fittedTo(column('providerStatus'), providerStatus),
        ]
          .map(bind)
          .join(', ')})`;
      });
      parts.push(
        `settling (event_id, worker, outcome, provider_status) AS (VALUES ${rows.join(', ')})`,
        'held AS (DELETE FROM webhook_work AS w USING settling AS s WHERE w.event_id = s.event_id ' +
          "AND w.locked_by = s.worker AND w.status = 'processing' RETURNING w.event_id, w.attempts)",
      );
      const {
        outcome: _outcome,
        providerStatus: _providerStatus,
        ...fixed
      } = processedChanges(now);
      const assignments = events.assignments(fixed, bind);
      main =
        `UPDATE webhook_events AS e SET ${assignments.join(', ')}, outcome = s.outcome, ` +
        'provider_status = s.provider_status, attempts = held.attempts ' +
        'FROM held JOIN settling AS s ON s.event_id = held.event_id ' +
        'WHERE e.id = held.event_id RETURNING e.id';
    }
    const sql = `WITH ${parts.join(', ')} ${main}`;
    const rows = (await this.connection.rows(manager, sql, params, { prepare: false })) as {
      id: string;
    }[];
    return new Set(rows.map((row) => row.id));
  }

  private async finishStepByStep(
    manager: EntityManager,
    now: Date,
    { unrun, outcomes, settling }: BatchEnd,
  ): Promise<ReadonlySet<string>> {
    const { connection } = this;
    const key = (run: QueuedRun) => this.ledger.fitted('handlerKey', run.handlerKey);
    for (const run of unrun) {
      const { params, bind } = parameterList(connection.dialect);
      await connection.rows(
        manager,
        `DELETE FROM webhook_handler_runs WHERE event_id = ${bind(run.eventId)} AND handler_key = ${bind(key(run))}`,
        params,
      );
    }
    for (const { run, outcome } of outcomes) {
      const { params, bind } = parameterList(connection.dialect);
      await connection.rows(
        manager,
        `UPDATE webhook_handler_runs SET outcome = ${bind(this.ledger.fitted('outcome', outcome))} ` +
          `WHERE event_id = ${bind(run.eventId)} AND handler_key = ${bind(key(run))}`,
        params,
      );
    }
    const settled = new Set<string>();
    for (const { run, settle, outcome } of settling) {
      const changes = processedChanges(now, settle.result(outcome));
      if (await settleHeld(connection, manager, run.eventId, settle.workerId, changes)) {
        settled.add(run.eventId);
      }
    }
    return settled;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
