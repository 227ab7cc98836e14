import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { EventHistoryKind } from '../../ports/event-history';

/**
 * What happened to an event after it was stored, beyond its successful handler runs (those are
 * the ledger's rows): each failed attempt of a handler (or of the event as a whole, when it
 * failed before its handlers ran), each replay and each settlement by hand. Written with the
 * settlement or the operator's change it records, in the same transaction; deleted with the
 * event.
 */
// NOTE: the migrations own this table (timestamptz, the index, the check); `synchronize` would rewrite it.
@Entity({ name: 'webhook_history', synchronize: false })
export class WebhookHistoryEntity {
  /** Time-ordered id: the rows of an event sort in the order they were written. */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** Inbox id of the event. */
  @Column({ name: 'event_id', type: 'varchar', length: 36 })
  eventId!: string;

  /** `attempt` (a failed attempt), `replay` or `settle` (by hand). */
  @Column({ type: 'varchar', length: 16 })
  kind!: EventHistoryKind;

  /** When the attempt started, or when the operator's change was made. */
  @Column({ type: Date })
  at!: Date;

  /** When the attempt ended. */
  @Column({ name: 'finished_at', type: Date, nullable: true })
  finishedAt!: Date | null;

  /** The attempt's number (from 1). */
  @Column({ type: 'integer', nullable: true })
  attempt!: number | null;

  /** The handler that failed; null when the event failed before its handlers ran. */
  @Column({ name: 'handler_key', type: 'varchar', length: 255, nullable: true })
  handlerKey!: string | null;

  /**
   * An attempt: what it left the event as (`retrying` or `dead`). A replay: the status it put
   * the event back from. A settlement by hand: the status it set (`dead` or `ignored`).
   */
  @Column({ type: 'varchar', length: 16 })
  outcome!: string;

  /** The error's class name (`TypeError`, `ProviderStatusError`). */
  @Column({ name: 'error_class', type: 'varchar', length: 128, nullable: true })
  errorClass!: string | null;

  /** The error's message and first frames, paths relative to the app. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /**
   * What failures of one cause share: a digest of the error's class, its message with ids and
   * numbers masked, and its first frame in the app's own code.
   */
  @Column({ type: 'varchar', length: 64, nullable: true })
  fingerprint!: string | null;

  /** The worker that ran the attempt. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  worker!: string | null;

  /** Who made an operator's change: the admin caller, or the CLI's user. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  actor!: string | null;

  /** A replay's filter (JSON), or a settlement's reason. */
  @Column({ type: 'text', nullable: true })
  detail!: string | null;
}
