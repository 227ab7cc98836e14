import type { DispatchPause } from '../store/ports/pause-queries.port';
import type { EventQueries } from '../store/ports/event-queries.port';
import type { PauseQueries } from '../store/ports/pause-queries.port';
import { InboxWriter } from '../store/ports/inbox-writer.port';
import type { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { PaymentEventCounter } from './payment-event-counter';
import { DeliveryDecision, DeliveryRecord, WebhookTelemetry } from '../telemetry/webhook-telemetry';
import { SafeLogger } from '../telemetry/safe-logger';

/** Statuses whose counts are sampled: what is still to run, running, or waiting for a human. */
export const SAMPLED_STATUSES = ['pending', 'processing', 'retrying', 'dead'] as const;

/** A status whose count is sampled. */
export type SampledStatus = (typeof SAMPLED_STATUSES)[number];

/** Decisions meaning the delivery was verified and answered with the provider's success answer. */
const ACKNOWLEDGED: ReadonlySet<DeliveryDecision> = new Set(['accepted', 'duplicate', 'ignored']);

/**
 * How far back each refresh of the last delivery looks before the previous one: an event's
 * `received_at` is set on receipt, before its commit, so a row can appear after a refresh
 * with a time before it.
 */
const REFRESH_OVERLAP_MS = 5 * 60_000;

/** The inbox as one database sample saw it. */
export interface InboxSample {
  readonly takenAt: Date;
  /** False when the sample failed; the counts are then the previous sample's (or empty). */
  readonly databaseUp: boolean;
  /** Why the sample failed. */
  readonly error?: string;
  /**
   * Why deliveries cannot be stored, when the store's write check found a cause; undefined
   * when they can, or when the store has no such check.
   */
  readonly writeError?: string;
  /** Events per endpoint and sampled status. */
  readonly depth: ReadonlyMap<string, Readonly<Record<SampledStatus, number>>>;
  /** Per endpoint, when its oldest `pending` event was received. */
  readonly oldestPendingAt: ReadonlyMap<string, Date>;
  /** The pauses of dispatch in force. */
  readonly paused: readonly DispatchPause[];
}

/** An endpoint that has had no acknowledged delivery for longer than its `expectDeliveryWithinMs`. */
export interface SilentEndpoint {
  readonly endpoint: string;
  /** The last acknowledged delivery known, or null when none is. */
  readonly lastDeliveryAt: Date | null;
  /** Counted from the process start when no delivery is known. */
  readonly silentForMs: number;
  readonly expectDeliveryWithinMs: number;
}

/** The last delivery this process could not store, while no write has succeeded since. */
export interface StoreFailure {
  readonly at: Date;
  readonly reason: string;
}

/** True when the delivery was verified and acknowledged (stored, a duplicate, or ignored). */
export function isAcknowledged(decision: DeliveryDecision): boolean {
  return ACKNOWLEDGED.has(decision);
}

function emptyDepth(): Record<SampledStatus, number> {
  return { pending: 0, processing: 0, retrying: 0, dead: 0 };
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * Reads what metrics, health and alerts need from the inbox, cheaply: a few indexed queries at
 * most once per `sampleCacheMs` (concurrent callers share one), and one indexed read per burst
 * of stored payment events. Knows when each endpoint last had an acknowledged delivery, from
 * this process's deliveries and from rows other instances stored.
 */
export class InboxSampler {
  /** When this process started looking; stands for the last delivery when none is known. */
  readonly startedAt = new Date();

  private readonly logger = new SafeLogger('WebhookObservability');
  private readonly lastDelivery = new Map<string, number>();
  private readonly paymentCounts = new WeakMap<DeliveryRecord, Map<string, Promise<number>>>();
  private readonly unsubscribe: () => void;
  private readonly paymentEvents: PaymentEventCounter;
  private lastRefreshAt: Date | null = null;
  private failedStore?: StoreFailure;
  private cached?: InboxSample;
  private inFlight?: Promise<InboxSample>;

  constructor(
    private readonly queries: EventQueries & Pick<PauseQueries, 'pauses'>,
    private readonly writer: InboxWriter,
    private readonly options: ResolvedWebhooksOptions,
    telemetry: WebhookTelemetry,
  ) {
    this.paymentEvents = new PaymentEventCounter(queries);
    this.unsubscribe = telemetry.subscribe({
      delivery: (record) => {
        if (isAcknowledged(record.decision)) {
          this.noteDelivery(record.endpoint, record.receivedAt);
          this.failedStore = undefined;
        } else if (record.decision === 'store_failed') {
          this.failedStore = { at: new Date(), reason: record.reason ?? 'unknown error' };
        }
      },
    });
  }

  stop(): void {
    this.unsubscribe();
    this.paymentEvents.close();
  }

  /**
   * The last delivery this process could not store, unless a delivery was stored or the
   * store's write check succeeded after it.
   */
  get storeFailure(): StoreFailure | undefined {
    return this.failedStore;
  }

  /** The last acknowledged delivery known on `endpoint`, or null when none is. */
  lastDeliveryAt(endpoint: string): Date | null {
    const at = this.lastDelivery.get(endpoint);
    return at === undefined ? null : new Date(at);
  }

  /**
   * Endpoints silent for longer than their `expectDeliveryWithinMs`, as far as this process knows
   * (call `sample()` first to learn what other instances stored).
   */
  silentEndpoints(now = Date.now()): SilentEndpoint[] {
    const silent: SilentEndpoint[] = [];
    for (const [endpoint, within] of this.options.observability.expectDeliveryWithinMs) {
      const lastDeliveryAt = this.lastDeliveryAt(endpoint);
      const silentForMs = now - (lastDeliveryAt ?? this.startedAt).getTime();
      if (silentForMs > within) {
        silent.push({ endpoint, lastDeliveryAt, silentForMs, expectDeliveryWithinMs: within });
      }
    }
    return silent;
  }

  /** A sample no older than `sampleCacheMs`; queries the database when the cached one is. */
  sample(): Promise<InboxSample> {
    const cached = this.cached;
    if (
      cached &&
      Date.now() - cached.takenAt.getTime() < this.options.observability.sampleCacheMs
    ) {
      return Promise.resolve(cached);
    }
    this.inFlight ??= this.query().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  /**
   * Events stored for `paymentRef` on the delivery's endpoint, counted once per delivery however
   * many listeners ask, after the answer went out (see {@link PaymentEventCounter}).
   */
  countPaymentEvents(record: DeliveryRecord, paymentRef: string): Promise<number> {
    let counts = this.paymentCounts.get(record);
    if (!counts) {
      counts = new Map();
      this.paymentCounts.set(record, counts);
    }
    let count = counts.get(paymentRef);
    if (!count) {
      count = this.paymentEvents.count(record.endpoint, paymentRef, record.receivedAt);
      counts.set(paymentRef, count);
    }
    return count;
  }

  private noteDelivery(endpoint: string, at: Date): void {
    const time = at.getTime();
    if (time > (this.lastDelivery.get(endpoint) ?? 0)) {
      this.lastDelivery.set(endpoint, time);
    }
  }

  private async query(): Promise<InboxSample> {
    const takenAt = new Date();
    try {
      const since =
        this.lastRefreshAt === null
          ? null
          : new Date(this.lastRefreshAt.getTime() - REFRESH_OVERLAP_MS);
      const rows = await this.queries.sample(SAMPLED_STATUSES, since);
      this.lastRefreshAt = takenAt;
      for (const { endpoint, at } of rows.latest) {
        this.noteDelivery(endpoint, at);
      }
      const depth = new Map<string, Record<SampledStatus, number>>();
      for (const endpoint of this.options.endpoints.keys()) {
        depth.set(endpoint, emptyDepth());
      }
      for (const row of rows.depth) {
        const counts = depth.get(row.endpoint) ?? emptyDepth();
        counts[row.status as SampledStatus] = row.count;
        depth.set(row.endpoint, counts);
      }
      const oldestPendingAt = new Map(rows.oldestPending.map(({ endpoint, at }) => [endpoint, at]));
      if (this.cached && !this.cached.databaseUp) {
        this.logger.log('The webhook inbox is reachable again');
      }
      const paused = await this.queries.pauses();
      const writeError = await this.checkWrites();
      this.cached = { takenAt, databaseUp: true, writeError, depth, oldestPendingAt, paused };
    } catch (error) {
      if (!this.cached || this.cached.databaseUp) {
        this.logger.warn(`Sampling the webhook inbox failed: ${describe(error)}`);
      }
      this.cached = {
        takenAt,
        databaseUp: false,
        error: describe(error),
        depth: this.cached?.depth ?? new Map(),
        oldestPendingAt: this.cached?.oldestPendingAt ?? new Map(),
        paused: this.cached?.paused ?? [],
      };
    }
    return this.cached;
  }

  /**
   * Asks the store why it cannot write; a check that succeeds clears a store failure seen
   * before it started, since writes work again.
   */
  private async checkWrites(): Promise<string | undefined> {
    if (!this.writer.checkWrites) {
      return undefined;
    }
    const startedAt = Date.now();
    const writeError = await this.writer.checkWrites();
    if (writeError === undefined && (this.failedStore?.at.getTime() ?? Infinity) <= startedAt) {
      this.failedStore = undefined;
    }
    return writeError;
  }
}
