import { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets an order record the provider's refund: its id, amount and time. */
export class AddOrderRefunds1764560001000 implements MigrationInterface {
  readonly name = 'AddOrderRefunds1764560001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const ts = queryRunner.connection.options.type === 'postgres' ? 'timestamptz' : 'datetime';
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN "refund_id" varchar(64)`);
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN "refunded_amount" integer`);
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN "refunded_at" ${ts}`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "refunded_at"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "refunded_amount"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "refund_id"`);
  }
}
