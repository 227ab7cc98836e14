import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { DataSource, DataSourceOptions } from 'typeorm';
import { WebhookAdmin } from '../admin/webhook-admin';
import { idempotencyEntities } from '../idempotency/entities';
import { idempotencyMigrations } from '../idempotency/migrations';
import { webhookEntities } from '../store/entities';
import { InboxSignal } from '../store/inbox-signal';
import { webhooksMigrations } from '../store/migrations';
import type { InboxQueries } from '../store/ports/inbox-queries.port';
import { TypeOrmWebhookStore } from '../store/typeorm-webhook.store';
import { ParsedCommand, stringOption } from './arguments';
import { CliFailure, CliUsageError } from './cli-errors';

/** The database the CLI works on: the app's own. */
export type DatabaseTarget =
  | { readonly kind: 'postgres'; readonly url: string }
  | { readonly kind: 'sqlite'; readonly path: string };

/** The inbox opened by the CLI. */
export interface CliInbox {
  readonly dataSource: DataSource;
  readonly store: TypeOrmWebhookStore;
  /** Reads and operator changes on the inbox. */
  readonly queries: InboxQueries;
  readonly admin: WebhookAdmin;
  readonly target: DatabaseTarget;
  /** Closes the connection. */
  close(): Promise<void>;
}

const NO_DATABASE =
  'no database given: pass --database-url postgres://user:password@host:5432/db or ' +
  '--sqlite <file>, or set DATABASE_URL (postgres://… or sqlite:<file>) as the app has it';

/**
 * Where the database is: `--database-url`, else `--sqlite`, else `DATABASE_URL`
 * (`postgres://…`, `postgresql://…` or `sqlite:<file>`).
 * @throws CliUsageError when none is given, both flags are, or the URL's scheme is unknown.
 */
export function databaseTarget(
  command: string,
  parsed: ParsedCommand,
  env: Readonly<Record<string, string | undefined>>,
): DatabaseTarget {
  const url = stringOption(parsed, 'database-url');
  const sqlite = stringOption(parsed, 'sqlite');
  if (url !== undefined && sqlite !== undefined) {
    throw new CliUsageError('give --database-url or --sqlite, not both', command);
  }
  if (sqlite !== undefined) {
    if (sqlite.trim() === '') {
      throw new CliUsageError('--sqlite needs the path of the SQLite file', command);
    }
    return { kind: 'sqlite', path: resolve(sqlite) };
  }
  const text = url ?? env.DATABASE_URL;
  if (text === undefined || text.trim() === '') {
    throw new CliUsageError(NO_DATABASE, command);
  }
  const source = url === undefined ? 'DATABASE_URL' : '--database-url';
  if (/^postgres(ql)?:\/\//i.test(text)) {
    return { kind: 'postgres', url: text };
  }
  if (/^sqlite:/i.test(text)) {
    // NOTE: sqlite:shop.sqlite, sqlite:///var/data/shop.sqlite and sqlite://shop.sqlite all work.
    const path = text.replace(/^sqlite:/i, '').replace(/^\/\//, '');
    if (path === '') {
      throw new CliUsageError(`${source} sqlite: needs a file, e.g. sqlite:./shop.sqlite`, command);
    }
    return { kind: 'sqlite', path: resolve(path) };
  }
  const scheme = /^([a-z][a-z0-9+.-]*):/i.exec(text)?.[1];
  throw new CliUsageError(
    `${source} must start with postgres://, postgresql:// or sqlite: (got ${
      scheme === undefined ? 'no scheme' : `"${scheme}:"`
    })`,
    command,
  );
}

/** The target for messages, with any password replaced by `***`. */
export function describeTarget(target: DatabaseTarget): string {
  if (target.kind === 'sqlite') {
    return `SQLite file ${target.path}`;
  }
  try {
    const url = new URL(target.url);
    if (url.password !== '') {
      url.password = '***';
    }
    return `PostgreSQL ${url.toString()}`;
  } catch {
    return 'PostgreSQL (unparseable URL)';
  }
}

function dataSourceOptions(target: DatabaseTarget): DataSourceOptions {
  const common = {
    // NOTE: the idempotency tables too, so `migrate` and `retention` keep covering apps that
    // use IdempotencyModule; an app without it leaves the two tables empty.
    entities: [...webhookEntities, ...idempotencyEntities],
    migrations: [...webhooksMigrations, ...idempotencyMigrations],
    synchronize: false,
    logging: false,
  };
  return target.kind === 'postgres'
    ? {
        type: 'postgres',
        url: target.url,
        applicationName: 'nestjs-payment-webhooks-cli',
        connectTimeoutMS: 10_000,
        poolSize: 2,
        ...common,
      }
    : { type: 'better-sqlite3', database: target.path, ...common };
}

/**
 * Connects to the database. A SQLite file must exist unless `create` is set (for `migrate`).
 * @throws CliFailure naming the database (never its password) and the cause.
 */
export async function connect(
  target: DatabaseTarget,
  options: { create?: boolean } = {},
): Promise<DataSource> {
  if (target.kind === 'sqlite' && !options.create && !existsSync(target.path)) {
    throw new CliFailure(
      `${describeTarget(target)} does not exist: check --sqlite / DATABASE_URL, or create the ` +
        'tables with "nestjs-payment-webhooks migrate"',
    );
  }
  const dataSource = new DataSource(dataSourceOptions(target));
  try {
    await dataSource.initialize();
  } catch (error) {
    throw new CliFailure(
      `cannot open ${describeTarget(target)}: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  return dataSource;
}

/**
 * Opens the app's inbox: connects, checks the tables are there and durable, and builds the
 * same `WebhookAdmin` the app uses.
 * @throws CliFailure when the database cannot be reached or has no webhook tables.
 */
export async function openInbox(target: DatabaseTarget): Promise<CliInbox> {
  const dataSource = await connect(target);
  const store = new TypeOrmWebhookStore(dataSource);
  try {
    await store.initialize();
  } catch (error) {
    await store.close().catch(() => undefined);
    await dataSource.destroy().catch(() => undefined);
    const message = (error as Error).message;
    throw new CliFailure(
      /do not exist/.test(message)
        ? `the webhook tables are missing in ${describeTarget(target)}: run ` +
            '"nestjs-payment-webhooks migrate" with the same connection options, or start the ' +
            'app once with migrationsRun: true'
        : message,
    );
  }
  return {
    dataSource,
    store,
    queries: store.queries,
    admin: new WebhookAdmin(store.queries, new InboxSignal()),
    target,
    close: async () => {
      await store.close();
      await dataSource.destroy();
    },
  };
}
