import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Where an outgoing call stands. */
export type IdempotentCallState = 'in_progress' | 'done' | 'failed';

/**
 * One outgoing call made through `IdempotentCall.run()` (a charge, a refund at the provider),
 * unique per scope and key: `done` holds its result, `failed` its last error and may be
 * retried, `in_progress` is held by one attempt under a lease.
 */
// NOTE: the migrations own this table (timestamptz, indexes, checks); `synchronize` would rewrite it.
@Entity({ name: 'idempotent_calls', synchronize: false })
@Index('uq_idempotent_calls_scope_key', ['scope', 'key'], { unique: true })
@Index('ix_idempotent_calls_expires_at', ['expiresAt'])
export class IdempotentCallEntity {
  /** Row id (UUID). */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** The kind of operation (`refund`, `pay`): the key's prefix unless given. */
  @Column({ type: 'varchar', length: 64 })
  scope!: string;

  /** The idempotency key, also sent to the provider. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255 })
  key!: string;

  /** `in_progress`, `done` or `failed`. */
  @Column({ type: 'varchar', length: 16 })
  state!: IdempotentCallState;

  /** Attempts started so far. */
  @Column({ type: 'integer', default: 1 })
  attempts!: number;

  /** The result of a `done` call as JSON; `null` when it returned nothing. */
  @Column({ type: 'text', nullable: true })
  result!: string | null;

  /** The last error of a `failed` call. */
  @Column({ type: 'text', nullable: true })
  error!: string | null;

  /** Identifies the attempt holding the lease. */
  @Column({ name: 'lock_token', type: 'varchar', length: 36, nullable: true })
  lockToken!: string | null;

  /** When the lease of an in-progress call ends; another attempt may then take it over. */
  @Column({ name: 'locked_until', type: Date, nullable: true })
  lockedUntil!: Date | null;

  /** When the first attempt started. */
  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  /** When the call last changed state. */
  @Column({ name: 'updated_at', type: Date })
  updatedAt!: Date;

  /** After this the call is forgotten and the retention job purges it. */
  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;
}
