import { Column, Entity, PrimaryColumn } from 'typeorm';
import type { HandlerRunRecord } from '../../ports/inbox-event';

/**
 * The handler ledger: one row per event and handler that finished successfully, written in
 * the same transaction as the handler's own writes, so a handler's effect applies once. Keyed
 * by (event, handler): the key is the one index.
 */
// NOTE: the migrations own this table (timestamptz, indexes, checks); `synchronize` would rewrite it.
@Entity({ name: 'webhook_handler_runs', synchronize: false })
export class WebhookHandlerRunEntity implements HandlerRunRecord {
  /** Inbox id of the event. */
  @PrimaryColumn({ name: 'event_id', type: 'varchar', length: 36 })
  eventId!: string;

  /** Stable handler key: `ClassName.methodName`. */
  @PrimaryColumn({ name: 'handler_key', type: 'varchar', length: 255 })
  handlerKey!: string;

  /** The attempt on which the handler succeeded. */
  @Column({ type: 'integer' })
  attempt!: number;

  /** When the handler's transaction committed. */
  @Column({ name: 'finished_at', type: Date })
  finishedAt!: Date;

  /** The outcome the handler reported through `ctx.recordOutcome()`, if any. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  outcome!: string | null;
}
