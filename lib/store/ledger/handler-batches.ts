import type { EntityManager } from 'typeorm';
import { BatchEnd, settleInOneStatement, settleStepByStep } from './batch-end';
import { HandlerLedger } from './handler-ledger';
import { runInSavepoint, SAVEPOINT, savepointStatements } from './savepoint-run';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { inTransaction } from '../connections/transactions';
import { HandlerRunOutcome, HandlerSettlement } from '../ports/inbox-worker.port';

/** How handler runs share transactions (`dispatch.batch`, resolved). */
export interface HandlerBatchSettings {
  /** Most runs in one batch. */
  readonly size: number;
  /** How long a batch waits for more runs after its first, in ms. */
  readonly waitMs: number;
  /** How long one run may hold its batch, and how long a batch starts new runs, in ms. */
  readonly handlerBoundMs: number;
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

function ledgerKey(eventId: string, handlerKey: string): string {
  return `${eventId}\u0000${handlerKey}`;
}

/**
 * Handler runs committed in batches. Runs that arrive within `waitMs` of each other (up to
 * `size`) share one transaction: one statement writes all their ledger rows first (a run whose
 * row exists already does not run), each handler then runs inside its own SAVEPOINT (a failure
 * rolls back to it), and one statement at the end keeps the outcomes, takes back the ledger rows
 * of the runs that did not finish, and settles the events whose last handler ran. The commit is
 * when every run of the batch counts; until then none does, so a crash anywhere before it loses
 * no event and runs nothing twice. A handler that holds the batch longer than `handlerBoundMs` is
 * cut off (see `runInSavepoint()`) and runs again on its own.
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
      await savepointStatements(
        this.connection,
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
      results.set(
        run,
        await runInSavepoint(this.connection, runner, run.work, this.settings.handlerBoundMs),
      );
    }
    if (inSavepoint) {
      await savepointStatements(
        this.connection,
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

  /** Ends the batch (see `settleInOneStatement()`); returns the ids of the events it settled. */
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
    const settle =
      this.connection.dialect.kind === 'postgres' ? settleInOneStatement : settleStepByStep;
    return settle(this.connection, this.ledger, manager, new Date(), end);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
