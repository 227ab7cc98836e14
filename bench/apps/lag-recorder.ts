import { Injectable } from '@nestjs/common';

/**
 * Percentiles of receipt-to-handler-start lag, in ms, over `of` events. Events whose handler
 * has not started yet count as longer than any measured lag: a percentile that falls among
 * them is null, and `startedShare` says how far the measured ones reach.
 */
export interface LagSummary {
  /** Handler starts measured. */
  readonly count: number;
  /** Events the percentiles are over (at least `count`). */
  readonly of: number;
  readonly p50: number | null;
  readonly p99: number | null;
  /** Longest measured lag. */
  readonly max: number | null;
}

/** What the bench handler saw since the last reset. */
export interface HandlerStats {
  /** Handler starts since the last reset. */
  readonly started: number;
  /** Receipt (the controller's `receivedAt`) to handler start, in ms. */
  readonly lagMs: LagSummary;
  /** Epoch ms of the first and last handler start, or null before the first. */
  readonly firstStartAt: number | null;
  readonly lastStartAt: number | null;
  /** How long the handler currently waits, in ms. */
  readonly handlerDelayMs: number;
}

/** Lags below this are counted per millisecond, longer ones per `COARSE_MS`. */
const FINE_LIMIT_MS = 10_000;
const COARSE_MS = 10;
/** Longer lags are counted in the last bucket (their percentile reads as this). */
const LAG_LIMIT_MS = 1_000_000;
const BUCKETS = FINE_LIMIT_MS + Math.ceil((LAG_LIMIT_MS - FINE_LIMIT_MS) / COARSE_MS) + 1;

function bucketOf(lagMs: number): number {
  const ms = Math.max(0, Math.round(lagMs));
  if (ms < FINE_LIMIT_MS) {
    return ms;
  }
  return Math.min(BUCKETS - 1, FINE_LIMIT_MS + Math.floor((ms - FINE_LIMIT_MS) / COARSE_MS));
}

function lagOf(bucket: number): number {
  return bucket < FINE_LIMIT_MS ? bucket : FINE_LIMIT_MS + (bucket - FINE_LIMIT_MS) * COARSE_MS;
}

/**
 * Counts of lags in fixed buckets: exact to the millisecond under 10 s, to 10 ms above. Its
 * memory is taken once, so a long run measures the package's resident size, not this record's.
 */
class LagHistogram {
  private readonly counts = new Uint32Array(BUCKETS);
  count = 0;
  max: number | null = null;

  add(lagMs: number): void {
    this.counts[bucketOf(lagMs)] += 1;
    this.count += 1;
    this.max = this.max === null ? lagMs : Math.max(this.max, lagMs);
  }

  clear(): void {
    this.counts.fill(0);
    this.count = 0;
    this.max = null;
  }

  /** Nearest-rank percentile over `of` values, those beyond `count` being +∞; null when it is one of those. */
  percentile(of: number, rank: number): number | null {
    const wanted = Math.max(1, Math.ceil((rank / 100) * of));
    if (wanted > this.count) {
      return null;
    }
    let seen = 0;
    for (let bucket = 0; bucket < BUCKETS; bucket += 1) {
      seen += this.counts[bucket];
      if (seen >= wanted) {
        return lagOf(bucket);
      }
    }
    return null;
  }
}

/**
 * Collects, in memory, when each handler run started relative to the event's receipt, and how
 * long the bench handler should take. One process, one clock: the lag is measured where the
 * handler runs against the `receivedAt` the controller took when the request arrived.
 */
@Injectable()
export class LagRecorder {
  /** How long each handler run waits before returning, in ms; 0 is a no-op handler. */
  handlerDelayMs = Number(process.env.BENCH_HANDLER_MS ?? 0);

  private readonly lags = new LagHistogram();
  private prefix = '';
  private firstStartAt: number | null = null;
  private lastStartAt: number | null = null;

  /** Records one handler start for an event received at `receivedAt`, if it is measured. */
  started(eventId: string, receivedAt: Date): void {
    if (!eventId.startsWith(this.prefix)) {
      return;
    }
    const now = Date.now();
    this.lags.add(now - receivedAt.getTime());
    this.firstStartAt ??= now;
    this.lastStartAt = now;
  }

  /** Forgets what was recorded; from now on, records only events whose id starts with `prefix`. */
  reset(prefix = ''): void {
    this.prefix = prefix;
    this.lags.clear();
    this.firstStartAt = null;
    this.lastStartAt = null;
  }

  /**
   * @param events how many events the lag percentiles are over; those beyond the measured
   * starts have not started yet.
   */
  stats(events = 0): HandlerStats {
    const { count, max } = this.lags;
    const of = Math.max(events, count);
    return {
      started: count,
      lagMs: {
        count,
        of,
        p50: of === 0 ? null : this.lags.percentile(of, 50),
        p99: of === 0 ? null : this.lags.percentile(of, 99),
        max,
      },
      firstStartAt: this.firstStartAt,
      lastStartAt: this.lastStartAt,
      handlerDelayMs: this.handlerDelayMs,
    };
  }
}
