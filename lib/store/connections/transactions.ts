import type { DataSource, EntityManager, QueryRunner } from 'typeorm';
import { diskFullCause } from './disk-full';
import { DISK_FULL_ROLLBACK_FAILED, ROLLBACK_FAILED } from './transactions.messages';

/**
 * A transaction could not be rolled back after its work or its COMMIT failed. `cause` is that
 * first failure, and the message begins with it ("The disk is full: SQLITE_FULL (…)" for a full
 * disk), the failed ROLLBACK after. The connection's state is then unknown: on SQLite the
 * package checks it before the next statement (see `SqliteConnections`), and nothing it wrote
 * is taken as committed.
 */
export class TransactionRollbackError extends Error {
  override readonly name = 'TransactionRollbackError';

  constructor(rollback: unknown, cause: unknown) {
    const diskFull = diskFullCause(cause);
    super(
      diskFull === undefined
        ? ROLLBACK_FAILED(messageOf(cause), messageOf(rollback))
        : DISK_FULL_ROLLBACK_FAILED(diskFull, messageOf(rollback)),
      { cause },
    );
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/**
 * Runs `work` in a transaction on `runner` and commits it. When the work or the COMMIT fails,
 * the transaction is rolled back and the failure thrown; a ROLLBACK that fails too is thrown
 * as a {@link TransactionRollbackError}, never hidden (TypeORM's own `transaction()` drops it).
 */
async function inTransactionOn<T>(
  runner: QueryRunner,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  await runner.startTransaction();
  let result: T;
  try {
    result = await work(runner.manager);
    await runner.commitTransaction();
  } catch (error) {
    if (runner.isTransactionActive) {
      try {
        await runner.rollbackTransaction();
      } catch (rollback) {
        throw new TransactionRollbackError(rollback, error);
      }
    }
    throw error;
  }
  return result;
}

/**
 * {@link inTransactionOn} on the query runner of `manager` when it has one (a connection kept
 * for the answer path), else on a new one of `dataSource`, released afterwards.
 */
export async function inTransaction<T>(
  source: DataSource | EntityManager,
  work: (manager: EntityManager) => Promise<T>,
): Promise<T> {
  // NOTE: told apart by shape, not instanceof: an app may load its own copy of TypeORM.
  const isManager = !('createQueryRunner' in source);
  const own = isManager ? (source as EntityManager).queryRunner : undefined;
  const runner =
    own ??
    (isManager ? (source as EntityManager).connection : (source as DataSource)).createQueryRunner();
  try {
    return await inTransactionOn(runner, work);
  } finally {
    if (!own) {
      await runner.release();
    }
  }
}
