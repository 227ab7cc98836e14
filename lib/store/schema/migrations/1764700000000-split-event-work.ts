import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlDialectOf } from '../sql-dialect';

/** The statuses of an event that still has work: to run, running, to run again, or dead. */
const WORK_STATUSES = "'pending', 'processing', 'retrying', 'dead'";

/**
 * Separates what changes from what does not. `webhook_work` gets one narrow row per event that
 * is still to run, running, retrying or dead: its status, attempts, due time and lease, which
 * claims, lease renewals and retries update. `webhook_events` keeps the event as received and
 * the status as of its last settlement, and loses the indexes on status and lease, so the
 * updates it still gets change no indexed column. The ledger is keyed by (event, handler) alone.
 * Neither the work rows nor the ledger keep a foreign key to the events: its check took a lock
 * on the event's row for every row written (on PostgreSQL 35–40 µs of the server's time a
 * stored event, about half again; 30–35 µs a ledger row, over twice as much), and the store
 * deletes an event's work and ledger rows with it.
 *
 * Every row is kept: each event still to run, running, retrying or dead gets its work row
 * with its attempts, due time and lease; a running event's own row says `pending` (first
 * attempt) or `retrying` (a later one), as it would after its last settlement; ledger rows keep
 * their event, handler, attempt, time and outcome.
 */
