import { AsyncLocalStorage } from 'node:async_hooks';
import { NESTED_PACKAGE_TRANSACTION, WAITED_FOR_APP_TRANSACTION } from './sqlite.messages';

/** How a piece of work waits for the connection. */
export interface ConnectionLockOptions {
  /**
   * Runs before every waiting piece that is not urgent: the answer to a provider is waiting on
   * it, while a handler's transaction can wait without anyone timing out.
   */
  readonly urgent?: boolean;
  /**
   * Longest the piece running may have held the lock, in ms, counted from when it took it: past
   * that the call rejects with {@link LockWaitTimeout} and its work never runs (at once, when
   * the piece running took the lock longer ago). No limit when absent.
   */
  readonly waitMs?: number;
}

/** The lock was not free within the wait the caller allowed; its work did not run. */
export class LockWaitTimeout extends Error {
  override readonly name = 'LockWaitTimeout';
}

/** What holds the lock: the package's work, or the app's own statement or transaction. */
type Holder = 'package' | 'app-statement' | 'app-transaction';

interface Waiter {
  readonly start: () => void;
  readonly fail: (error: Error) => void;
  /** The package's own work, which waits only so long for the app's own transaction. */
  readonly pkg: boolean;
  readonly since: number;
  /** Time spent waiting while the app's own transaction held the lock, before the current hold. */
  appWaitMs: number;
  patience?: NodeJS.Timeout;
}

/**
 * Runs async work one piece at a time. On SQLite one connection writes the database file at a
 * time, and better-sqlite3 waits for a busy file by blocking the whole process; so every use of
 * the file by the package goes through here, and so do the app's own writes and transactions
 * (through {@link hold}), which take their turn instead of blocking on SQLite's lock. Urgent
 * work waits for the piece running, never for the queue behind it.
 */
export class ConnectionLock {
  private holder?: Holder;
  private heldSince = 0;
  private readonly urgent: Waiter[] = [];
  private readonly queued: Waiter[] = [];
  private readonly inside = new AsyncLocalStorage<true>();
  private verify?: () => Promise<void>;

  /**
   * @param enabled false on PostgreSQL: work runs at once.
   * @param appTransactionPatienceMs longest the package's work waits while the app's own
   * transaction holds the lock, as SQLite's busy timeout would: a package call made from inside
   * that transaction would otherwise wait for it forever.
   */
  constructor(
    private readonly enabled: boolean,
    private readonly appTransactionPatienceMs = 5000,
  ) {}

  /**
   * Runs `verify` after each piece of the package's work, before the next piece starts. When it
   * throws after a piece that succeeded, that piece fails with its error instead.
   */
  verifyEachTurn(verify: () => Promise<void>): void {
    this.verify = verify;
  }

  /** True inside work this lock runs for the package (a handler's or a callback's code). */
  insidePackageWork(): boolean {
    return this.inside.getStore() === true;
  }

  /**
   * @throws Error when called from work the lock is already running (a handler or a
   * `WebhookTransactions.run()` callback starting another package transaction): waiting for
   * itself, it would never run.
   */
  run<T>(work: () => Promise<T>, options: ConnectionLockOptions = {}): Promise<T> {
    if (!this.enabled) {
      return work();
    }
    if (this.insidePackageWork()) {
      return Promise.reject(new Error(NESTED_PACKAGE_TRANSACTION));
    }
    const start = () => {
      let running: Promise<T>;
      try {
        running = this.inside.run(true, work);
      } catch (error) {
        running = Promise.reject(error);
      }
      return this.verified(running).finally(() => this.next());
    };
    if (!this.holder) {
      this.take('package');
      return start();
    }
    return this.wait('package', options).then(start);
  }

  private async verified<T>(running: Promise<T>): Promise<T> {
    const { verify } = this;
    if (!verify) {
      return running;
    }
    let value: T;
    try {
      value = await running;
    } catch (error) {
      // NOTE: the piece failed already and says why; what verify finds (and mends) adds nothing.
      await verify().catch(() => undefined);
      throw error;
    }
    await verify();
    return value;
  }

  /**
   * Takes the lock, urgently, for the app's own use of the database: one statement, or a
   * transaction that may stay open across awaits. Resolves to the function that gives it back.
   */
  async hold(transaction: boolean): Promise<() => void> {
    const holder = transaction ? 'app-transaction' : 'app-statement';
    if (this.holder) {
      await this.wait(holder, { urgent: true });
    } else {
      this.take(holder);
    }
    let held = true;
    return () => {
      if (held) {
        held = false;
        this.next();
      }
    };
  }

  /** Queues for the lock, held by someone else; resolves once `holder` has it. */
  private wait(holder: Holder, options: ConnectionLockOptions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const lane = options.urgent ? this.urgent : this.queued;
      let deadline: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        start: () => {
          clearTimeout(deadline);
          clearTimeout(waiter.patience);
          this.take(holder);
          resolve();
        },
        fail: (error) => {
          clearTimeout(deadline);
          clearTimeout(waiter.patience);
          const at = lane.indexOf(waiter);
          if (at >= 0) {
            lane.splice(at, 1);
            reject(error);
          }
        },
        pkg: holder === 'package',
        since: Date.now(),
        appWaitMs: 0,
      };
      if (options.waitMs !== undefined) {
        // NOTE: counted from the start of the hold, so a run of calls behind one long hold
        // does not wait waitMs each, one after the other.
        const left = this.heldSince + options.waitMs - Date.now();
        if (left <= 0) {
          reject(new LockWaitTimeout(`the database has been busy for ${options.waitMs} ms`));
          return;
        }
        deadline = setTimeout(
          () => waiter.fail(new LockWaitTimeout(`the database was busy for ${options.waitMs} ms`)),
          left,
        );
      }
      lane.push(waiter);
      if (this.holder === 'app-transaction') {
        this.armPatience(waiter);
      }
    });
  }

  private take(holder: Holder): void {
    this.holder = holder;
    this.heldSince = Date.now();
    if (holder === 'app-transaction') {
      [...this.urgent, ...this.queued].forEach((waiter) => this.armPatience(waiter));
    }
  }

  private next(): void {
    if (this.holder === 'app-transaction') {
      const now = Date.now();
      for (const waiter of [...this.urgent, ...this.queued]) {
        clearTimeout(waiter.patience);
        waiter.appWaitMs += now - Math.max(this.heldSince, waiter.since);
      }
    }
    this.holder = undefined;
    (this.urgent.shift() ?? this.queued.shift())?.start();
  }

  /** Fails a package waiter once it has waited its patience for the app's own transaction. */
  private armPatience(waiter: Waiter): void {
    if (!waiter.pkg) {
      return;
    }
    const waited = waiter.appWaitMs + Date.now() - Math.max(this.heldSince, waiter.since);
    waiter.patience = setTimeout(
      () => waiter.fail(new Error(WAITED_FOR_APP_TRANSACTION(this.appTransactionPatienceMs))),
      Math.max(0, this.appTransactionPatienceMs - waited),
    );
    waiter.patience.unref();
  }
}
