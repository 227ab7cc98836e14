import { MigrationInterface, QueryRunner } from 'typeorm';

export class CreateOrdersTable1764400001000 implements MigrationInterface {
  readonly name = 'CreateOrdersTable1764400001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts = queryRunner.connection.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`
      CREATE TABLE "orders" (
        "id" varchar(36) NOT NULL PRIMARY KEY,
        "amount" integer NOT NULL CHECK ("amount" > 0),
        "currency" varchar(3) NOT NULL,
        "state" varchar(16) NOT NULL,
        "paid_at" ${ts},
        "fulfilments" integer NOT NULL DEFAULT 0,
        "created_at" ${ts} NOT NULL
      )`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP TABLE "orders"`);
  }
}
