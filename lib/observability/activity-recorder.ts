import type {
  AttemptRecord,
  DeliveryDecision,
  DeliveryRecord,
  WebhookTelemetry,
  WebhookTelemetryListener,
} from '../telemetry/webhook-telemetry';

const MINUTE_MS = 60_000;
/** Minutes kept: the inbox page charts the last hour. */
export const ACTIVITY_MINUTES = 60;
/** Latency bins per doubling: a percentile read from them is at most about 19% above the true one. */
const BINS_PER_DOUBLING = 4;
/** Bins up to 2^20 ms (about 17 minutes); anything longer falls in the last one. */
const BIN_COUNT = 20 * BINS_PER_DOUBLING + 1;

/** Percentiles of the latencies of one minute, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  /** The bin's upper bound holding the median (never above `max`). */
  readonly p50: number;
  readonly p95: number;
  readonly max: number;
}

/** What this process answered and ran in one minute. */
export interface ActivityMinute {
  /** The minute's first millisecond. */
  readonly start: Date;
  /** Deliveries answered in it, by decision; a decision that did not happen is left out. */
  readonly deliveries: Readonly<Partial<Record<DeliveryDecision, number>>>;
  /** How long those deliveries took to answer; null when there was none. */
  readonly answerMs: LatencySummary | null;
  /** Handler runs that finished in it (a handler skipped as already in the ledger is no run). */
  readonly handlerRuns: number;
  /** How many of those runs failed. */
  readonly handlerFailures: number;
  /** How long those runs took; null when there was none. */
  readonly handlerMs: LatencySummary | null;
}

/** The last hour of this process, minute by minute. */
export interface ActivitySnapshot {
  /** Always `process`: other instances and BullMQ workers elsewhere keep their own. */
  readonly scope: 'process';
  /** When this process started recording: the minutes before it are empty for that reason. */
  readonly recordingSince: Date;
  /** The last {@link ACTIVITY_MINUTES} minutes, oldest first; the last is still filling. */
  readonly minutes: readonly ActivityMinute[];
}

/** Counts of latencies in bins growing by a quarter of a doubling: fixed memory per minute. */
class LatencyBins {
  private readonly counts = new Uint32Array(BIN_COUNT);
  private count = 0;
  private max = 0;

  add(ms: number): void {
    const bin = ms <= 1 ? 0 : Math.min(BIN_COUNT - 1, Math.ceil(Math.log2(ms) * BINS_PER_DOUBLING));
    this.counts[bin] += 1;
    this.count += 1;
    this.max = Math.max(this.max, ms);
  }

  summary(): LatencySummary | null {
    if (this.count === 0) {
      return null;
    }
    return {
      count: this.count,
      p50: this.percentile(0.5),
      p95: this.percentile(0.95),
      max: round(this.max),
    };
  }

  private percentile(fraction: number): number {
    const rank = Math.ceil(fraction * this.count);
    let seen = 0;
    let bin = 0;
    while (seen + this.counts[bin] < rank) {
      seen += this.counts[bin];
      bin += 1;
    }
    return round(Math.min(2 ** (bin / BINS_PER_DOUBLING), this.max));
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** One minute's counts, reused once the ring comes round to it again. */
class MinuteSlot {
  minute = -1;
  deliveries = new Map<DeliveryDecision, number>();
  answer = new LatencyBins();
  runs = 0;
  failures = 0;
  handler = new LatencyBins();

  reset(minute: number): void {
    this.minute = minute;
    this.deliveries = new Map();
    this.answer = new LatencyBins();
    this.runs = 0;
    this.failures = 0;
    this.handler = new LatencyBins();
  }

  view(): ActivityMinute {
    return {
      start: new Date(this.minute * MINUTE_MS),
      deliveries: Object.fromEntries(this.deliveries),
      answerMs: this.answer.summary(),
      handlerRuns: this.runs,
      handlerFailures: this.failures,
      handlerMs: this.handler.summary(),
    };
  }
}

/**
 * Listens to the engine's telemetry and keeps, for each of the last 60 minutes, the deliveries
 * this process answered by decision and the handler runs it finished, with their latency
 * percentiles: what the inbox page charts. Its memory is fixed (60 slots of a few hundred
 * bytes), whatever the traffic, and it needs no timer: a minute's slot is cleared when the
 * clock comes round to it again.
 */
export class ActivityRecorder implements WebhookTelemetryListener {
  private readonly slots = Array.from({ length: ACTIVITY_MINUTES }, () => new MinuteSlot());
  private readonly since: Date;

  /** @param now the clock, in milliseconds since the epoch. */
  constructor(
    telemetry: WebhookTelemetry,
    private readonly now: () => number = Date.now,
  ) {
    this.since = new Date(now());
    telemetry.subscribe(this);
  }

  delivery(record: DeliveryRecord): void {
    const slot = this.current();
    slot.deliveries.set(record.decision, (slot.deliveries.get(record.decision) ?? 0) + 1);
    slot.answer.add(record.latencyMs);
  }

  attempt(record: AttemptRecord): void {
    if (record.outcome === 'already_done') {
      return;
    }
    const slot = this.current();
    slot.runs += 1;
    slot.failures += record.outcome === 'failed' ? 1 : 0;
    slot.handler.add(record.durationMs);
  }

  /** The last hour, minute by minute, oldest first. */
  snapshot(): ActivitySnapshot {
    const latest = Math.floor(this.now() / MINUTE_MS);
    const minutes: ActivityMinute[] = [];
    for (let minute = latest - ACTIVITY_MINUTES + 1; minute <= latest; minute++) {
      const slot = this.slots[minute % ACTIVITY_MINUTES];
      minutes.push(slot.minute === minute ? slot.view() : emptyMinute(minute));
    }
    return { scope: 'process', recordingSince: this.since, minutes };
  }

  private current(): MinuteSlot {
    const minute = Math.floor(this.now() / MINUTE_MS);
    const slot = this.slots[minute % ACTIVITY_MINUTES];
    if (slot.minute !== minute) {
      slot.reset(minute);
    }
    return slot;
  }
}

function emptyMinute(minute: number): ActivityMinute {
  return {
    start: new Date(minute * MINUTE_MS),
    deliveries: {},
    answerMs: null,
    handlerRuns: 0,
    handlerFailures: 0,
    handlerMs: null,
  };
}
