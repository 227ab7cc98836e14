import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlDialectOf } from '../../store/schema/sql-dialect';

/**
 * Creates the tables behind `@Idempotent` (`idempotency_keys`: incoming requests and their
 * stored responses) and `IdempotentCall` (`idempotent_calls`: outgoing calls and their
 * results). PostgreSQL gets `timestamptz` columns, SQLite TypeORM's `datetime` text format.
 */
export class CreateIdempotencyTables1764560000000 implements MigrationInterface {
  readonly name = 'CreateIdempotencyTables1764560000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts =
      sqlDialectOf(queryRunner.connection).kind === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`
      CREATE TABLE "idempotency_keys" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "scope" varchar(64) NOT NULL,
        "principal" varchar(255) NOT NULL DEFAULT '',
        "idempotency_key" varchar(255) NOT NULL,
        "fingerprint" varchar(64) NOT NULL,
        "state" varchar(16) NOT NULL CHECK ("state" IN ('in_progress', 'completed')),
        "lock_token" varchar(36),
        "locked_until" ${ts},
        "response_status" integer,
        "response_headers" text,
        "response_body" text,
        "response_encoding" varchar(8) CHECK ("response_encoding" IN ('utf8', 'base64')),
        "created_at" ${ts} NOT NULL,
        "expires_at" ${ts} NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_idempotency_keys_scope_principal_key" ON "idempotency_keys" ("scope", "principal", "idempotency_key")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_idempotency_keys_expires_at" ON "idempotency_keys" ("expires_at")`,
    );
    await queryRunner.query(`
      CREATE TABLE "idempotent_calls" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "scope" varchar(64) NOT NULL,
        "idempotency_key" varchar(255) NOT NULL,
        "state" varchar(16) NOT NULL CHECK ("state" IN ('in_progress', 'done', 'failed')),
        "attempts" integer NOT NULL DEFAULT 1,
        "result" text,
        "error" text,
        "lock_token" varchar(36),
        "locked_until" ${ts},
        "created_at" ${ts} NOT NULL,
        "updated_at" ${ts} NOT NULL,
        "expires_at" ${ts} NOT NULL
      )`);
    await queryRunner.query(
      `CREATE UNIQUE INDEX "uq_idempotent_calls_scope_key" ON "idempotent_calls" ("scope", "idempotency_key")`,
    );
    await queryRunner.query(
      `CREATE INDEX "ix_idempotent_calls_expires_at" ON "idempotent_calls" ("expires_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "idempotent_calls"`);
    await queryRunner.query(`DROP TABLE "idempotency_keys"`);
  }
}
