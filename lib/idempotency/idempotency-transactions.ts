import { DataSource, EntityManager } from 'typeorm';
import { sqlDialectOf } from '../store/schema/sql-dialect';

/**
 * Where the idempotency store runs its transactions. The webhook store is one
 * (`WebhookStore.transaction`): sharing it keeps the idempotency writes in line with the
 * package's other writes on SQLite's one connection.
 */
export interface IdempotencyTransactions {
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
}

/**
 * Transactions of the idempotency store's own, for an app without `WebhooksModule` on the
 * data source. On SQLite they run one at a time: the driver has one connection, and a second
 * BEGIN on it would nest inside the first transaction instead of waiting for it.
 */
export class DataSourceTransactions implements IdempotencyTransactions {
  private readonly serial: boolean;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly dataSource: DataSource) {
    this.serial = sqlDialectOf(dataSource).kind === 'sqlite';
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    if (!this.serial) {
      return this.dataSource.transaction(work);
    }
    const turn = this.queue.then(() => this.dataSource.transaction(work));
    this.queue = turn.catch(() => undefined);
    return turn;
  }
}
