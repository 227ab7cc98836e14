import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Lets the copies of one event be a single event: `webhook_events` gets `same_event`, a key
 * every copy of an underlying event shares (Stripe sends a v1 resource's event twice, as a
 * snapshot event and as an event notification naming it, to two destinations), unique within
 * a tenant where it is set. Only the events of endpoints paired for it (Stripe's
 * `snapshotEndpoint`) get one, as they are stored; a copy arriving after the first counts as a
 * delivery of the first's row.
 *
 * No stored row changes: which endpoints are paired is configuration, not data, so the events
 * stored before stay without a key, and the column and the index are all that is added. The
 * same SQL on PostgreSQL and SQLite.
 */
export class AddEventCopies1765100000000 implements MigrationInterface {
  readonly name = 'AddEventCopies1765100000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // NOTE: no default: neither database rewrites the table to add a nullable column.
    await queryRunner.query('ALTER TABLE "webhook_events" ADD COLUMN "same_event" varchar(255)');
    // NOTE: partial, and every row null: building it reads the table once and writes nothing.
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_webhook_events_tenant_same_event" ' +
        'ON "webhook_events" ("tenant", "same_event") WHERE "same_event" IS NOT NULL',
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // NOTE: SQLite drops no indexed column, so the index goes first.
    await queryRunner.query('DROP INDEX "uq_webhook_events_tenant_same_event"');
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "same_event"');
  }
}
