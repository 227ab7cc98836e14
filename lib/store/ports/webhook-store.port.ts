import type { EntityManager } from 'typeorm';
import type { InboxQueries } from './inbox-queries.port';
import type { InboxWorker } from './inbox-worker.port';
import type { InboxWriter } from './inbox-writer.port';

/**
 * The inbox and ledger, composed of one port per role: storing deliveries ({@link InboxWriter}),
 * the queue of work, the handler ledger and how attempts end ({@link InboxWorker}: `WorkQueue`,
 * `RunLedger`, `EventOutcomes`), and the reads and operator changes under {@link queries}
 * (`EventQueries`, `OperatorActions`, `PauseQueries`, `ReplayJobs`, `RetentionQueries`), plus
 * transactions for the application's own writes. Each part of the engine takes the port it
 * uses. The TypeORM store serves PostgreSQL and SQLite; another one can be given to
 * `WebhooksEngine.create({ store })` or provided under this token in a Nest app, and the engine
 * then uses it for everything.
 */
export interface WebhookStore extends InboxWriter, InboxWorker {
  /** Reads and operator changes on the inbox (the `InboxQueries` port). */
  readonly queries: InboxQueries;
  /**
   * The database behind the inbox: a transport that runs handlers in other processes needs
   * one they share (`postgres`).
   */
  readonly database: 'postgres' | 'sqlite';
  /**
   * Runs `work` in a transaction on the inbox's connection, serialized with the package's own
   * writes where the database needs it (SQLite). For the application's own writes
   * (`WebhookTransactions`) and the idempotency store, not for inbox queries (see
   * `InboxQueries`).
   */
  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T>;
  /** Checks the inbox can be used (tables, durability); the engine calls it once, first. */
  initialize?(): Promise<void>;
  /** Releases what the store opened itself; the engine calls it when it closes. */
  close?(): Promise<void>;
}

/** Injection token for the {@link WebhookStore}. */
export const WebhookStore = Symbol('WebhookStore');
