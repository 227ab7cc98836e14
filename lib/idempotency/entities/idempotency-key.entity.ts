import { Column, Entity, Index, PrimaryColumn } from 'typeorm';

/** Where an incoming request's key stands. */
export type IdempotencyKeyState = 'in_progress' | 'completed';

/** How a stored response body is encoded in its text column. */
export type StoredBodyEncoding = 'utf8' | 'base64';

/**
 * One `Idempotency-Key` sent to an `@Idempotent` route: unique per scope, principal and key.
 * While the first request runs it is `in_progress` under a lease; once answered it holds the
 * response (status, selected headers, exact body bytes) replayed to every retry until it
 * expires.
 */
// NOTE: the migrations own this table (timestamptz, indexes, checks); `synchronize` would rewrite it.
@Entity({ name: 'idempotency_keys', synchronize: false })
@Index('uq_idempotency_keys_scope_principal_key', ['scope', 'principal', 'key'], { unique: true })
@Index('ix_idempotency_keys_expires_at', ['expiresAt'])
export class IdempotencyKeyEntity {
  /** Row id (UUID). */
  @PrimaryColumn({ type: 'varchar', length: 36 })
  id!: string;

  /** The route's namespace (`@Idempotent({ scope })`), `''` when none. */
  @Column({ type: 'varchar', length: 64 })
  scope!: string;

  /** Who sent it, from the route's principal extractor; `''` when none. */
  @Column({ type: 'varchar', length: 255, default: '' })
  principal!: string;

  /** The client's `Idempotency-Key`. */
  @Column({ name: 'idempotency_key', type: 'varchar', length: 255 })
  key!: string;

  /** SHA-256 (hex) of the method, path and body of the first request. */
  @Column({ type: 'varchar', length: 64 })
  fingerprint!: string;

  /** `in_progress` while the first request runs, `completed` once its response is stored. */
  @Column({ type: 'varchar', length: 16 })
  state!: IdempotencyKeyState;

  /** Identifies the request holding the lease. */
  @Column({ name: 'lock_token', type: 'varchar', length: 36, nullable: true })
  lockToken!: string | null;

  /** When the lease of an in-progress key ends; another request may then take the key over. */
  @Column({ name: 'locked_until', type: Date, nullable: true })
  lockedUntil!: Date | null;

  /** HTTP status of the stored response. */
  @Column({ name: 'response_status', type: 'integer', nullable: true })
  responseStatus!: number | null;

  /** Stored response headers (`content-type`, `location`) by lower-cased name. */
  @Column({ name: 'response_headers', type: 'simple-json', nullable: true })
  responseHeaders!: Record<string, string> | null;

  /** The response body exactly as sent, as text in `responseEncoding`. */
  @Column({ name: 'response_body', type: 'text', nullable: true })
  responseBody!: string | null;

  /** `utf8` when the body is the text itself, `base64` for bytes that are not UTF-8. */
  @Column({ name: 'response_encoding', type: 'varchar', length: 8, nullable: true })
  responseEncoding!: StoredBodyEncoding | null;

  /** When the first request took the key. */
  @Column({ name: 'created_at', type: Date })
  createdAt!: Date;

  /** After this the key is forgotten: a request with it is new, and the retention job purges it. */
  @Column({ name: 'expires_at', type: Date })
  expiresAt!: Date;
}
