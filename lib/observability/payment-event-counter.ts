import type { EventQueries } from '../store/ports/event-queries.port';

/** How long requests are gathered into one query, in ms. */
const BATCH_WINDOW_MS = 20;
/** Most payments counted by one query. */
const MAX_BATCH = 500;

/** One payment's requests in the current batch. */
interface PendingCount {
  readonly endpoint: string;
  readonly paymentRef: string;
  readonly waiters: {
    /** Receipt time of the requesting event, in ms. */
    readonly receivedAt: number;
    resolve(count: number): void;
    reject(error: unknown): void;
  }[];
}

/**
 * Counts the stored events of payments, for the events-per-payment histogram and the payment
 * storm alert. Requests arriving within a few milliseconds share one query on the
 * `payment_ref` index, so a burst of deliveries costs one read, not one per event. A request
 * counts the payment's events received up to its own event, so the answer does not depend on
 * when the query runs: events of the payment stored since are not counted.
 */
export class PaymentEventCounter {
  private pending = new Map<string, PendingCount>();
  private timer?: NodeJS.Timeout;

  constructor(private readonly queries: Pick<EventQueries, 'paymentEventTimes'>) {}

  /**
   * Events stored for `paymentRef` on `endpoint` that were received at or before `receivedAt`:
   * the requesting event and those before it.
   */
  count(endpoint: string, paymentRef: string, receivedAt: Date): Promise<number> {
    return new Promise((resolve, reject) => {
      const key = `${endpoint}\u0000${paymentRef}`;
      let entry = this.pending.get(key);
      if (!entry) {
        entry = { endpoint, paymentRef, waiters: [] };
        this.pending.set(key, entry);
      }
      entry.waiters.push({ receivedAt: receivedAt.getTime(), resolve, reject });
      if (this.pending.size >= MAX_BATCH) {
        this.flush();
      } else {
        this.timer ??= setTimeout(() => this.flush(), BATCH_WINDOW_MS);
      }
    });
  }

  /** Drops the requests not yet counted, rejecting them (the application is closing). */
  close(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    const closing = new Error('The application is closing');
    batch.forEach((entry) => entry.waiters.forEach((waiter) => waiter.reject(closing)));
  }

  private flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const batch = [...this.pending.values()];
    this.pending = new Map();
    if (batch.length > 0) {
      void this.run(batch);
    }
  }

  private async run(batch: readonly PendingCount[]): Promise<void> {
    try {
      const refs = [...new Set(batch.map((entry) => entry.paymentRef))];
      const times = new Map<string, { at: number; count: number }[]>();
      for (const row of await this.queries.paymentEventTimes(refs)) {
        const key = `${row.endpoint}\u0000${row.paymentRef}`;
        const at = row.receivedAt?.getTime() ?? 0;
        times.set(key, [...(times.get(key) ?? []), { at, count: row.count }]);
      }
      for (const entry of batch) {
        const found = times.get(`${entry.endpoint}\u0000${entry.paymentRef}`) ?? [];
        for (const waiter of entry.waiters) {
          const count = found
            .filter((time) => time.at <= waiter.receivedAt)
            .reduce((sum, time) => sum + time.count, 0);
          waiter.resolve(Math.max(1, count));
        }
      }
    } catch (error) {
      batch.forEach((entry) => entry.waiters.forEach((waiter) => waiter.reject(error)));
    }
  }
}
