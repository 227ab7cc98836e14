/**
 * Runs async work one piece at a time. SQLite through better-sqlite3 has one connection: a
 * statement issued while another caller's transaction is open would silently join (and roll
 * back with) that transaction, so every use of the connection by the package goes through here.
 */
export class ConnectionLock {
  private tail: Promise<unknown> = Promise.resolve();

  constructor(private readonly enabled: boolean) {}

  run<T>(work: () => Promise<T>): Promise<T> {
    if (!this.enabled) {
      return work();
    }
    const result = this.tail.then(work, work);
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}
