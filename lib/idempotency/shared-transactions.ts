import { DataSource, EntityManager } from 'typeorm';
import { DataSourceTransactions, IdempotencyTransactions } from './idempotency-transactions';

/** The part of a webhook store the idempotency store can share. */
export interface ShareableStore extends IdempotencyTransactions {
  read?<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
}

/** True when `connection` writes the database of `dataSource` (itself, or a second SQLite connection to its file). */
function sameDatabase(connection: DataSource, dataSource: DataSource): boolean {
  if (connection === dataSource) {
    return true;
  }
  const [a, b] = [connection.options, dataSource.options];
  return (
    a.type === 'better-sqlite3' &&
    b.type === 'better-sqlite3' &&
    typeof a.database === 'string' &&
    a.database !== ':memory:' &&
    a.database === b.database
  );
}

/**
 * The webhook store's transactions when the app has a webhook store on the same database, the
 * idempotency store's own otherwise. The choice is made on the first transaction (the schema
 * check at startup), once every module's providers exist.
 */
export class SharedTransactions implements IdempotencyTransactions {
  private chosen?: Promise<IdempotencyTransactions>;

  /** @param candidates the app's webhook stores, found when the first transaction starts. */
  constructor(
    private readonly dataSource: DataSource,
    private readonly candidates: () => readonly ShareableStore[],
  ) {}

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.chosen) {
      this.chosen = this.choose();
      // NOTE: a failed choice (the database was down) is made again on the next transaction.
      this.chosen.catch(() => (this.chosen = undefined));
    }
    return this.chosen.then((transactions) => transactions.transaction(work));
  }

  private async choose(): Promise<IdempotencyTransactions> {
    for (const store of this.candidates()) {
      const connectionOf = async (manager: EntityManager) => manager.connection;
      const connection = store.read
        ? await store.read(connectionOf)
        : await store.transaction(connectionOf);
      if (sameDatabase(connection, this.dataSource)) {
        return store;
      }
    }
    return new DataSourceTransactions(this.dataSource);
  }
}
