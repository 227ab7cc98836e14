import { DataSource } from 'typeorm';
import { WebhookConfigurationError } from '../../core/webhook-errors';

/** The two databases the store speaks to, and how their SQL differs. */
export interface SqlDialect {
  readonly kind: 'postgres' | 'sqlite';
  /** Placeholder for the n-th (1-based) parameter. */
  param(index: number): string;
  /** A date as the driver stores it (SQLite keeps TypeORM's UTC text format). */
  date(value: Date): Date | string;
  /** Clause that makes a claim skip rows another worker holds (PostgreSQL only). */
  readonly skipLocked: string;
}

const postgres: SqlDialect = {
  kind: 'postgres',
  param: (index) => `$${index}`,
  date: (value) => value,
  skipLocked: 'FOR UPDATE SKIP LOCKED',
};

const sqlite: SqlDialect = {
  kind: 'sqlite',
  param: () => '?',
  // NOTE: the same text TypeORM writes for `datetime` columns, so comparisons stay lexical.
  date: (value) => value.toISOString().replace('T', ' ').replace('Z', ''),
  skipLocked: '',
};

/** Picks the dialect for a data source, or fails naming the supported drivers. */
export function sqlDialectOf(dataSource: DataSource): SqlDialect {
  switch (dataSource.options.type) {
    case 'postgres':
      return postgres;
    case 'better-sqlite3':
      return sqlite;
    default:
      throw new WebhookConfigurationError(
        `nestjs-payment-webhooks stores events in PostgreSQL ("postgres") or SQLite ("better-sqlite3"); ` +
          `the data source is "${dataSource.options.type}". Point the module at a supported data source ` +
          'with WebhooksModule.forRoot({ ..., dataSource: "<name>" }).',
      );
  }
}
