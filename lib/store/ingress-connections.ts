import { DataSource, EntityManager, QueryRunner } from 'typeorm';

/** The size of a PostgreSQL data source's pool, as pg reads its options. */
export function poolSizeOf(dataSource: DataSource): number {
  const driver = dataSource.driver as { master?: { options?: { max?: number } } };
  const options = dataSource.options as { poolSize?: number; extra?: { max?: number } };
  return driver.master?.options?.max ?? options.extra?.max ?? options.poolSize ?? 10;
}

/**
 * PostgreSQL connections the answer path keeps for itself. Handlers hold a pooled connection
 * for their whole transaction, so with enough slow ones running every pooled connection is
 * taken and a delivery would wait for a handler to finish before it could be stored and
 * answered. Kept connections are taken from the data source's pool when first needed and given
 * back when the data source closes; one that fails is given back at once (pg drops it if it
 * broke) and a fresh one is taken next time. With a pool too small to spare one, deliveries are
 * written through the shared pool.
 */
export class IngressConnections {
  private readonly idle: QueryRunner[] = [];
  private readonly size: number;
  private held = 0;

  /**
   * @param size most connections kept. The pool always keeps two others: one a dispatcher
   * holds to LISTEN for other instances' events, and one for handlers and the application.
   */
  constructor(
    private readonly dataSource: DataSource,
    size: number,
  ) {
    this.size = Math.max(0, Math.min(size, poolSizeOf(dataSource) - 2));
  }

  /** Runs `work` on a kept connection, or on the shared pool when none can be kept. */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const runner = await this.take();
    if (!runner) {
      return work(this.dataSource.manager);
    }
    try {
      const result = await work(runner.manager);
      this.idle.push(runner);
      return result;
    } catch (error) {
      // NOTE: the connection may have broken: given back, pg drops it if so.
      this.held -= 1;
      await runner.release().catch(() => undefined);
      throw error;
    }
  }

  private async take(): Promise<QueryRunner | undefined> {
    let runner = this.idle.pop();
    while (runner?.isReleased) {
      // NOTE: released by TypeORM when its connection reported an error, or the data source closed.
      this.held -= 1;
      runner = this.idle.pop();
    }
    if (runner || this.held >= this.size || !this.dataSource.isInitialized) {
      return runner;
    }
    runner = this.dataSource.createQueryRunner('master');
    this.held += 1;
    try {
      await runner.connect();
    } catch (error) {
      this.held -= 1;
      await runner.release().catch(() => undefined);
      throw error;
    }
    return runner;
  }
}
