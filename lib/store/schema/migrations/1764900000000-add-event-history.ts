import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlDialectOf } from '../sql-dialect';

/** How a migrated event's failure is fingerprinted: failures recorded before history was kept. */
export const BEFORE_HISTORY_FINGERPRINT = 'before-history';

/**
 * Adds what operators read and change beyond the inbox itself. `webhook_history` keeps each
 * failed attempt of an event (its handler, times, error, fingerprint and worker), each replay
 * and each settlement by hand; `webhook_pauses` holds the pauses of dispatch, by endpoint and
 * handler, that every instance reads; `webhook_replays` holds the replays that run in the
 * background, with their progress and where each stands, so any instance can carry one on.
 *
 * Every dead or retrying event keeps its failure: it gets one history row with its last error,
 * its attempt count and status, fingerprinted `before-history` (the error's cause was not
 * recorded apart from its text), so failure groups and the event's timeline show it. An event
 * settled by hand gets a `settle` row with its reason instead. Its id sorts before any id the
 * package makes, so a later replay orders after it. No other row changes.
 */
export class AddEventHistory1764900000000 implements MigrationInterface {
  readonly name = 'AddEventHistory1764900000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const postgres = sqlDialectOf(queryRunner.connection).kind === 'postgres';
    const ts = postgres ? 'timestamptz' : 'datetime';
    await queryRunner.query(`
      CREATE TABLE "webhook_history" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "event_id" varchar(36) NOT NULL,
        "kind" varchar(16) NOT NULL CHECK ("kind" IN ('attempt', 'replay', 'settle')),
        "at" ${ts} NOT NULL,
        "finished_at" ${ts},
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
    // NOTE: an event's history is read, and deleted, by its event; the id orders it.
    await queryRunner.query(
      'CREATE INDEX "ix_webhook_history_event" ON "webhook_history" ("event_id", "id")',
    );
    await queryRunner.query(`
      CREATE TABLE "webhook_pauses" (
        "endpoint" varchar(64) NOT NULL,
        "handler_key" varchar(255) NOT NULL,
        "paused_at" ${ts} NOT NULL,
        "paused_by" varchar(128),
        "reason" varchar(500),
        PRIMARY KEY ("endpoint", "handler_key")
      )`);
    await queryRunner.query(`
      CREATE TABLE "webhook_replays" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "filter" text NOT NULL,
        "status" varchar(16) NOT NULL CHECK ("status" IN ('running', 'done', 'canceled')),
        "total" integer NOT NULL,
        "replayed" integer NOT NULL DEFAULT 0,
        "rate_per_second" integer,
        "actor" varchar(128),
        "created_at" ${ts} NOT NULL,
        "updated_at" ${ts} NOT NULL,
        "finished_at" ${ts},
        "cursor_at" ${ts},
        "cursor_id" varchar(36),
        "locked_by" varchar(128),
        "locked_until" ${ts},
        "error" text
      )`);
    // NOTE: '0000' in place of the id's first four characters (the top of its time, or of a
    // random id) sorts before every id made from now on, and keeps ids unique.
    const failed = (
      kind: string,
      outcome: string,
      error: string,
      fingerprint: string,
      detail: string,
    ) =>
      'INSERT INTO "webhook_history" ("id", "event_id", "kind", "at", "attempt", "outcome", "error", "fingerprint", "detail") ' +
      `SELECT '0000' || substr(e."id", 5), e."id", '${kind}', e."received_at", w."attempts", ${outcome}, ${error}, ${fingerprint}, ${detail} ` +
      'FROM "webhook_work" w INNER JOIN "webhook_events" e ON e."id" = w."event_id" ' +
      `WHERE w."status" IN ('dead', 'retrying') AND e."last_error" IS NOT NULL `;
    const byHand = `e."last_error" LIKE 'Settled by hand: %'`;
    await queryRunner.query(
      failed('attempt', 'w."status"', 'e."last_error"', `'${BEFORE_HISTORY_FINGERPRINT}'`, 'NULL') +
        `AND NOT (${byHand})`,
    );
    await queryRunner.query(
      failed('settle', `'dead'`, 'NULL', 'NULL', `substr(e."last_error", 18)`) + `AND ${byHand}`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // NOTE: events keep their status and last error on their own rows; what goes is the
    // history behind them, the pauses (dispatch runs every event again) and the replays in the
    // background (the events they put back stay put back).
    await queryRunner.query('DROP TABLE "webhook_replays"');
    await queryRunner.query('DROP TABLE "webhook_pauses"');
    await queryRunner.query('DROP INDEX "ix_webhook_history_event"');
    await queryRunner.query('DROP TABLE "webhook_history"');
  }
}
