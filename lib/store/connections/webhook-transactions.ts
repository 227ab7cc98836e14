import { EntityManager } from 'typeorm';
import { WebhookStore } from '../ports/webhook-store.port';

/**
 * Runs your own writes in a transaction on the inbox's data source, on the connection the
 * package uses. On SQLite that is a connection of the package's own, taking turns with handler
 * transactions (your plain writes through your own data source never join one of those
 * either: they wait for it); on PostgreSQL it is a plain transaction.
 */
export class WebhookTransactions {
  constructor(private readonly store: WebhookStore) {}

  /**
   * @example
   * ```ts
   * const order = await this.transactions.run((manager) => manager.save(Order, { amount, currency }));
   * ```
   */
  run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.store.transaction(work);
  }
}
