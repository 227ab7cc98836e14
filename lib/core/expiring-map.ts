/**
 * A map whose entries expire: each is kept for the time it was set with, and at most
 * `capacity` are kept at once. To make room, expired entries go first, then the entry set
 * longest ago. Time is read from `now()` on each call: no timer keeps a process alive.
 */
export class ExpiringMap<K, V> {
  private readonly entries = new Map<K, { readonly value: V; readonly expiresAt: number }>();

  /**
   * @param capacity the most entries kept, a whole number, 1 or more.
   * @param now the time in milliseconds.
   * @throws RangeError for a capacity that cannot work.
   */
  constructor(
    readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isSafeInteger(capacity) || capacity < 1) {
      throw new RangeError(
        `ExpiringMap: capacity must be a whole number, 1 or more (got ${capacity})`,
      );
    }
  }

  /** The value set for `key`, unless it has expired. */
  get(key: K): V | undefined {
    const entry = this.entries.get(key);
    if (entry === undefined) {
      return undefined;
    }
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(key);
      return undefined;
    }
    return entry.value;
  }

  /** Keeps `value` under `key` for `ttlMs` milliseconds, replacing what was there. */
  set(key: K, value: V, ttlMs: number): void {
    this.entries.delete(key);
    if (!(ttlMs > 0)) {
      return;
    }
    if (this.entries.size >= this.capacity) {
      this.makeRoom();
    }
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs });
  }

  /** How many entries are held, expired ones not yet dropped included. */
  get size(): number {
    return this.entries.size;
  }

  private makeRoom(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) {
      if (entry.expiresAt <= now) {
        this.entries.delete(key);
      }
    }
    // NOTE: a Map iterates in insertion order, and set() re-inserts: the first is the oldest.
    while (this.entries.size >= this.capacity) {
      this.entries.delete(this.entries.keys().next().value as K);
    }
  }
}
