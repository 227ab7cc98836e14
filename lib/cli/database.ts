import { existsSync } from 'node:fs';
import { DataSource, DataSourceOptions } from 'typeorm';
import { WebhookAdmin } from '../admin/webhook-admin';
import { idempotencyEntities } from '../idempotency/entities';
import { idempotencyMigrations } from '../idempotency/migrations';
import { webhookEntities } from '../store/schema/entities';
import { InboxSignal } from '../store/work/inbox-signal';
import { webhooksMigrations } from '../store/schema/migrations';
import type { InboxQueries } from '../store/ports/inbox-queries.port';
import { TypeOrmWebhookStore } from '../store/typeorm-webhook.store';
import { CliFailure } from './cli-errors';
import { DatabaseTarget, describeTarget } from './database-target';

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
