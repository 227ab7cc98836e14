import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Adds what an event's handling concluded: the outcome handlers reported (`applied`, `stale`,
 * `not_allowed`, …) on the event and on each ledger row, and the status the provider's API
 * returned when the endpoint verifies with the provider.
 */
export class AddEventOutcomes1764500000000 implements MigrationInterface {
  readonly name = 'AddEventOutcomes1764500000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_events" ADD COLUMN "outcome" varchar(255)');
    await queryRunner.query(
      'ALTER TABLE "webhook_events" ADD COLUMN "provider_status" varchar(64)',
    );
    await queryRunner.query('ALTER TABLE "webhook_handler_runs" ADD COLUMN "outcome" varchar(64)');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query('ALTER TABLE "webhook_handler_runs" DROP COLUMN "outcome"');
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "provider_status"');
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "outcome"');
  }
}
