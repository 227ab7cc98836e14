import { AsyncLocalStorage } from 'node:async_hooks';

/** How a piece of work waits for the connection. */
export interface ConnectionLockOptions {
  /**
   * Runs before every waiting piece that is not urgent: the answer to a provider is waiting on
   * it, while a handler's transaction can wait without anyone timing out.
   */
  readonly urgent?: boolean;
}

/**
 * Runs async work one piece at a time. SQLite through better-sqlite3 has one connection: a
 * statement issued while another caller's transaction is open would silently join (and roll
 * back with) that transaction, so every use of the connection by the package goes through here.
 * Urgent work waits for the piece running, never for the queue behind it.
 */
export class ConnectionLock {
  private busy = false;
  private readonly urgent: (() => void)[] = [];
  private readonly queued: (() => void)[] = [];
  private readonly holder = new AsyncLocalStorage<true>();

  constructor(private readonly enabled: boolean) {}

  /**
   * @throws Error when called from work the lock is already running (a handler or a
   * `WebhookTransactions.run()` callback starting another package transaction): waiting for
   * itself, it would never run.
   */
  run<T>(work: () => Promise<T>, options: ConnectionLockOptions = {}): Promise<T> {
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
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        let running: Promise<T>;
        try {
          running = this.holder.run(true, work);
        } catch (error) {
          running = Promise.reject(error);
        }
        running.then(resolve, reject).finally(() => this.next());
      };
      if (!this.busy) {
        this.busy = true;
        start();
      } else {
        (options.urgent ? this.urgent : this.queued).push(start);
      }
    });
  }

  private next(): void {
    const start = this.urgent.shift() ?? this.queued.shift();
    if (start) {
      start();
    } else {
      this.busy = false;
    }
  }
}
