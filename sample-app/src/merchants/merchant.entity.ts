import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A merchant of the marketplace, with a Stripe account of its own: its Stripe webhook endpoint
 * delivers to `POST /webhooks/merchants/{slug}`, signed with the secrets kept here.
 */
@Entity({ name: 'merchants' })
export class Merchant {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Its name in its webhook URL; unique, and compared as written (`Acme` is not `acme`). */
  @Column({ type: 'varchar', length: 64 })
  slug!: string;

  @Column({ type: 'varchar', length: 200 })
  name!: string;

  /**
   * The signing secrets (`whsec_…`) of its Stripe webhook endpoint: one, or the new and the old
   * while it rolls its secret. Stored as JSON text, which SQLite and PostgreSQL both hold.
   */
  @Column({ name: 'stripe_webhook_secrets', type: 'simple-json' })
  stripeWebhookSecrets!: string[];

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;
}
