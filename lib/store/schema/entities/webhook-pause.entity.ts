import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * A pause of dispatch: events of `endpoint` (every endpoint: `*`) are still verified, stored and
 * answered, but `handler_key` (every handler: `*`) does not run on them until the pause is
 * lifted. Shared by every instance and worker that reads the inbox.
 */
// NOTE: the migrations own this table (timestamptz, the primary key); `synchronize` would rewrite it.
@Entity({ name: 'webhook_pauses', synchronize: false })
export class WebhookPauseEntity {
  /** Endpoint name, or `*` for every endpoint. */
  @PrimaryColumn({ type: 'varchar', length: 64 })
  endpoint!: string;

  /** Handler key (`ClassName.methodName`), or `*` for every handler. */
  @PrimaryColumn({ name: 'handler_key', type: 'varchar', length: 255 })
  handlerKey!: string;

  /** When the pause began. */
  @Column({ name: 'paused_at', type: Date })
  pausedAt!: Date;

  /** Who paused: the admin caller, the CLI's user, or `circuit-breaker`. */
  @Column({ name: 'paused_by', type: 'varchar', length: 128, nullable: true })
  pausedBy!: string | null;

  /** Why, as the operator said it. */
  @Column({ type: 'varchar', length: 500, nullable: true })
  reason!: string | null;
}
