import { Column, Entity, Index, PrimaryColumn } from 'typeorm';
import type { InboxEvent } from '../../ports/inbox-event';
import { WebhookEventStatus } from '../../ports/webhook-event-status';

/** Reads PostgreSQL `bigint` (returned as a string by `pg`) and SQLite integers as numbers. */
const bigintAsNumber = {
  to: (value: number | null | undefined) => value,
  from: (value: string | number | null) => (value === null ? null : Number(value)),
};

/**
 * One stored delivery (the inbox). Unique per endpoint, tenant and provider event id: a
 * re-delivery finds this row instead of creating a second one. Written once as received and
 * once more per settlement; the claims and leases in between touch only its work row.
 */
// NOTE: the migrations own this table (timestamptz, indexes, checks); `synchronize` would rewrite it.
@Entity({ name: 'webhook_events', synchronize: false })
@Index('uq_webhook_events_endpoint_tenant_event', ['endpoint', 'tenant', 'eventId'], {
  unique: true,
})
@Index('uq_webhook_events_tenant_same_event', ['tenant', 'sameEvent'], {
  unique: true,
  where: '"same_event" IS NOT NULL',
})
export class WebhookEventEntity implements InboxEvent {
  /** Inbox id (UUID). */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Endpoint name the delivery arrived on. */
  @Column({ type: 'varchar', length: 64 })
  endpoint!: string;

  /**
   * The tenant of the endpoint the delivery arrived for, part of the dedup key: the same
   * provider event id is a distinct event for each tenant. `''` for an endpoint without tenants.
   */
  @Column({ type: 'varchar', length: 64, default: '' })
  tenant!: string;

  /** Provider kind (`stripe`, `qvard`, …). */
  @Column({ type: 'varchar', length: 32 })
  provider!: string;

  /** Dedup key (with the endpoint and tenant): provider event id or a derived key. */
  @Column({ name: 'event_id', type: 'varchar', length: 255 })
  eventId!: string;

  /** Normalized type, or `'<kind>:<native>'`. */
  @Column({ type: 'varchar', length: 255 })
  type!: string;

  /** The provider's own type. */
  @Column({ name: 'native_type', type: 'varchar', length: 255 })
  nativeType!: string;

  /** The provider's payment id. */
  @Column({ name: 'payment_ref', type: 'varchar', length: 255, nullable: true })
  paymentRef!: string | null;

  /** The application's order id, when the provider carries it. */
  @Column({ name: 'merchant_ref', type: 'varchar', length: 255, nullable: true })
  merchantRef!: string | null;

  /** Amount in minor units, when known. */
  @Column({ type: 'bigint', nullable: true, transformer: bigintAsNumber })
  amount!: number | null;

  /** ISO 4217 currency code, when known. */
  @Column({ type: 'varchar', length: 8, nullable: true })
  currency!: string | null;

  /** The provider's payment status, when it sends one. */
  @Column({ name: 'payment_status', type: 'varchar', length: 64, nullable: true })
  paymentStatus!: string | null;

  /** When the provider says the event happened. */
  @Column({ name: 'occurred_at', type: Date, nullable: true })
  occurredAt!: Date | null;

  /** When the first delivery was stored. */
  @Column({ name: 'received_at', type: Date })
  receivedAt!: Date;

  /**
   * The body exactly as received: its UTF-8 text, or `base64:` and the base64 of its bytes when
   * they are not UTF-8 text PostgreSQL can hold (NUL bytes, invalid UTF-8) or begin with `base64:`.
   */
  @Column({ name: 'raw_body', type: 'text' })
  rawBody!: string;

  /** SHA-256 of the raw body, to notice a re-delivery whose body differs. */
  @Column({ name: 'body_sha256', type: 'varchar', length: 64 })
  bodySha256!: string;

  /** Request headers without signatures, secrets or credentials. */
  @Column({ type: 'simple-json' })
  headers!: Record<string, string>;

  /**
   * Where the event stood after its last settlement (`pending` until the first). A running
   * event is `processing` on its work row (`WebhookWorkEntity`), which also holds the
   * live attempts, due time and lease while the event is still to run, running, retrying or
   * dead; a claimed event's entity carries its work row's status and attempts.
   */
  @Column({ type: 'varchar', length: 16 })
  status!: WebhookEventStatus;

  /** Processing attempts started, as of the last settlement (see `status`). */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** When the event is next due (pending or retrying), as of the last settlement. */
  @Column({ name: 'next_attempt_at', type: Date, nullable: true })
  nextAttemptAt!: Date | null;

  /** Last handler error. */
  @Column({ name: 'last_error', type: 'text', nullable: true })
  lastError!: string | null;

  /** When every handler had succeeded. */
  @Column({ name: 'processed_at', type: Date, nullable: true })
  processedAt!: Date | null;

  /** How many times the provider delivered this event. */
  @Column({ name: 'delivery_count', type: 'integer', default: 1 })
  deliveryCount!: number;

  /**
   * The key every copy of the underlying event shares within the tenant, at endpoints paired
   * for it (Stripe's `snapshotEndpoint`: the snapshot endpoint's name and the snapshot event's
   * id), unique among the tenant's events: a copy arriving later counts as a delivery of this
   * row. Null at every other endpoint, and for the events stored before the pairing.
   */
  @Column({ name: 'same_event', type: 'varchar', length: 255, nullable: true })
  sameEvent!: string | null;

  /**
   * What handling concluded, as handlers reported it (`applied`, `stale`, `not_allowed`, …),
   * or `provider_disagrees` when the provider's API contradicted the notification.
   */
  @Column({ type: 'varchar', length: 255, nullable: true })
  outcome!: string | null;

  /** The status the provider's API returned, when the endpoint verifies with the provider. */
  @Column({ name: 'provider_status', type: 'varchar', length: 64, nullable: true })
  providerStatus!: string | null;
}
