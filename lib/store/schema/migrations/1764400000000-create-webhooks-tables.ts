import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlDialectOf } from '../sql-dialect';

const STATUSES = "'pending', 'processing', 'retrying', 'processed', 'ignored', 'dead'";

/**
 * Creates the inbox and the handler ledger. One migration for both supported databases:
 * PostgreSQL gets `timestamptz` columns, SQLite TypeORM's `datetime` text format.
 */
export class CreateWebhooksTables1764400000000 implements MigrationInterface {
  readonly name = 'CreateWebhooksTables1764400000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts =
      sqlDialectOf(queryRunner.connection).kind === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`
      CREATE TABLE "webhook_events" (
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
        "occurred_at" ${ts},
        "received_at" ${ts} NOT NULL,
        "raw_body" text NOT NULL,
        "body_sha256" varchar(64) NOT NULL,
        "headers" text NOT NULL,
        "status" varchar(16) NOT NULL CHECK ("status" IN (${STATUSES})),
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" ${ts},
        "locked_by" varchar(128),
        "locked_until" ${ts},
        "last_error" text,
        "processed_at" ${ts},
        "delivery_count" integer NOT NULL DEFAULT 1
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_events_endpoint_event" ON "webhook_events" ("endpoint", "event_id")`,
    );
    // NOTE: partial indexes keep the claim query cheap however many processed rows pile up.
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_due" ON "webhook_events" ("next_attempt_at") WHERE "status" IN ('pending', 'retrying')`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_lease" ON "webhook_events" ("locked_until") WHERE "status" = 'processing'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_status_received" ON "webhook_events" ("status", "received_at")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_payment_ref" ON "webhook_events" ("payment_ref")`,
    );
    await queryRunner.query(`
      CREATE TABLE "webhook_handler_runs" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "event_id" varchar(36) NOT NULL REFERENCES "webhook_events" ("id") ON DELETE CASCADE,
        "handler_key" varchar(255) NOT NULL,
        "attempt" integer NOT NULL,
        "finished_at" ${ts} NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_handler_runs_event_handler" ON "webhook_handler_runs" ("event_id", "handler_key")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_handler_runs"`);
    await queryRunner.query(`DROP TABLE "webhook_events"`);
  }
}
