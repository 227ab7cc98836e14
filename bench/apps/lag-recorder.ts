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

/** Nearest-rank percentile of `sorted` padded to `of` values with +∞; null when it is one of those. */
function percentile(sorted: Float64Array, of: number, rank: number): number | null {
  const index = Math.max(0, Math.ceil((rank / 100) * of) - 1);
  return index < sorted.length ? sorted[index] : null;
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

  private lags: number[] = [];
  private prefix = '';
  private firstStartAt: number | null = null;
  private lastStartAt: number | null = null;

  /** Records one handler start for an event received at `receivedAt`, if it is measured. */
  started(eventId: string, receivedAt: Date): void {
    if (!eventId.startsWith(this.prefix)) {
      return;
    }
    const now = Date.now();
    this.lags.push(now - receivedAt.getTime());
    this.firstStartAt ??= now;
    this.lastStartAt = now;
  }

  /** Forgets what was recorded; from now on, records only events whose id starts with `prefix`. */
  reset(prefix = ''): void {
    this.prefix = prefix;
    this.lags = [];
    this.firstStartAt = null;
    this.lastStartAt = null;
  }

  /**
   * @param events how many events the lag percentiles are over; those beyond the measured
   * starts have not started yet.
   */
  stats(events = 0): HandlerStats {
    const sorted = Float64Array.from(this.lags).sort();
    const of = Math.max(events, sorted.length);
    return {
      started: sorted.length,
      lagMs: {
        count: sorted.length,
        of,
        p50: of === 0 ? null : percentile(sorted, of, 50),
        p99: of === 0 ? null : percentile(sorted, of, 99),
        max: sorted.length === 0 ? null : sorted[sorted.length - 1],
      },
      firstStartAt: this.firstStartAt,
      lastStartAt: this.lastStartAt,
      handlerDelayMs: this.handlerDelayMs,
    };
  }
}
