import { MigrationInterface, QueryRunner } from 'typeorm';
import { sqlDialectOf } from '../sql-dialect';

/**
 * Adds `webhook_transmissions`: for providers that sign a transmission rather than the body
 * itself (PayPal), the SHA-256 of the body each signed transmission came with, so a second,
 * different body under a transmission id already seen is refused. One migration for both
 * supported databases, as `CreateWebhooksTables`: PostgreSQL gets `timestamptz`, SQLite
 * `datetime`. It only adds a table; existing rows are not touched.
 */
export class AddWebhookTransmissions1764600000000 implements MigrationInterface {
  readonly name = 'AddWebhookTransmissions1764600000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts =
      sqlDialectOf(queryRunner.connection).kind === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`
      CREATE TABLE "webhook_transmissions" (
        "endpoint" varchar(64) NOT NULL,
        "transmission_id" varchar(255) NOT NULL,
        "body_digest" varchar(64) NOT NULL,
        "received_at" ${ts} NOT NULL,
        PRIMARY KEY ("endpoint", "transmission_id")
      )`);
    // NOTE: pruning deletes by endpoint and age; the primary key leads with the endpoint.
    await queryRunner.query(
      `CREATE INDEX "ix_webhook_transmissions_received" ON "webhook_transmissions" ("endpoint", "received_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "webhook_transmissions"`);
  }
}
