import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * Where a job in the background stands: a replay under way is `running`, a recovery or backfill
 * `active` (a status 1.0 never takes for a replay); `failed` when it cannot run at all (its
 * endpoint cannot be read).
 */
export type ReplayJobStatus = 'running' | 'active' | 'done' | 'canceled' | 'failed';

/** What a job in the background does: put events back, recover them from the provider's log, or run one handler over them. */
export type BackgroundJobKind = 'replay' | 'recover' | 'backfill';

/**
 * A replay in the background: the events its filter matched when it started are put back in
 * batches, oldest first, at most `rate_per_second` a second. Each batch moves its cursor in the
 * same transaction, so a replay carried on by another instance (its lease ran out) or after a
 * restart puts back no event twice.
 */
// NOTE: the migrations own this table (timestamptz, the check); `synchronize` would rewrite it.
@Entity({ name: 'webhook_replays', synchronize: false })
export class WebhookReplayEntity {
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** The events' filter, as JSON (dates as ISO text). */
  @Column({ type: 'text' })
  filter!: string;

  @Column({ type: 'varchar', length: 16 })
  status!: ReplayJobStatus;

  @Column({ type: 'varchar', length: 16, default: 'replay' })
  kind!: BackgroundJobKind;

  /** Where a recovery stands in the provider's event log, in the provider's own words. */
  @Column({ name: 'page_cursor', type: 'text', nullable: true })
  pageCursor!: string | null;

  /** The endpoint and tenant a recovery reads; null for a replay. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  endpoint!: string | null;

  @Column({ type: 'varchar', length: 64, nullable: true })
  tenant!: string | null;

  /** The handler a backfill runs (its ledger key); null for the other kinds. */
  @Column({ type: 'varchar', length: 255, nullable: true })
  handler!: string | null;

  /** A backfill's runs of its handler that ended well, and those that threw. */
  @Column({ type: 'integer', default: 0 })
  ran!: number;

  @Column({ type: 'integer', default: 0 })
  failed!: number;

  /** How many events matched when it started. */
  @Column({ type: 'integer' })
  total!: number;

  /** How many it has put back so far. */
  @Column({ type: 'integer', default: 0 })
  replayed!: number;

  /** Most events put back a second; null for no limit. */
  @Column({ name: 'rate_per_second', type: 'integer', nullable: true })
  ratePerSecond!: number | null;

  /** Who started it. */
  @Column({ type: 'varchar', length: 128, nullable: true })
  actor!: string | null;

  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  /** When its last batch ran (or it was canceled). */
  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;

  @Column({ name: 'finished_at', type: Date, nullable: true })
  finishedAt!: Date | null;

  /** The receipt time and id of the last event it put back: the next batch starts after it. */
  @Column({ name: 'cursor_at', type: Date, nullable: true })
  cursorAt!: Date | null;

  @Column({ name: 'cursor_id', type: 'varchar', length: 36, nullable: true })
  cursorId!: string | null;

  /** The instance running it, and until when. */
  @Column({ name: 'locked_by', type: 'varchar', length: 128, nullable: true })
  lockedBy!: string | null;

  @Column({ name: 'locked_until', type: Date, nullable: true })
  lockedUntil!: Date | null;

  /** Why its last batch failed (it is tried again). */
  @Column({ type: 'text', nullable: true })
  error!: string | null;
}
