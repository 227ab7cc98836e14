import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlDialectOf } from '../sql-dialect';

/** What an event's history records, before and after this migration. */
const HISTORY_KINDS = {
  before: ['attempt', 'replay', 'settle'],
  after: ['attempt', 'replay', 'settle', 'recover', 'backfill'],
};

/**
 * Where a job in the background stands, before and after this migration. A recovery or backfill
 * under way is `active`, not `running`: an instance of 1.0, which takes every `running` row for a
 * replay, never takes one while the instances are upgraded one by one.
 */
const JOB_STATUSES = {
  before: ['running', 'done', 'canceled'],
  after: ['running', 'active', 'done', 'canceled', 'failed'],
};

const HISTORY_COLUMNS =
  '"id", "event_id", "kind", "at", "finished_at", "attempt", "handler_key", "outcome", ' +
  '"error_class", "error", "fingerprint", "worker", "actor", "detail"';

const JOB_COLUMNS =
  '"id", "filter", "status", "total", "replayed", "rate_per_second", "actor", "created_at", ' +
  '"updated_at", "finished_at", "cursor_at", "cursor_id", "locked_by", "locked_until", "error"';

/** The jobs of an endpoint, newest last: where its next scheduled recovery starts. */
const JOBS_BY_ENDPOINT =
  'CREATE INDEX "ix_webhook_replays_endpoint" ON "webhook_replays" ("kind", "endpoint", "created_at")';

/** A check that a column holds one of `values`. */
function oneOf(column: string, values: readonly string[]): string {
  return `CHECK ("${column}" IN (${values.map((value) => `'${value}'`).join(', ')}))`;
}

/**
 * Turns the replays in the background into jobs of three kinds, kept in the same table and run
 * under the same leases: `replay` (every job so far), `recover` (reads a provider's event log
 * over a window and stores the events whose deliveries never arrived) and `backfill` (runs one
 * handler over stored events). `webhook_replays` gains `kind` (every existing job is a
 * `replay`), `page_cursor` (where a recovery stands in the provider's log, in the provider's
 * own words), the `endpoint` and `tenant` a recovery reads (indexed, for where the next
 * scheduled one starts), the `handler` a backfill runs with its counts of runs that `ran` and
 * `failed`, and a job may now end `failed` (its endpoint cannot be read). A recovery or backfill
 * under way is `active`, a status 1.0 never takes, so a 1.0 instance still running during the
 * upgrade never runs one as a replay. An event's history
 * may now say it was recovered or backfilled.
 *
 * PostgreSQL changes the checks in place. SQLite cannot change a check, so it copies
 * `webhook_history` and `webhook_replays` into tables with the new checks, row for row, and
 * puts them in place of the old ones; every row keeps its id and values.
 */
export class AddRecoveryJobs1765000000000 implements MigrationInterface {
  readonly name = 'AddRecoveryJobs1765000000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await this.change(queryRunner, 'after');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // NOTE: the events recovered stay, as any stored event; what goes is what 1.0 cannot read:
    // the jobs other than replays and the history rows of recoveries and backfills.
    await queryRunner.query(`DELETE FROM "webhook_replays" WHERE "kind" <> 'replay'`);
    await queryRunner.query(
      `UPDATE "webhook_replays" SET "status" = 'canceled' WHERE "status" IN ('failed', 'active')`,
    );
    await queryRunner.query(
      `DELETE FROM "webhook_history" WHERE "kind" IN ('recover', 'backfill')`,
    );
    await this.change(queryRunner, 'before');
  }

  private async change(queryRunner: QueryRunner, to: 'before' | 'after'): Promise<void> {
    if (sqlDialectOf(queryRunner.connection).kind === 'postgres') {
      await replaceCheck(queryRunner, 'webhook_history', 'kind', HISTORY_KINDS[to]);
      await replaceCheck(queryRunner, 'webhook_replays', 'status', JOB_STATUSES[to]);
      if (to === 'after') {
        await queryRunner.query(
          `ALTER TABLE "webhook_replays" ADD COLUMN "kind" varchar(16) NOT NULL DEFAULT 'replay' ` +
            `CONSTRAINT "webhook_replays_kind_check" ${oneOf('kind', ['replay', 'recover', 'backfill'])}`,
        );
        await queryRunner.query('ALTER TABLE "webhook_replays" ADD COLUMN "page_cursor" text');
        await queryRunner.query('ALTER TABLE "webhook_replays" ADD COLUMN "endpoint" varchar(64)');
        await queryRunner.query('ALTER TABLE "webhook_replays" ADD COLUMN "tenant" varchar(64)');
        await queryRunner.query('ALTER TABLE "webhook_replays" ADD COLUMN "handler" varchar(255)');
        await queryRunner.query(
          'ALTER TABLE "webhook_replays" ADD COLUMN "ran" integer NOT NULL DEFAULT 0',
        );
        await queryRunner.query(
          'ALTER TABLE "webhook_replays" ADD COLUMN "failed" integer NOT NULL DEFAULT 0',
        );
        await queryRunner.query(JOBS_BY_ENDPOINT);
      } else {
        await queryRunner.query('DROP INDEX "ix_webhook_replays_endpoint"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "failed"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "ran"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "handler"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "tenant"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "endpoint"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "page_cursor"');
        await queryRunner.query('ALTER TABLE "webhook_replays" DROP COLUMN "kind"');
      }
      return;
    }
    await rebuildSqliteHistory(queryRunner, HISTORY_KINDS[to]);
    await rebuildSqliteJobs(queryRunner, to);
  }
}

