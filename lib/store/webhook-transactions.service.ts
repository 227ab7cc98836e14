import { Inject, Injectable } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { WebhookStore } from './webhook-store.interface';

/**
 * Runs your own writes in a transaction on the inbox's data source. On SQLite (one shared
 * connection) it queues behind running handler transactions, so your writes never join and
 * roll back with one of them; on PostgreSQL it is a plain transaction.
 */
@Injectable()
export class WebhookTransactions {
  constructor(@Inject(WebhookStore) private readonly store: WebhookStore) {}

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
