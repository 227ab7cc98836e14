import { resolve } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { AppWritesGate } from './app-writes-gate';
import { ConnectionLock } from './connection-lock';

/** How long a connection the package opens waits for a busy SQLite file, in ms. */
export const SQLITE_BUSY_TIMEOUT_MS = 5000;

/**
 * The absolute path of the app's SQLite file, or undefined when another connection cannot open
 * the same database (PostgreSQL, `:memory:`, a `file:` URI).
 */
export function sqliteFileOf(dataSource: DataSource): string | undefined {
  if (dataSource.options.type !== 'better-sqlite3') {
    return undefined;
  }
  const { database } = dataSource.options;
  if (!database || database === ':memory:' || database.startsWith('file:')) {
    return undefined;
  }
  return resolve(database);
}

/**
 * Durability is the package's job on every connection it relies on: WAL, `synchronous=FULL`
 * and a busy timeout.
 */
export async function makeDurable(connection: DataSource): Promise<void> {
  // NOTE: TypeORM leaves WAL off and better-sqlite3's WAL default is synchronous=NORMAL,
  // which can lose the last commits on power loss: an acknowledged event must survive.
  await connection.query('PRAGMA journal_mode = WAL');
  await connection.query('PRAGMA synchronous = FULL');
  await connection.query(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
}

/**
 * The connection the package opens beside the app's on a SQLite file: a second connection to
 * the app's database, where it runs all its work (handler transactions included), so a write
 * of the app's never lands inside one of them. The app's own writes and transactions wait for
 * the package's through a subscriber on its data source ({@link AppWritesGate}).
 */
export class SqliteConnections {
  private constructor(
    private readonly app: DataSource,
    /** The package's own connection to the app's database. */
    readonly own: DataSource,
    private readonly gate: AppWritesGate,
  ) {}

  /** Opens it for the app's database, its turns kept by `lock`. */
  static async open(app: DataSource, lock: ConnectionLock): Promise<SqliteConnections> {
    // NOTE: a handler's writes and its ledger row must commit together, so handler transactions
    // stay on the app's file, on the second connection, and so do the inbox and the settling
    // of events.
    const own = await openOwnConnection(app);
    const gate = new AppWritesGate(lock);
    app.subscribers.push(gate);
    return new SqliteConnections(app, own, gate);
  }

  /**
   * Gives the package's connection the app's entity subscribers, so a write through a handler's
   * `ctx.manager` reaches them as it would on the app's data source. Subscribers can be added
   * at any time (a Nest provider pushes itself in its constructor), so it is checked each time.
   */
  shareSubscribers(): void {
    const theirs = this.app.subscribers.filter((subscriber) => subscriber !== this.gate);
    const ours = this.own.subscribers;
    if (ours.length !== theirs.length || theirs.some((subscriber, i) => ours[i] !== subscriber)) {
      ours.splice(0, ours.length, ...theirs);
    }
  }

  /** Closes what it opened; the app's data source stays open. */
  async close(): Promise<void> {
    const subscribers = this.app.subscribers;
    if (subscribers.includes(this.gate)) {
      subscribers.splice(subscribers.indexOf(this.gate), 1);
    }
    if (this.own.isInitialized) {
      await this.own.destroy();
    }
  }
}

/**
 * A second connection to the app's database, for the package's own transactions: the same
 * entities, naming and logger as the app's data source, and nothing that changes the schema.
 */
async function openOwnConnection(app: DataSource): Promise<DataSource> {
  const own = new DataSource({
    ...app.options,
    synchronize: false,
    migrationsRun: false,
    dropSchema: false,
    migrations: [],
    subscribers: [],
    logger: app.logger,
  } as DataSourceOptions);
  await own.initialize();
  await makeDurable(own);
  return own;
}
