import { Column, Entity, PrimaryColumn } from 'typeorm';
import { WebhookWorkStatus } from '../../ports/webhook-event-status';

/**
 * The work row of an event still to run, running, retrying or dead: what claims, lease
 * renewals, retries and the dead-letter state change, kept apart from the event as received
 * (`webhook_events`) so that those updates write a narrow row. A processed or ignored event
 * has none. Its status, when it has one, is the event's.
 */
// NOTE: the migrations own this table (timestamptz, partial indexes, checks); `synchronize` would rewrite it.
@Entity({ name: 'webhook_work', synchronize: false })
export class WebhookWorkEntity {
  /** Inbox id of the event. */
  @PrimaryColumn({ name: 'event_id', type: 'varchar', length: 36 })
  eventId!: string;

  /** Where the event stands: `pending`, `processing`, `retrying` or `dead`. */
  @Column({ type: 'varchar', length: 16 })
  status!: WebhookWorkStatus;

  /** Processing attempts started so far. */
  @Column({ type: 'integer', default: 0 })
  attempts!: number;

  /** When the event is next due (pending or retrying). */
  @Column({ name: 'next_attempt_at', type: Date, nullable: true })
  nextAttemptAt!: Date | null;

  /** Worker holding the lease. */
  @Column({ name: 'locked_by', type: 'varchar', length: 128, nullable: true })
  lockedBy!: string | null;

  /** When the lease ends; an expired lease is reclaimed by any worker. */
  @Column({ name: 'locked_until', type: Date, nullable: true })
  lockedUntil!: Date | null;
}
