import { DataSource } from 'typeorm';
import { inTransaction, TransactionRollbackError } from './transactions';

/**
 * A transaction whose failing statement made SQLite roll it back itself, so TypeORM's ROLLBACK
 * after it fails too: the error `inTransaction()` throws, and the rows left in `t`.
 * @param table how `t` is made; `fill` runs before the transaction, `write` inside it.
 */
async function failedTransaction(table: string, fill: (dataSource: DataSource) => Promise<void>) {
  const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
  await dataSource.initialize();
  try {
    await dataSource.query(table);
    await fill(dataSource);
    const error = await inTransaction(dataSource, async (manager) => {
      await manager.query('INSERT INTO t (v) VALUES (?)', ['first']);
      await manager.query('INSERT INTO t (v) VALUES (?)', ['x'.repeat(10_000)]);
    }).then(
      () => new Error('the transaction committed'),
      (failure: unknown) => failure,
    );
    const [{ rows }] = (await dataSource.query('SELECT count(*) AS rows FROM t')) as {
      rows: number;
    }[];
    return { error: error as Error, rows };
  } finally {
    await dataSource.destroy();
  }
}

describe('TransactionRollbackError', () => {
  it('says first that the disk is full, then that the rollback failed too', async () => {
    // NOTE: max_page_count at the file's size: the next page the write needs is refused with
    // SQLITE_FULL, as on a full disk, and SQLite rolls the transaction back itself.
    const { error, rows } = await failedTransaction('CREATE TABLE t (v text)', async (db) => {
      const [{ page_count }] = (await db.query('PRAGMA page_count')) as { page_count: number }[];
      await db.query(`PRAGMA max_page_count = ${page_count}`);
    });
    expect(error).toBeInstanceOf(TransactionRollbackError);
    expect(error.message).toMatch(
      /^The disk is full: SQLITE_FULL \(database or disk is full\); the transaction could not be rolled back afterwards either \(QueryFailedError: SqliteError: cannot rollback - no transaction is active\): nothing it wrote is taken as committed/,
    );
    expect(error.message).toMatch(/Free space on the database's disk/);
    expect((error.cause as Error).name).toBe('QueryFailedError');
    expect(rows).toBe(0);
  });

  it('says first what else failed, then that the rollback failed too', async () => {
    // NOTE: ON CONFLICT ROLLBACK makes SQLite end the transaction at the duplicate itself.
    const { error, rows } = await failedTransaction(
      'CREATE TABLE t (v text UNIQUE ON CONFLICT ROLLBACK)',
      async (db) => {
        await db.query('INSERT INTO t (v) VALUES (?)', ['x'.repeat(10_000)]);
      },
    );
    expect(error).toBeInstanceOf(TransactionRollbackError);
    expect(error.message).toBe(
      'QueryFailedError: SqliteError: UNIQUE constraint failed: t.v; the transaction could not ' +
        'be rolled back afterwards either (QueryFailedError: SqliteError: cannot rollback - no ' +
        'transaction is active): nothing it wrote is taken as committed, and the connection is ' +
        'checked before its next use.',
    );
    expect(rows).toBe(1);
  });
});
