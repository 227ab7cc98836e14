/** A response as stored for replay: enough to send the same bytes again. */
export interface StoredResponse {
  /** HTTP status. */
  readonly status: number;
  /** Selected headers (`content-type`, `location`) by lower-cased name. */
  readonly headers: Readonly<Record<string, string>>;
  /** The body exactly as sent. */
  readonly body: Buffer;
}

/** An incoming request asking to take its `Idempotency-Key`. */
export interface KeyClaim {
  /** The route's namespace, `''` when none. */
  readonly scope: string;
  /** Who sent it, `''` when the route has no principal extractor. */
  readonly principal: string;
  /** The client's key. */
  readonly key: string;
  /** SHA-256 (hex) of the request's method, path and body. */
  readonly fingerprint: string;
  /** How long the completed response is kept, in ms. */
  readonly ttlMs: number;
  /** How long the key stays locked without renewal, in ms. */
  readonly leaseMs: number;
  /** The current time. */
  readonly now: Date;
}

/** What `claimKey()` found. */
export type KeyClaimResult =
  /** The key is this request's: run the handler, then `completeKey()` or `releaseKey()`. */
  | { readonly outcome: 'acquired'; readonly id: string; readonly token: string }
  /** An identical request was answered already: send its response again. */
  | { readonly outcome: 'completed'; readonly response: StoredResponse }
  /** An identical request holds the key right now. */
  | { readonly outcome: 'in_progress'; readonly lockedUntil: Date }
  /** The key belongs to a different request (method, path or body). */
  | { readonly outcome: 'mismatch' };

/** An outgoing call asking to take its key. */
export interface CallClaim {
  /** The kind of operation. */
  readonly scope: string;
  /** The idempotency key, also sent to the provider. */
  readonly key: string;
  /** How long the outcome is kept, in ms. */
  readonly ttlMs: number;
  /** How long the call stays locked without renewal, in ms. */
  readonly leaseMs: number;
  /** The current time. */
  readonly now: Date;
}

/** What `claimCall()` found. */
export type CallClaimResult =
  /** This attempt may call out: then `finishCall()` or `failCall()`. */
  | {
      readonly outcome: 'acquired';
      readonly id: string;
      readonly token: string;
      /** 1 for the first attempt, more when a failed or abandoned one is retried. */
      readonly attempt: number;
    }
  /** The call succeeded before: its result as stored (JSON text, `null` when it returned nothing). */
  | { readonly outcome: 'done'; readonly result: string | null }
  /** Another attempt holds the call right now. */
  | { readonly outcome: 'in_progress'; readonly lockedUntil: Date };

/** How many rows one `purgeExpired()` removed. */
export interface PurgedIdempotencyRecords {
  /** Expired incoming keys (with their stored responses). */
  readonly keys: number;
  /** Expired outgoing calls. */
  readonly calls: number;
}

/**
 * Idempotency keys of incoming requests (`@Idempotent`) and outgoing calls (`IdempotentCall`).
 * Every claim is one atomic statement on a unique index, never a read followed by a write;
 * a lease makes a key held by a crashed process available again. The TypeORM implementation
 * serves PostgreSQL and SQLite; another one can be provided under the same-name token.
 */
export interface IdempotencyStore {
  /** Takes a key for a request, or reports why it cannot (answered, running, or another request's). */
  claimKey(claim: KeyClaim): Promise<KeyClaimResult>;
  /** Pushes the lease of a held key to `lockedUntil`; false when the key is no longer held. */
  extendKeyLease(id: string, token: string, lockedUntil: Date): Promise<boolean>;
  /** Stores the response of a held key; false when the key is no longer held (nothing stored). */
  completeKey(id: string, token: string, response: StoredResponse): Promise<boolean>;
  /** Forgets a held key so the client can retry with it; false when it was no longer held. */
  releaseKey(id: string, token: string): Promise<boolean>;
  /** Takes an outgoing call, or returns its stored result, or reports that it is running. */
  claimCall(claim: CallClaim): Promise<CallClaimResult>;
  /** Pushes the lease of a held call to `lockedUntil`; false when the call is no longer held. */
  extendCallLease(id: string, token: string, lockedUntil: Date): Promise<boolean>;
  /** Marks a held call `done` with its result (JSON text or `null`); false when no longer held. */
  finishCall(id: string, token: string, result: string | null, now: Date): Promise<boolean>;
  /** Marks a held call `failed` with its error, so a later attempt may retry it. */
  failCall(id: string, token: string, error: string, now: Date): Promise<boolean>;
  /**
   * Deletes keys and calls that expired before `now`, `batchSize` rows per statement (each in
   * its own short transaction), until none are left. Rows whose lease is still running stay.
   */
  purgeExpired(now: Date, batchSize: number): Promise<PurgedIdempotencyRecords>;
}

/** Injection token for the {@link IdempotencyStore}. */
export const IdempotencyStore = Symbol('IdempotencyStore');
