/**
 * A rate with a burst: `capacity` tokens, refilled at `ratePerSecond`, one taken per unit of
 * work. Over any window of `T` seconds at most `capacity + ratePerSecond × T` units pass, so a
 * bucket of capacity 1 holds its rate over every window (give or take the unit at the edge).
 * Time is read from `now()` on each call: no timer keeps a process alive.
 */
export class TokenBucket {
  private tokens: number;
  private updatedAt: number;

  /**
   * @param ratePerSecond tokens added per second, more than 0.
   * @param capacity the most tokens held, 1 or more; the bucket starts full.
   * @param now the time in milliseconds.
   * @throws RangeError for a rate or capacity that cannot work.
   */
  constructor(
    readonly ratePerSecond: number,
    readonly capacity: number,
    private readonly now: () => number = Date.now,
  ) {
    if (!(Number.isFinite(ratePerSecond) && ratePerSecond > 0)) {
      throw new RangeError(`TokenBucket: ratePerSecond must be above 0 (got ${ratePerSecond})`);
    }
    if (!(Number.isFinite(capacity) && capacity >= 1)) {
      throw new RangeError(`TokenBucket: capacity must be 1 or more (got ${capacity})`);
    }
    this.tokens = capacity;
    this.updatedAt = now();
  }

  /** Takes `count` tokens when the bucket holds them; false (nothing taken) when it does not. */
  tryTake(count = 1): boolean {
    this.refill();
    if (this.tokens < count) {
      return false;
    }
    this.tokens -= count;
    return true;
  }

  /**
   * Takes `count` tokens now, on credit when the bucket holds fewer, and returns the
   * milliseconds to wait before the work they pay for may start (0 when they were there).
   * Callers that wait that long keep to the rate: the next caller's wait includes the credit.
   */
  take(count = 1): number {
    this.refill();
    this.tokens -= count;
    return this.tokens >= 0 ? 0 : Math.ceil((-this.tokens / this.ratePerSecond) * 1000);
  }

  /** Milliseconds until `count` tokens are held (0 when they are now). */
  msUntil(count = 1): number {
    this.refill();
    const missing = count - this.tokens;
    return missing <= 0 ? 0 : Math.ceil((missing / this.ratePerSecond) * 1000);
  }

  private refill(): void {
    const now = this.now();
    const elapsedMs = Math.max(0, now - this.updatedAt);
    this.updatedAt = now;
    this.tokens = Math.min(this.capacity, this.tokens + (elapsedMs / 1000) * this.ratePerSecond);
  }
}
