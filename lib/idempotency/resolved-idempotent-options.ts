/** `@Idempotent()` options with defaults filled in, as stored in metadata. */
export interface ResolvedIdempotentOptions {
  readonly required: boolean;
  readonly ttlMs: number;
  readonly scope: string;
  readonly leaseMs: number;
  readonly principal?: (request: unknown) => string | undefined;
}
