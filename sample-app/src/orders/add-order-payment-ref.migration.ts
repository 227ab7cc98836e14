import { MigrationInterface, QueryRunner } from 'typeorm';

/** Lets an order record the payment created for it at a provider, for reconciliation. */
export class AddOrderPaymentRef1764600001000 implements MigrationInterface {
  readonly name = 'AddOrderPaymentRef1764600001000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN "payment_endpoint" varchar(64)`);
    await queryRunner.query(`ALTER TABLE "orders" ADD COLUMN "payment_ref" varchar(255)`);
    await queryRunner.query(
      `CREATE INDEX "ix_orders_awaiting_payment" ON "orders" ("state", "payment_endpoint", "created_at")`,
    );
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP INDEX "ix_orders_awaiting_payment"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "payment_ref"`);
    await queryRunner.query(`ALTER TABLE "orders" DROP COLUMN "payment_endpoint"`);
  }
}
