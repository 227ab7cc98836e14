import { DataSource, EntityManager, QueryRunner } from 'typeorm';

/**
 * The size of a PostgreSQL data source's pool, read from its options as TypeORM hands them to
 * pg (`extra` overrides `poolSize`; pg's own default is 10).
 */
export function poolSizeOf(dataSource: DataSource): number {
  const options = dataSource.options as { poolSize?: number; extra?: { max?: number } };
  return options.extra?.max ?? options.poolSize ?? 10;
}

/** A connection taken for one write, and whether it is one of those kept. */
interface Taken {
  readonly runner: QueryRunner;
  readonly kept: boolean;
}

/**
 * PostgreSQL connections the answer path keeps for itself. Handlers hold a pooled connection
 * for their whole transaction, so with enough slow ones running every pooled connection is
 * taken and a delivery would wait for a handler to finish before it could be stored and
 * answered. Kept connections are taken from the data source's pool when first needed and given
 * back when the data source closes; one that fails is given back at once (pg drops it if it
 * broke) and a fresh one is taken next time. With a pool too small to spare one, or all kept
 * ones busy, a write takes a pooled connection for itself and gives it back after.
 *
 * Every connection writing for the answer path carries `statement_timeout` and `lock_timeout`,
 * so the server gives up on a write nobody waits for; a connection given back to the pool has
 * them reset first, so handlers and the application never run under them.
 */
export class IngressConnections {
  private readonly idle: QueryRunner[] = [];
  private readonly size: number;
  private held = 0;

  /**
   * @param size most connections kept. The pool always keeps two others: one a dispatcher
   * holds to LISTEN for other instances' events, and one for handlers and the application.
   * @param timeoutMs the statement and lock timeout of the answer path's writes.
   */
  constructor(
    private readonly dataSource: DataSource,
    size: number,
    private readonly timeoutMs: number,
  ) {
    this.size = Math.max(0, Math.min(size, poolSizeOf(dataSource) - 2));
  }

  /** Runs `work` on a kept connection, or on one taken from the pool for it. */
  async run<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    const { runner, kept } = await this.take();
    try {
      const result = await work(runner.manager);
      if (kept) {
        this.idle.push(runner);
      } else {
        await this.giveBack(runner);
      }
      return result;
    } catch (error) {
      // NOTE: the connection may have broken: given back, pg drops it if so.
      if (kept) {
        this.held -= 1;
      }
      await this.giveBack(runner);
      throw error;
    }
  }

  private async take(): Promise<Taken> {
    let runner = this.idle.pop();
    while (runner?.isReleased) {
      // NOTE: released by TypeORM when its connection reported an error, or the data source closed.
      this.held -= 1;
      runner = this.idle.pop();
    }
    if (runner) {
      return { runner, kept: true };
    }
    const kept = this.held < this.size;
    runner = this.dataSource.createQueryRunner('master');
    if (kept) {
      this.held += 1;
    }
    try {
      await runner.connect();
      await runner.query(
        "SELECT set_config('statement_timeout', $1, false), set_config('lock_timeout', $1, false)",
        [String(this.timeoutMs)],
      );
    } catch (error) {
      if (kept) {
        this.held -= 1;
      }
      await this.giveBack(runner);
      throw error;
    }
    return { runner, kept };
  }

  /** Resets the answer path's limits on `runner` and gives it back to the pool. */
  private async giveBack(runner: QueryRunner): Promise<void> {
    if (!runner.isReleased) {
      await runner.query('RESET statement_timeout; RESET lock_timeout').catch(() => undefined);
    }
    await runner.release().catch(() => undefined);
  }
}
