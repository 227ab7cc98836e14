import type { EntityManager, QueryRunner } from 'typeorm';
import { FencedRunner } from './fenced-runner';
import { HANDLER_LEFT_TRANSACTION_ABORTED } from './handler-batches.messages';
import { StoreConnection } from '../connections/store-connection';

/** The savepoint a handler run inside a shared transaction sits in (one at a time, so one name serves). */
export const SAVEPOINT = 'payment_webhooks_run';

/** How a handler run inside its savepoint went. */
export type SavepointRunResult =
  | { readonly kind: 'ran'; readonly outcome: string | undefined }
  | { readonly kind: 'failed'; readonly error: unknown }
  /** Held the transaction past its time: rolled back; `first` ends when its code does. */
  | { readonly kind: 'cut'; readonly first: Promise<unknown> };

/**
 * Runs `work` on a fenced view of `runner` (see {@link FencedRunner}), inside the savepoint
 * the caller opened, for up to `boundMs`. A run that throws, or is cut off (the time ran out,
 * or PostgreSQL's `statement_timeout` cancelled a statement of it), is rolled back to its
 * savepoint once its last statement ended. A statement it sends after that fails with `cutOff`.
 * With `open`, the savepoint is opened by the statements it returns, before the run's first
 * statement: a run that sends none costs none, and has nothing to roll back.
 */
export async function runInSavepoint(
  connection: StoreConnection,
  runner: QueryRunner,
  work: (manager: EntityManager) => Promise<string | undefined>,
  boundMs: number,
  cutOff?: string,
  open?: () => readonly string[],
): Promise<SavepointRunResult> {
  const fence = new FencedRunner(
    runner,
    cutOff,
    open && (() => savepointStatements(connection, runner, open())),
  );
  const manager = connection.dataSource.createEntityManager(fence.runner);
  const first = Promise.resolve().then(() => work(manager));
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<{ readonly cut: true }>((resolve) => {
    timer = setTimeout(() => resolve({ cut: true }), boundMs);
  });
  let result: SavepointRunResult;
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
    result = await checkStillUsable(connection, runner, fence.failed, result);
  }
  if (result.kind !== 'ran' && (!open || fence.used)) {
    await runner.query(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
  }
  return result;
}

/**
 * A handler that caught the failure of one of its statements and returned: on PostgreSQL that
 * failure may have left the transaction aborted, which would fail the whole transaction; then
 * the run fails with it instead, and is rolled back to its savepoint.
 */
async function checkStillUsable(
  connection: StoreConnection,
  runner: QueryRunner,
  statementError: unknown,
  ran: SavepointRunResult,
): Promise<SavepointRunResult> {
  if (connection.dialect.kind !== 'postgres') {
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
 * Statements without parameters between handler runs: one round trip on PostgreSQL (a text of
 * several statements), one by one on SQLite, whose driver takes one at a time.
 */
export async function savepointStatements(
  connection: StoreConnection,
  runner: QueryRunner,
  statements: readonly string[],
): Promise<void> {
  if (connection.dialect.kind === 'postgres') {
    await runner.query(statements.join('; '));
    return;
  }
  for (const statement of statements) {
    await runner.query(statement);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
