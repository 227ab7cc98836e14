import { DataSource, EntityManager } from 'typeorm';
import { ConnectionLock } from './connection-lock';
import { EventTable } from '../schema/event-table';
import { PreparedStatements } from './prepared-statements';
import { SqlDialect, sqlDialectOf } from '../schema/sql-dialect';
import { APP_TRANSACTION_PATIENCE_MS, SqliteConnections } from './sqlite-connections';
import { APP_DATA_SOURCE_CLOSED } from './sqlite.messages';
import { inTransaction } from './transactions';

/** A statement and its parameters. */
export interface Statement {
  readonly sql: string;
  readonly params: unknown[];
}

/**
 * Where the store's statements go, shared by its parts: the app's data source, or on a SQLite
 * file a second connection to it of the package's own (see {@link SqliteConnections}), taken
 * in turns through one {@link ConnectionLock}.
 */
export class StoreConnection {
  readonly dialect: SqlDialect;
  readonly lock: ConnectionLock;
  /** The package's own SQLite connections, once opened (a SQLite file only). */
  sqlite?: SqliteConnections;
  private table?: EventTable;
  private readonly prepared?: PreparedStatements;

  /**
   * @param preparedStatements on PostgreSQL, run the package's fixed statements as named
   * prepared statements (see {@link PreparedStatements}).
   */
  constructor(
    readonly appDataSource: DataSource,
    { preparedStatements = true }: { readonly preparedStatements?: boolean } = {},
  ) {
    this.dialect = sqlDialectOf(appDataSource);
    this.lock = new ConnectionLock(this.dialect.kind === 'sqlite', APP_TRANSACTION_PATIENCE_MS);
    if (this.dialect.kind === 'postgres' && preparedStatements) {
      this.prepared = new PreparedStatements(appDataSource);
    }
  }

  /**
   * The data source the package's statements use; on a SQLite file its own connection, used
   * only while the app's data source is open.
   */
  get dataSource(): DataSource {
    if (!this.sqlite) {
      return this.appDataSource;
    }
    if (!this.appDataSource.isInitialized) {
      throw new Error(APP_DATA_SOURCE_CLOSED);
    }
    return this.sqlite.own;
  }

  /** The event table's metadata, read once the data source knows the entity. */
  get events(): EventTable {
    return (this.table ??= new EventTable(this.dataSource));
  }

  /** Runs `work` in a transaction, serialized with the package's other work. */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.lock.run(() => {
      this.sqlite?.shareSubscribers();
      return inTransaction(this.dataSource, work);
    });
  }

  /** Runs `work` outside a transaction (each statement on its own), serialized likewise. */
  read<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.lock.run(() => {
      this.sqlite?.shareSubscribers();
      return work(this.dataSource.manager);
    });
  }

  /** Placeholder for the n-th (1-based) parameter. */
  param(index: number): string {
    return this.dialect.param(index);
  }

  /**
   * Rows of a statement. `query()` returns `[rows, count]` for a PostgreSQL UPDATE … RETURNING
   * and plain rows elsewhere; the structured result is the same on both drivers. On PostgreSQL
   * the statement runs prepared unless `prepare` is false (a text that varies with its input,
   * such as a multi-row insert, would leave a prepared statement per variant on every
   * connection).
   */
  async rows(
    manager: EntityManager,
    sql: string,
    params: unknown[],
    { prepare = true }: { readonly prepare?: boolean } = {},
  ): Promise<unknown[]> {
    const runner = manager.queryRunner ?? this.dataSource.createQueryRunner();
    try {
      if (prepare && this.prepared?.usable) {
        return await this.prepared.rows(runner, sql, params);
      }
      const result = await runner.query(sql, params, true);
      return (result.records as unknown[] | undefined) ?? [];
    } finally {
      if (!manager.queryRunner) {
        await runner.release();
      }
    }
  }
}

/**
 * Binds parameters in the order their placeholders appear in the text (SQLite's are
 * positional): `bind(value)` returns the placeholder and `params` collects the values.
 */
export function parameterList(dialect: SqlDialect): {
  params: unknown[];
  bind(value: unknown): string;
} {
  const params: unknown[] = [];
  return {
    params,
    bind(value: unknown) {
      params.push(value);
      return dialect.param(params.length);
    },
  };
}
