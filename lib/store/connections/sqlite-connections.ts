import { basename, dirname, extname, join, resolve } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { AppWritesGate } from './app-writes-gate';
import { ConnectionLock } from './connection-lock';
import { SQLITE_BUSY_TIMEOUT_MS } from './sqlite-busy';
import { SqliteIntake, StagedRecord } from './sqlite-intake';
import { openTransactionOn, SqliteConnectionReset } from './sqlite-transaction-state';
import { inTransaction } from './transactions';
import { CONNECTION_LEFT_IN_TRANSACTION, INTAKE_PATH_IS_DATABASE } from './sqlite.messages';

/** How long the package waits for the app's own open transaction on its file, in ms. */
export const APP_TRANSACTION_PATIENCE_MS = 5000;

/** The better-sqlite3 options the package's own connections copy from the app's. */
interface SqliteFileOptions {
  readonly type: 'better-sqlite3';
  readonly database: string;
  readonly key?: string;
  readonly driver?: unknown;
  readonly nativeBinding?: string;
  readonly prepareDatabase?: (db: unknown) => void | Promise<void>;
}

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

/** The intake file next to the database: `shop.sqlite` → `shop.webhooks.sqlite`. */
export function defaultIntakePath(database: string): string {
  const extension = extname(database);
  return join(dirname(database), `${basename(database, extension)}.webhooks${extension}`);
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
 * The connections the package opens beside the app's on a SQLite file: a second connection to
 * the app's database, where it runs all its work (handler transactions included), so a write
 * of the app's never lands inside one of them; and the intake, for deliveries that arrive while
 * the database file is held. The app's own writes and transactions wait for the package's
 * through a subscriber on its data source ({@link AppWritesGate}).
 */
export class SqliteConnections {
  private moveQueued = false;
  private closed = false;

  private constructor(
    private readonly app: DataSource,
    private connection: DataSource,
    private readonly intake: SqliteIntake,
    private readonly lock: ConnectionLock,
    private readonly gate: AppWritesGate,
  ) {
    lock.verifyEachTurn(() => this.verify());
  }

  /** The package's own connection to the app's database. */
  get own(): DataSource {
    return this.connection;
  }

  /**
   * Opens them for the app's database `file`, its turns kept by `lock`.
   * @param intakePath the intake file (default: next to the database, see {@link defaultIntakePath}).
   */
  static async open(
    app: DataSource,
    file: string,
    lock: ConnectionLock,
    intakePath = defaultIntakePath(file),
  ): Promise<SqliteConnections> {
    // NOTE: a handler's writes and its ledger row must commit together, so handler transactions
    // stay on the app's file, on the second connection, and so do the inbox and the settling
    // of events. Only deliveries that could not wait go to the intake, a separate file whose
    // rows take part in no handler transaction: nothing ever has to commit across both files.
    const path = resolve(intakePath);
    if (path === file) {
      throw new WebhookConfigurationError(INTAKE_PATH_IS_DATABASE(file));
    }
    const own = await openOwnConnection(app);
    let intake: SqliteIntake;
    try {
      intake = await SqliteIntake.open(() => openIntakeConnection(app, path), file);
    } catch (error) {
      await own.destroy();
      throw error;
    }
    const gate = new AppWritesGate(lock);
    app.subscribers.push(gate);
    return new SqliteConnections(app, own, intake, lock, gate);
  }

  /** True while deliveries wait in the intake. */
  get staging(): boolean {
    return this.intake.waiting;
  }

  /**
   * Stores deliveries in the intake (values in INSERT_COLUMNS order) and has them moved into
   * the inbox as soon as the database file is free.
   */
  async stage(rows: readonly unknown[][]): Promise<StagedRecord[]> {
    const records = await this.intake.stage(rows);
    this.queueMove();
    return records;
  }

  /**
   * Records a signed transmission in the intake while the database file is held (see
   * `SqliteIntake.stageTransmission`), moved into `webhook_transmissions` once it is free.
   */
  async stageTransmission(values: readonly [string, string, string, unknown]): Promise<string> {
    const digest = await this.intake.stageTransmission(values);
    this.queueMove();
    return digest;
  }

  /** See `SqliteIntake.recordTransmission`. */
  recordTransmission(
    endpoint: string,
    transmissionId: string,
    record: () => Promise<string>,
  ): Promise<string> {
    return this.intake.recordTransmission(endpoint, transmissionId, record);
  }

  private queueMove(): void {
    if (!this.moveQueued) {
      this.moveQueued = true;
      // NOTE: urgent, so the rows move right after the transaction holding the file, before
      // any claim; a move that fails is tried again at the next claim.
      const move = () => {
        this.moveQueued = false;
        return this.moveStaged();
      };
      this.lock.run(move, { urgent: true }).catch(() => undefined);
    }
  }

  /** Moves the intake's rows into the inbox; run while holding the lock. */
  moveStaged(): Promise<void> {
    return this.intake.moveInto((statements) =>
      inTransaction(this.own, async (manager) => {
        for (const { sql, params } of statements) {
          await manager.query(sql, params);
        }
      }),
    );
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

  /**
   * Runs after each piece of the package's work on the file: a piece that left the connection
   * inside a transaction (see {@link openTransactionOn}) gets it closed, which rolls that
   * transaction back, and opened anew, and fails with {@link SqliteConnectionReset}, so nothing
   * written inside that transaction is answered or settled as committed.
   */
  private async verify(): Promise<void> {
    if (this.closed) {
      return;
    }
    if (!this.connection.isInitialized) {
      // NOTE: opening it again failed after a reset; each piece of work tries once more.
      this.connection = await openOwnConnection(this.app);
      return;
    }
    const open = openTransactionOn(this.connection);
    if (!open) {
      return;
    }
    await this.connection.destroy();
    this.connection = await openOwnConnection(this.app);
    throw new SqliteConnectionReset(CONNECTION_LEFT_IN_TRANSACTION(sqliteFileOf(this.app)!, open));
  }

  /** Closes what it opened; the app's data source stays open. */
  async close(): Promise<void> {
    this.closed = true;
    const subscribers = this.app.subscribers;
    if (subscribers.includes(this.gate)) {
      subscribers.splice(subscribers.indexOf(this.gate), 1);
    }
    await this.intake.close();
    if (this.connection.isInitialized) {
      await this.connection.destroy();
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

/** A connection to the intake file, opened the way the app opens its database (key, driver). */
async function openIntakeConnection(app: DataSource, path: string): Promise<DataSource> {
  const { key, driver, nativeBinding, prepareDatabase } = app.options as SqliteFileOptions;
  const intake = new DataSource({
    type: 'better-sqlite3',
    database: path,
    key,
    driver,
    nativeBinding,
    prepareDatabase,
    entities: [],
    logger: app.logger,
  } as DataSourceOptions);
  await intake.initialize();
  await makeDurable(intake);
  return intake;
}