/** Replaces a column's check on PostgreSQL, whatever name the server gave it. */
async function replaceCheck(
  queryRunner: QueryRunner,
  table: string,
  column: string,
  values: readonly string[],
): Promise<void> {
  const checks: { name: string }[] = await queryRunner.query(
    `SELECT conname AS name FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'c' ` +
      `AND pg_get_constraintdef(oid) LIKE $2`,
    [`"${table}"`, `%(${column})::%`],
  );
  for (const { name } of checks) {
    await queryRunner.query(`ALTER TABLE "${table}" DROP CONSTRAINT "${name}"`);
  }
  await queryRunner.query(
    `ALTER TABLE "${table}" ADD CONSTRAINT "${table}_${column}_check" ${oneOf(column, values)}`,
  );
}

/** Copies SQLite's `webhook_history` into a table whose kind check takes `kinds`. */
async function rebuildSqliteHistory(
  queryRunner: QueryRunner,
  kinds: readonly string[],
): Promise<void> {
  await queryRunner.query(`
    CREATE TABLE "webhook_history_next" (
      "id" varchar(36) NOT NULL PRIMARY KEY,
      "event_id" varchar(36) NOT NULL,
      "kind" varchar(16) NOT NULL ${oneOf('kind', kinds)},
      "at" datetime NOT NULL,
      "finished_at" datetime,
      "attempt" integer,
      "handler_key" varchar(255),
      "outcome" varchar(16) NOT NULL,
      "error_class" varchar(128),
      "error" text,
      "fingerprint" varchar(64),
      "worker" varchar(128),
      "actor" varchar(128),
      "detail" text
    )`);
  await queryRunner.query(
    `INSERT INTO "webhook_history_next" (${HISTORY_COLUMNS}) ` +
      `SELECT ${HISTORY_COLUMNS} FROM "webhook_history"`,
  );
  await queryRunner.query('DROP TABLE "webhook_history"');
  await queryRunner.query('ALTER TABLE "webhook_history_next" RENAME TO "webhook_history"');
  await queryRunner.query(
    'CREATE INDEX "ix_webhook_history_event" ON "webhook_history" ("event_id", "id")',
  );
}

/** Copies SQLite's `webhook_replays` into a table of the jobs as they are `to` this migration. */
async function rebuildSqliteJobs(queryRunner: QueryRunner, to: 'before' | 'after'): Promise<void> {
  const jobColumns =
    to === 'after'
      ? `,
      "kind" varchar(16) NOT NULL DEFAULT 'replay' ${oneOf('kind', ['replay', 'recover', 'backfill'])},
      "page_cursor" text,
      "endpoint" varchar(64),
      "tenant" varchar(64),
      "handler" varchar(255),
      "ran" integer NOT NULL DEFAULT 0,
      "failed" integer NOT NULL DEFAULT 0`
      : '';
  await queryRunner.query(`
    CREATE TABLE "webhook_replays_next" (
      "id" varchar(36) NOT NULL PRIMARY KEY,
      "filter" text NOT NULL,
      "status" varchar(16) NOT NULL ${oneOf('status', JOB_STATUSES[to])},
      "total" integer NOT NULL,
      "replayed" integer NOT NULL DEFAULT 0,
      "rate_per_second" integer,
      "actor" varchar(128),
      "created_at" datetime NOT NULL,
      "updated_at" datetime NOT NULL,
      "finished_at" datetime,
      "cursor_at" datetime,
      "cursor_id" varchar(36),
      "locked_by" varchar(128),
      "locked_until" datetime,
      "error" text${jobColumns}
    )`);
  await queryRunner.query(
    `INSERT INTO "webhook_replays_next" (${JOB_COLUMNS}) SELECT ${JOB_COLUMNS} FROM "webhook_replays"`,
  );
  await queryRunner.query('DROP TABLE "webhook_replays"');
  await queryRunner.query('ALTER TABLE "webhook_replays_next" RENAME TO "webhook_replays"');
  if (to === 'after') {
    await queryRunner.query(JOBS_BY_ENDPOINT);
  }
}
