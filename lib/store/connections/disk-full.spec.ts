import { writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { DataSource } from 'typeorm';
import { diskFullCause, DiskFullWatch } from './disk-full';
import { TransactionRollbackError } from './transactions';

/** The error SQLite gives a write that needs a page when the database may not grow. */
function sqliteFullError(): unknown {
  const db = new Database(':memory:');
  try {
    db.exec('CREATE TABLE t (v text)');
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    db.prepare('INSERT INTO t (v) VALUES (?)').run('x'.repeat(10_000));
  } catch (error) {
    return error;
  } finally {
    db.close();
  }
  throw new Error('the write went through');
}

/** Node's error for a write to a device with no space left (Linux's /dev/full). */
function enospcError(): unknown {
  try {
    writeFileSync('/dev/full', 'x');
  } catch (error) {
    return error;
  }
  throw new Error('the write went through');
}

describe('diskFullCause', () => {
  it("names SQLite's SQLITE_FULL, also wrapped by TypeORM and as the cause of a failed rollback", async () => {
    const error = sqliteFullError();
    expect(diskFullCause(error)).toBe('SQLITE_FULL (database or disk is full)');

    const dataSource = new DataSource({ type: 'better-sqlite3', database: ':memory:' });
    await dataSource.initialize();
    try {
      await dataSource.query('CREATE TABLE t (v text)');
      const [{ page_count }] = (await dataSource.query('PRAGMA page_count')) as {
        page_count: number;
      }[];
      await dataSource.query(`PRAGMA max_page_count = ${page_count}`);
      const wrapped = await dataSource
        .query('INSERT INTO t (v) VALUES (?)', ['x'.repeat(10_000)])
        .then(() => new Error('the write went through'))
        .catch((failure: unknown) => failure);
      expect((wrapped as Error).name).toBe('QueryFailedError');
      expect(diskFullCause(wrapped)).toBe('SQLITE_FULL (database or disk is full)');
      expect(
        diskFullCause(new TransactionRollbackError(new Error('no transaction'), wrapped)),
      ).toBe('SQLITE_FULL (database or disk is full)');
    } finally {
      await dataSource.destroy();
    }
  });

  it("names Node's ENOSPC", () => {
    expect(diskFullCause(enospcError())).toMatch(/^ENOSPC \(ENOSPC: no space left on device/);
  });

  it('is undefined for other failures', () => {
    expect(diskFullCause(new Error('connection refused'))).toBeUndefined();
    expect(
      diskFullCause(Object.assign(new Error('busy'), { code: 'SQLITE_BUSY' })),
    ).toBeUndefined();
    expect(diskFullCause('a string')).toBeUndefined();
    expect(diskFullCause(undefined)).toBeUndefined();
  });
});

describe('DiskFullWatch', () => {
  it('probes only after a full disk was seen, reports it while the probe fails, and clears once it goes through', async () => {
    const watch = new DiskFullWatch();
    let probes = 0;
    const failing = async () => {
      probes += 1;
      throw sqliteFullError();
    };
    expect(await watch.check(failing)).toBeUndefined();
    expect(probes).toBe(0);

    watch.failed(new Error('connection refused'));
    expect(await watch.check(failing)).toBeUndefined();
    expect(probes).toBe(0);

    watch.failed(sqliteFullError());
    expect(await watch.check(failing)).toMatch(/^the disk is full: SQLITE_FULL/);
    expect(probes).toBe(1);

    expect(await watch.check(async () => undefined)).toBeUndefined();
    expect(await watch.check(failing)).toBeUndefined();
    expect(probes).toBe(1);

    watch.failed(enospcError());
    watch.stored();
    expect(await watch.check(failing)).toBeUndefined();
    expect(probes).toBe(1);
  });

  it('lets a probe failure that is not a full disk through', async () => {
    const watch = new DiskFullWatch();
    watch.failed(enospcError());
    await expect(watch.check(() => Promise.reject(new Error('permission denied')))).rejects.toThrow(
      'permission denied',
    );
  });
});
