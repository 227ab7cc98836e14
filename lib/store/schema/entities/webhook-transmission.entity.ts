import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * One signed transmission seen on an endpoint whose provider signs a transmission rather than
 * the body itself (PayPal signs a transmission id, time and the body's CRC-32): the SHA-256 of
 * the body it came with. A later delivery under the same transmission id must carry the same
 * body; another one is refused. Kept only while a replay could still pass the time check.
 */
// NOTE: the migrations own this table (timestamptz, the primary key); `synchronize` would rewrite it.
@Entity({ name: 'webhook_transmissions', synchronize: false })
export class WebhookTransmissionEntity {
  /** Endpoint name the transmission arrived on. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  endpoint!: string;

  /** The provider's signed transmission id (its SHA-256 when longer than the column). */
  @PrimaryColumn({ name: 'transmission_id', type: 'varchar', length: 255 })
  transmissionId!: string;

  /** Hex SHA-256 of the body the transmission first came with. */
  @Column({ name: 'body_digest', type: 'varchar', length: 64 })
  bodyDigest!: string;

  /** When the transmission first arrived. */
  @Column({ name: 'received_at', type: Date })
  receivedAt!: Date;
}
