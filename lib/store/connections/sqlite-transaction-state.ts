import type { DataSource } from 'typeorm';

/** What better-sqlite3 reports of its connection. */
interface SqliteHandle {
  readonly open: boolean;
  readonly inTransaction: boolean;
}

/**
 * Whether a SQLite connection is inside a transaction, by the driver's account and by
 * TypeORM's. Between two pieces of the package's work neither may say so: a failed COMMIT
 * that SQLite rolled back itself leaves TypeORM believing a transaction is open (so its next
 * "transaction" is only a SAVEPOINT), and a failed RELEASE or COMMIT that SQLite did not roll
 * back leaves a real one open, inside which every later write would wait, uncommitted.
 * Undefined when the connection is closed or neither says so.
 */
export function openTransactionOn(
  dataSource: DataSource,
): { readonly driver: boolean; readonly typeorm: boolean } | undefined {
  if (!dataSource.isInitialized) {
    return undefined;
  }
  const handle = (dataSource.driver as { databaseConnection?: Partial<SqliteHandle> })
    .databaseConnection;
  const driver = handle?.open === true && handle.inTransaction === true;
  // NOTE: better-sqlite3's driver hands out its one query runner, the one every statement uses.
  const typeorm = dataSource.createQueryRunner().isTransactionActive;
  return driver || typeorm ? { driver, typeorm } : undefined;
}

/**
 * A piece of the package's work left its SQLite connection inside a transaction, so what it
 * wrote is not committed; the connection was closed (which rolls that transaction back) and
 * opened anew, and the piece failed (a delivery answered 503, a handler attempt retried).
 */
export class SqliteConnectionReset extends Error {
  override readonly name = 'SqliteConnectionReset';
}
