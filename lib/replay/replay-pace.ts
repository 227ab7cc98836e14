import { TokenBucket } from '../core/token-bucket';

/** Of a replay's rate, how many events a second make one more event per transaction. */
const EVENTS_PER_SECOND_PER_BATCH_EVENT = 50;

/** Options of a {@link ReplayPace}. */
export interface ReplayPaceOptions {
  /** Most events one batch may hold. */
  readonly maxBatch: number;
  /**
   * When the replay's previous batch was recorded (by another instance, or before a restart):
   * the first batch waits until `batch / rate` seconds after it, and never longer than that
   * from now, whatever the clock of the instance that recorded it.
   */
  readonly lastBatchAt?: Date;
  /** The time in milliseconds. */
  readonly now?: () => number;
}

/**
 * The events per batch (one transaction) of a replay at `ratePerSecond`: one per 50 a second of
 * the rate, at least one, at most `maxBatch`. One up to 99 a second.
 */
export function pacedBatchOf(ratePerSecond: number, maxBatch: number): number {
  return Math.min(
    maxBatch,
    Math.max(1, Math.floor(ratePerSecond / EVENTS_PER_SECOND_PER_BATCH_EVENT)),
  );
}

/**
 * The pace of a replay with a rate: batches of {@link batch} events, each let through only when
 * a bucket of `batch` tokens refilled at the rate holds all of them, and recorded at the time it
 * took them. Two batches are then at least `batch / rate` seconds apart, so over any window of
 * T seconds at most `rate × T + batch` events are put back (`rate × T + 1` up to 99 a second),
 * from the first second on: no burst at the start, and a slow or busy machine only slows it.
 */
export class ReplayPace {
  /** Events per batch, see {@link pacedBatchOf}. */
  readonly batch: number;
  private readonly bucket: TokenBucket;
  private readonly now: () => number;
  private notBefore: number;
  private readAt: number;

  /**
   * @param ratePerSecond most events a second, above 0.
   * @throws RangeError for a rate that is not a positive number.
   */
  constructor(
    readonly ratePerSecond: number,
    options: ReplayPaceOptions,
  ) {
    this.now = options.now ?? Date.now;
    this.batch = pacedBatchOf(ratePerSecond, options.maxBatch);
    this.readAt = this.now();
    const spacingMs = (this.batch / ratePerSecond) * 1000;
    const last = options.lastBatchAt?.getTime();
    this.notBefore = last === undefined ? 0 : Math.min(last + spacingMs, this.readAt + spacingMs);
    // NOTE: the bucket reads the time this pace read last, so a batch is recorded at the very
    // time its tokens were taken, and the spacing of the recorded times is the bucket's own.
    this.bucket = new TokenBucket(ratePerSecond, this.batch, () => this.readAt);
  }

  /**
   * Waits until the next batch may start and takes its tokens.
   * @returns the time they were taken, which the batch is recorded at; null when `signal`
   *   aborted first (at once, however long the wait was to be).
   */
  async next(signal?: AbortSignal): Promise<Date | null> {
    for (;;) {
      if (signal?.aborted) {
        return null;
      }
      this.readAt = this.now();
      if (this.readAt < this.notBefore) {
        await sleep(this.notBefore - this.readAt, signal);
        continue;
      }
      if (this.bucket.tryTake(this.batch)) {
        return new Date(this.readAt);
      }
      await sleep(Math.max(1, this.bucket.msUntil(this.batch)), signal);
    }
  }
}

/** Waits `ms`, or until `signal` aborts. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  if (ms <= 0 || signal?.aborted) {
    return Promise.resolve();
  }
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}
