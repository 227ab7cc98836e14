import { APP_WRITE_INSIDE_PACKAGE_TRANSACTION } from './sqlite.messages';
import { ConnectionLock } from './connection-lock';

/** The part of a TypeORM query event the gate reads. */
interface QueryEventLike {
  readonly query: string;
  readonly parameters?: unknown;
  /** Set on the event after the statement ran. */
  readonly success?: boolean;
}

/** One of the app's statements that waits for, or holds, the lock. */
interface Turn {
  release?: () => void;
  done: boolean;
}

// NOTE: a SELECT only reads, and in WAL mode a reader neither waits for nor blocks the writer.
const READS_ONLY = /^\s*SELECT\b/i;

/** Statements whose failure leaves no transaction open (TypeORM then reports no end of it). */
const ENDS_WHEN_FAILING = /^\s*(BEGIN|ROLLBACK)\b/i;

/**
 * A TypeORM subscriber on the app's own SQLite data source. The package runs its transactions
 * on a connection of its own, so the app's writes can never join one of them; this makes each
 * of the app's writes, and each of its transactions, wait for the package's transaction to end
 * instead of blocking the process on SQLite's lock, and makes the package wait for the app's
 * open transaction in turn.
 */
export class AppWritesGate {
  /** Gives back the lock the app's open transaction holds. */
  private transaction?: () => void;
  private depth = 0;
  private readonly turns = new Map<unknown, Turn>();

  constructor(private readonly lock: ConnectionLock) {}

  beforeTransactionStart(): Promise<void> | void {
    this.depth += 1;
    if (this.depth > 1) {
      return;
    }
    if (this.lock.insidePackageWork()) {
      this.depth -= 1;
      throw new Error(APP_WRITE_INSIDE_PACKAGE_TRANSACTION);
    }
    return this.lock.hold(true).then((release) => {
      this.transaction = release;
    });
  }

  afterTransactionCommit(): void {
    this.endTransaction();
  }

  afterTransactionRollback(): void {
    this.endTransaction();
  }

  beforeQuery(event: QueryEventLike): Promise<void> | void {
    if (this.transaction || READS_ONLY.test(event.query)) {
      // NOTE: inside the app's own transaction a statement takes part in it, as TypeORM makes it.
      return;
    }
    if (this.lock.insidePackageWork()) {
      throw new Error(APP_WRITE_INSIDE_PACKAGE_TRANSACTION);
    }
    const turn: Turn = { done: false };
    this.turns.set(this.keyOf(event), turn);
    return this.lock.hold(false).then((release) => {
      if (turn.done) {
        release();
      } else {
        turn.release = release;
      }
    });
  }

  afterQuery(event: QueryEventLike): void {
    if (this.transaction && event.success === false && ENDS_WHEN_FAILING.test(event.query)) {
      this.depth = 1;
      this.endTransaction();
      return;
    }
    const key = this.keyOf(event);
    const turn = this.turns.get(key);
    if (turn) {
      // NOTE: a driver that does not wait for beforeQuery may finish first; the lock is then
      // given back as soon as it is taken.
      this.turns.delete(key);
      turn.done = true;
      turn.release?.();
    }
  }

  private endTransaction(): void {
    this.depth = Math.max(0, this.depth - 1);
    if (this.depth === 0) {
      const release = this.transaction;
      this.transaction = undefined;
      release?.();
    }
  }

  /**
   * The same event object's parameters reach beforeQuery and afterQuery: a fresh array per
   * statement, so it tells two statements with the same text apart.
   */
  private keyOf(event: QueryEventLike): unknown {
    return typeof event.parameters === 'object' && event.parameters !== null
      ? event.parameters
      : event.query;
  }
}
