import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Runs async work one piece at a time. SQLite through better-sqlite3 has one connection: a
 * statement issued while another caller's transaction is open would silently join (and roll
 * back with) that transaction, so every use of the connection by the package goes through here.
 */
export class ConnectionLock {
  private tail: Promise<unknown> = Promise.resolve();
  private readonly holder = new AsyncLocalStorage<true>();

  constructor(private readonly enabled: boolean) {}

  /**
   * @throws Error when called from work the lock is already running (a handler or a
   * `WebhookTransactions.run()` callback starting another package transaction): waiting for
   * itself, it would never run.
   */
  run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.enabled) {
      return work();
    }
    if (this.holder.getStore()) {
      return Promise.reject(
        new Error(
          'On SQLite the package runs one transaction at a time on the single connection, and this ' +
            'call was made from inside one (a handler, or a WebhookTransactions.run() callback): ' +
            'it would wait for itself forever. Use the EntityManager you were given (ctx.manager) ' +
            'instead, or make the call after the transaction.',
        ),
      );
    }
    const guarded = () => this.holder.run(true, work);
    const result = this.tail.then(guarded, guarded);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
