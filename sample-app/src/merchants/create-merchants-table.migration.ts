import { MigrationInterface, QueryRunner } from 'typeorm';

/** The marketplace's merchants, each with the secrets of its own Stripe webhook endpoint. */
export class CreateMerchantsTable1764900001000 implements MigrationInterface {
  readonly name = 'CreateMerchantsTable1764900001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts = queryRunner.connection.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`
      CREATE TABLE "merchants" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "slug" varchar(64) NOT NULL,
        "name" varchar(200) NOT NULL,
        "stripe_webhook_secrets" text NOT NULL,
        "created_at" ${ts} NOT NULL,
        CONSTRAINT "uq_merchants_slug" UNIQUE ("slug")
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "merchants"`);
  }
}