export class SplitEventWork1764700000000 implements MigrationInterface {
  readonly name = 'SplitEventWork1764700000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = sqlDialectOf(queryRunner.connection).kind === 'postgres';
    const ts = postgres ? 'timestamptz' : 'datetime';
    // NOTE: on SQLite a table keyed by its primary key alone, without rowid, is one B-tree
    // instead of a table and an index.
    const keyed = postgres ? '' : ' WITHOUT ROWID';
    await queryRunner.query(`
      CREATE TABLE "webhook_work" (
        "event_id" varchar(36) NOT NULL PRIMARY KEY,
        "status" varchar(16) NOT NULL CHECK ("status" IN (${WORK_STATUSES})),
        "attempts" integer NOT NULL DEFAULT 0,
        "next_attempt_at" ${ts},
        "locked_by" varchar(128),
        "locked_until" ${ts}
      )${keyed}`);
    await queryRunner.query(
      'INSERT INTO "webhook_work" ("event_id", "status", "attempts", "next_attempt_at", "locked_by", "locked_until") ' +
        `SELECT "id", "status", "attempts", "next_attempt_at", "locked_by", "locked_until" FROM "webhook_events" WHERE "status" IN (${WORK_STATUSES})`,
    );
    await queryRunner.query(
      `UPDATE "webhook_events" SET "status" = CASE WHEN "attempts" > 1 THEN 'retrying' ELSE 'pending' END WHERE "status" = 'processing'`,
    );
    // NOTE: the same partial indexes the inbox had, on the narrow rows: a claim reads due
    // events by next_attempt_at and expired leases by locked_until; dead rows are in neither.
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_work_due" ON "webhook_work" ("next_attempt_at") WHERE "status" IN ('pending', 'retrying')`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_work_lease" ON "webhook_work" ("locked_until") WHERE "status" = 'processing'`,
    );
    for (const index of ['due', 'lease', 'status_received']) {
      await queryRunner.query(`DROP INDEX "ix_webhook_events_${index}"`);
    }
    // NOTE: lists, retention and the samples range over receipt time; the column never changes.
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_received" ON "webhook_events" ("received_at")`,
    );
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "locked_by"');
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "locked_until"');
    if (postgres) {
      // NOTE: a fifth of each new page is left free, so the update that settles an event finds
      // room on its own page and stays a HOT update (no new index entries). With 1 KB bodies
      // all settlements were HOT at 80, half of them at the default 100.
      await queryRunner.query('ALTER TABLE "webhook_events" SET (fillfactor = 80)');
      await queryRunner.query(
        'ALTER TABLE "webhook_handler_runs" DROP CONSTRAINT "webhook_handler_runs_event_id_fkey"',
      );
      // NOTE: the unique index on (event, handler) becomes the primary key as it is: no copy.
      await queryRunner.query(
        'ALTER TABLE "webhook_handler_runs" DROP CONSTRAINT "webhook_handler_runs_pkey"',
      );
      await queryRunner.query('ALTER TABLE "webhook_handler_runs" DROP COLUMN "id"');
      await queryRunner.query(
        'ALTER TABLE "webhook_handler_runs" ADD CONSTRAINT "webhook_handler_runs_pkey" ' +
          'PRIMARY KEY USING INDEX "uq_webhook_handler_runs_event_handler"',
      );
      return;
    }
    await queryRunner.query(`
      CREATE TABLE "webhook_handler_runs_keyed" (
        "event_id" varchar(36) NOT NULL,
        "handler_key" varchar(255) NOT NULL,
        "attempt" integer NOT NULL,
        "finished_at" datetime NOT NULL,
        "outcome" varchar(64),
        PRIMARY KEY ("event_id", "handler_key")
      ) WITHOUT ROWID`);
    await queryRunner.query(
      'INSERT INTO "webhook_handler_runs_keyed" ("event_id", "handler_key", "attempt", "finished_at", "outcome") ' +
        'SELECT "event_id", "handler_key", "attempt", "finished_at", "outcome" FROM "webhook_handler_runs"',
    );
    await queryRunner.query('DROP TABLE "webhook_handler_runs"');
    await queryRunner.query(
      'ALTER TABLE "webhook_handler_runs_keyed" RENAME TO "webhook_handler_runs"',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    const postgres = sqlDialectOf(queryRunner.connection).kind === 'postgres';
    const ts = postgres ? 'timestamptz' : 'datetime';
    if (postgres) {
      await queryRunner.query('ALTER TABLE "webhook_events" RESET (fillfactor)');
    }
    await queryRunner.query(`ALTER TABLE "webhook_events" ADD COLUMN "locked_by" varchar(128)`);
    await queryRunner.query(`ALTER TABLE "webhook_events" ADD COLUMN "locked_until" ${ts}`);
    // NOTE: the work rows' state goes back onto the events, a running one as running.
    const fromWork = (column: string) =>
      `"${column}" = (SELECT w."${column}" FROM "webhook_work" w WHERE w."event_id" = "webhook_events"."id")`;
    await queryRunner.query(
      `UPDATE "webhook_events" SET ${['status', 'attempts', 'next_attempt_at', 'locked_by', 'locked_until'].map(fromWork).join(', ')} ` +
        'WHERE "id" IN (SELECT "event_id" FROM "webhook_work")',
    );
    await queryRunner.query('DROP INDEX "ix_webhook_events_received"');
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_due" ON "webhook_events" ("next_attempt_at") WHERE "status" IN ('pending', 'retrying')`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_lease" ON "webhook_events" ("locked_until") WHERE "status" = 'processing'`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_events_status_received" ON "webhook_events" ("status", "received_at")`,
    );
    await queryRunner.query('DROP TABLE "webhook_work"');
    // NOTE: a ledger row's own id was never read; each gets a new unique one.
    const newId = postgres
      ? 'gen_random_uuid()::text'
      : "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))";
    await queryRunner.query(`
      CREATE TABLE "webhook_handler_runs_by_id" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "event_id" varchar(36) NOT NULL REFERENCES "webhook_events" ("id") ON DELETE CASCADE,
        "handler_key" varchar(255) NOT NULL,
        "attempt" integer NOT NULL,
        "finished_at" ${ts} NOT NULL,
        "outcome" varchar(64)
      )`);
    await queryRunner.query(
      'INSERT INTO "webhook_handler_runs_by_id" ("id", "event_id", "handler_key", "attempt", "finished_at", "outcome") ' +
        `SELECT ${newId}, "event_id", "handler_key", "attempt", "finished_at", "outcome" FROM "webhook_handler_runs"`,
    );
    await queryRunner.query('DROP TABLE "webhook_handler_runs"');
    await queryRunner.query(
      'ALTER TABLE "webhook_handler_runs_by_id" RENAME TO "webhook_handler_runs"',
    );
    if (postgres) {
      await queryRunner.query(
        'ALTER TABLE "webhook_handler_runs" RENAME CONSTRAINT "webhook_handler_runs_by_id_pkey" TO "webhook_handler_runs_pkey"',
      );
      await queryRunner.query(
        'ALTER TABLE "webhook_handler_runs" RENAME CONSTRAINT "webhook_handler_runs_by_id_event_id_fkey" TO "webhook_handler_runs_event_id_fkey"',
      );
    }
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_webhook_handler_runs_event_handler" ON "webhook_handler_runs" ("event_id", "handler_key")`,
    );
  }
}
