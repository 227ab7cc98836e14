import { MigrationInterface, QueryRunner } from 'typeorm';
import { TENANTS_SHARE_EVENT_IDS } from '../schema.messages';

/** (endpoint, event_id) pairs held by more than one event: the old key cannot hold them. */
const SHARED_EVENT_IDS =
  'SELECT COUNT(*) AS n FROM (SELECT 1 FROM "webhook_events" ' +
  'GROUP BY "endpoint", "event_id" HAVING COUNT(*) > 1) AS shared';

/**
 * Makes the tenant part of an event's identity: `webhook_events` gets `tenant` (the empty string
 * for an endpoint without tenants), and the dedup key becomes UNIQUE(endpoint, tenant, event_id),
 * so one provider event id can be stored once for each tenant of an endpoint. The same SQL on
 * PostgreSQL and SQLite.
 *
 * No row moves: every event keeps its row, status, attempts, work row and ledger rows, and reads
 * `tenant = ''`; a re-delivery of an event stored before is still a duplicate of it. The new
 * unique index is built from the table, and the old one is dropped.
 */
export class AddEventTenants1764800000000 implements MigrationInterface {
  readonly name = 'AddEventTenants1764800000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    // NOTE: a constant default: PostgreSQL (11 and later) writes it into the catalog and every
    // existing row reads it from there, and SQLite into the table's definition; neither
    // rewrites the table.
    await queryRunner.query(
      `ALTER TABLE "webhook_events" ADD COLUMN "tenant" varchar(64) NOT NULL DEFAULT ''`,
    );
    // NOTE: the new key first, the old one after: the table always has a unique key, and the
    // new index is built while the old one still refuses a second row for an event.
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_webhook_events_endpoint_tenant_event" ' +
        'ON "webhook_events" ("endpoint", "tenant", "event_id")',
    );
    await queryRunner.query('DROP INDEX "uq_webhook_events_endpoint_event"');
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    // NOTE: checked before anything changes, so a refusal leaves the tables as they are; the
    // unique index would refuse the same rows, with a message that names none of the fix.
    const [shared] = (await queryRunner.query(SHARED_EVENT_IDS)) as { n: number | string }[];
    if (Number(shared.n) > 0) {
      throw new Error(TENANTS_SHARE_EVENT_IDS(Number(shared.n)));
    }
    await queryRunner.query(
      'CREATE UNIQUE INDEX "uq_webhook_events_endpoint_event" ' +
        'ON "webhook_events" ("endpoint", "event_id")',
    );
    await queryRunner.query('DROP INDEX "uq_webhook_events_endpoint_tenant_event"');
    // NOTE: the tenant of each event goes with the column; SQLite drops no indexed column, so
    // the index on it goes first.
    await queryRunner.query('ALTER TABLE "webhook_events" DROP COLUMN "tenant"');
  }
}
