import { createHash } from 'node:crypto';
import { DataSource, QueryFailedError, QueryRunner } from 'typeorm';

/** The part of a `pg` client a named statement runs through. */
interface PgClient {
  query(config: {
    readonly name: string;
    readonly text: string;
    readonly values: unknown[];
  }): Promise<{ rows?: unknown[] }>;
}

/**
 * The package's own statements on PostgreSQL as named prepared statements: each pooled
 * connection parses and plans a statement the first time it runs it, then only binds and
 * executes it. The statements are few and their texts fixed (ids, times and values travel as
 * parameters), so each connection holds a handful. A statement runs on the query runner's own
 * connection, inside its transaction when it has one, and is logged through the data source's
 * logger as TypeORM logs its own (query, slow query, error); a failure is TypeORM's
 * `QueryFailedError`, as from `query()`.
 *
 * Not used when the data source has a subscriber that watches queries (`beforeQuery`,
 * `afterQuery`): those statements go through `query()` so the subscriber still sees them.
 */
export class PreparedStatements {
  private readonly names = new Map<string, string>();

  constructor(private readonly dataSource: DataSource) {}

  /** Whether statements may run prepared: no subscriber of the data source watches queries. */
  get usable(): boolean {
    return !this.dataSource.subscribers.some(
      (subscriber) => 'beforeQuery' in subscriber || 'afterQuery' in subscriber,
    );
  }

  /** Runs `sql` as a named statement on `runner`'s connection and returns its rows. */
  async rows(runner: QueryRunner, sql: string, params: unknown[]): Promise<unknown[]> {
    const client = (await runner.connect()) as PgClient;
    const { logger } = this.dataSource;
    logger.logQuery(sql, params, runner);
    const started = Date.now();
    try {
      const result = await client.query({ name: this.nameOf(sql), text: sql, values: params });
      const elapsed = Date.now() - started;
      const slowAfter = this.dataSource.options.maxQueryExecutionTime;
      if (slowAfter && elapsed > slowAfter) {
        logger.logQuerySlow(elapsed, sql, params, runner);
      }
      return result.rows ?? [];
    } catch (error) {
      logger.logQueryError(error as Error, sql, params, runner);
      throw new QueryFailedError(sql, params, error as Error);
    }
  }

  /**
   * The statement's name: derived from its text, so one text always has the same name on
   * every connection and a name never stands for two texts.
   */
  private nameOf(sql: string): string {
    let name = this.names.get(sql);
    if (name === undefined) {
      name = `payment_webhooks_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`;
      this.names.set(sql, name);
    }
    return name;
  }
}
