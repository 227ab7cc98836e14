import { DataSource, DataSourceOptions } from 'typeorm';
import { MIGRATIONS_OF_0_1, seedInboxOf01 } from './inbox-0.1';
import { AddWebhookTransmissions1764600000000, SplitEventWork1764700000000 } from './internals';

/** The migrations of release 0.2: the inbox with its work rows, before events had tenants. */
export const MIGRATIONS_OF_0_2 = [
  ...MIGRATIONS_OF_0_1,
  AddWebhookTransmissions1764600000000,
  SplitEventWork1764700000000,
];

/** Every row of the package's tables, each table in a fixed order, as the driver reads them. */
export interface InboxRows {
  readonly events: Record<string, unknown>[];
  readonly work: Record<string, unknown>[];
  readonly ledger: Record<string, unknown>[];
}

/**
 * Makes an inbox of 0.2 in the database of `options`: the events of a seeded 0.1 inbox (see
 * `eventOf01()`: every status, ledger rows, a running event leased to a worker that has gone),
 * upgraded by 0.2's own migration, so each event still to run, running, retrying or dead has
 * its work row as 0.2 keeps it.
 */
export async function createInboxOf02(
  options: DataSourceOptions,
  seed: { events: number; start: Date; handlerKeys: readonly string[] },
): Promise<void> {
  const of01 = await new DataSource({
    ...options,
    migrations: MIGRATIONS_OF_0_1,
    migrationsRun: true,
  }).initialize();
  try {
    await seedInboxOf01(of01, { ...seed, to: seed.events, batch: 25 });
  } finally {
    await of01.destroy();
  }
  const of02 = await new DataSource({
    ...options,
    migrations: MIGRATIONS_OF_0_2,
    migrationsRun: true,
  }).initialize();
  await of02.destroy();
}

/** Reads every row of the inbox, its work rows and the ledger through `dataSource`. */
export async function inboxRows(dataSource: DataSource): Promise<InboxRows> {
  return {
    events: await dataSource.query('SELECT * FROM webhook_events ORDER BY id'),
    work: await dataSource.query('SELECT * FROM webhook_work ORDER BY event_id'),
    ledger: await dataSource.query(
      'SELECT * FROM webhook_handler_runs ORDER BY event_id, handler_key',
    ),
  };
}

/**
 * The SQLite intake file's table as 0.2 made it (no tenant, keyed by endpoint and event id),
 * for deliveries staged by 0.2 and moved by a later version.
 */
export const INTAKE_OF_0_2 = [
  `CREATE TABLE "webhook_intake" (
    "id" varchar(36) NOT NULL PRIMARY KEY,
    "endpoint" varchar(64) NOT NULL,
    "provider" varchar(32) NOT NULL,
    "event_id" varchar(255) NOT NULL,
    "type" varchar(255) NOT NULL,
    "native_type" varchar(255) NOT NULL,
    "payment_ref" varchar(255),
    "merchant_ref" varchar(255),
    "amount" bigint,
    "currency" varchar(8),
    "payment_status" varchar(64),
    "occurred_at" datetime,
    "received_at" datetime NOT NULL,
    "raw_body" text NOT NULL,
    "body_sha256" varchar(64) NOT NULL,
    "headers" text NOT NULL,
    "status" varchar(16) NOT NULL CHECK ("status" IN ('pending', 'processing', 'retrying', 'processed', 'ignored', 'dead')),
    "attempts" integer NOT NULL DEFAULT 0,
    "next_attempt_at" datetime,
    "processed_at" datetime,
    "delivery_count" integer NOT NULL DEFAULT 1
  )`,
  'CREATE UNIQUE INDEX "uq_webhook_intake_endpoint_event" ON "webhook_intake" ("endpoint", "event_id")',
];
