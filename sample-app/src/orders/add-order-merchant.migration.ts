import { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets an order record the merchant whose Stripe endpoint delivered its payment. */
export class AddOrderMerchant1764900002000 implements MigrationInterface {
  readonly name = 'AddOrderMerchant1764900002000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN "merchant" varchar(64)`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "merchant"`);
  }
}
