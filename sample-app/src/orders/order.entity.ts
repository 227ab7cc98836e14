import { Column, Entity, PrimaryColumn } from 'typeorm';

export type OrderState = 'pending' | 'paid' | 'canceled' | 'refunded';

/**
 * The largest order amount, in minor units: 2^31 - 1, the most the `integer` column `amount`
 * holds on PostgreSQL (SQLite's holds more; the shop takes the same orders on both).
 */
export const MAX_ORDER_AMOUNT = 2_147_483_647;

@Entity({ name: 'orders' })
export class Order {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Amount in minor units. */
  @Column({ type: 'integer' })
  amount!: number;

  @Column({ type: 'varchar', length: 3 })
  currency!: string;

  @Column({ type: 'varchar', length: 16 })
  state!: OrderState;

  @Column({ name: 'paid_at', type: Date, nullable: true })
  paidAt!: Date | null;

  /** How many times the paid-order action ran. Must never exceed 1. */
  @Column({ type: 'integer', default: 0 })
  fulfilments!: number;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  /** The provider's refund id, once refunded. */
  @Column({ name: 'refund_id', type: 'varchar', length: 64, nullable: true })
  refundId!: string | null;

  /** Amount given back, in minor units. */
  @Column({ name: 'refunded_amount', type: 'integer', nullable: true })
  refundedAmount!: number | null;

  @Column({ name: 'refunded_at', type: Date, nullable: true })
  refundedAt!: Date | null;

  /** The endpoint of the provider the order is paid through, once a payment was created there. */
  @Column({ name: 'payment_endpoint', type: 'varchar', length: 64, nullable: true })
  paymentEndpoint!: string | null;

  /** The provider's payment id, once a payment was created there; reconciliation asks about it. */
  @Column({ name: 'payment_ref', type: 'varchar', length: 255, nullable: true })
  paymentRef!: string | null;

  /**
   * The merchant whose Stripe endpoint (`/webhooks/merchants/{slug}`) delivered the payment that
   * paid the order; null when it was paid through one of the shop's own endpoints.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  merchant!: string | null;
}
