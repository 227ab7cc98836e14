import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { BoundedLabel } from './bounded-label';
import { InboxSampler, SAMPLED_STATUSES } from './inbox-sampler';
import { METRIC_ALREADY_REGISTERED, METRICS_DISABLED } from './observability.messages';
import { loadPromClient, PromClient } from './prom-client.loader';
import {
  AttemptRecord,
  DeliveryRecord,
  SettledRecord,
  WebhookTelemetry,
} from './webhook-telemetry';
import { SafeLogger } from './safe-logger';

/** Label value for a delivery to an endpoint name that is not configured. */
const UNKNOWN = '(unknown)';

/** Prometheus's text format, answered while metrics are off. */
const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SETTLE_BUCKETS = [0.05, 0.25, 1, 5, 15, 60, 300, 900, 3600, 10_800, 43_200, 86_400];
const PER_PAYMENT_BUCKETS = [1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 100];

/** Every metric's name, without the prefix. */
const METRIC_NAMES = [
  'deliveries_total',
  'ack_latency_seconds',
  'events_settled_total',
  'processing_duration_seconds',
  'handler_failures_total',
  'retries_total',
  'dead_letters_total',
  'time_to_settle_seconds',
  'events_per_payment',
  'inbox_depth',
  'oldest_pending_age_seconds',
  'last_delivery_age_seconds',
  'database_up',
] as const;

type MetricName = (typeof METRIC_NAMES)[number];

type EventLabels = 'endpoint' | 'provider' | 'type';

/** The metrics, once registered. */
interface WebhookMetricSet {
  deliveries: Counter<'endpoint' | 'provider' | 'decision'>;
  ackLatency: Histogram<'endpoint' | 'provider' | 'decision'>;
  settled: Counter<EventLabels | 'status'>;
  processingDuration: Histogram<EventLabels | 'outcome'>;
  handlerFailures: Counter<EventLabels | 'handler'>;
  retries: Counter<EventLabels>;
  deadLetters: Counter<EventLabels>;
  timeToSettle: Histogram<'endpoint' | 'provider' | 'status'>;
  eventsPerPayment: Histogram<'endpoint' | 'provider'>;
  inboxDepth: Gauge<'endpoint' | 'status'>;
  oldestPendingAge: Gauge<'endpoint'>;
  lastDeliveryAge: Gauge<'endpoint'>;
  databaseUp: Gauge<string>;
}

/**
 * Prometheus metrics of the webhook module, registered on `observability.metrics.registry`
 * (prom-client's default registry unless given) when `observability.metrics` is on. Counters
 * and histograms follow the telemetry stream; the inbox gauges are read from the database
 * when scraped, through a sample cached for `observability.sampleCacheMs`. Labels are bounded:
 * endpoint, provider, type, decision, status, outcome and handler, never event ids or payment
 * references.
 *
 * Counters count what this process saw: sum them over instances. Sampled gauges describe the
 * shared inbox: take their max over instances.
 *
 * @example
 * ```ts
 * @Controller('metrics')
 * export class MetricsController {
 *   constructor(private readonly webhooks: WebhooksMetrics) {}
 *
 *   @Get()
 *   async scrape(@Res({ passthrough: true }) response: Response): Promise<string> {
 *     response.setHeader('Content-Type', this.webhooks.contentType);
 *     return this.webhooks.metrics();
 *   }
 * }
 * ```
 */
export class WebhooksMetrics {
  private readonly logger = new SafeLogger('WebhooksMetrics');
  private readonly endpointsSeen = new BoundedLabel(100);
  private readonly types = new BoundedLabel(200);
  private readonly outcomes = new BoundedLabel(50);
  private readonly handlers = new BoundedLabel(200);
  private registry?: Registry;
  private set?: WebhookMetricSet;
  private names: string[] = [];
  private unsubscribe?: () => void;

  constructor(
    private readonly options: ResolvedWebhooksOptions,
    private readonly telemetry: WebhookTelemetry,
    private readonly sampler: InboxSampler,
  ) {}

  /** Whether `observability.metrics` is on. */
  get enabled(): boolean {
    return this.options.observability.metrics !== null;
  }

  /** `Content-Type` of {@link metrics}: the registry's (Prometheus text format by default). */
  get contentType(): string {
    return this.registry?.contentType ?? TEXT_CONTENT_TYPE;
  }

  /**
   * Loads `prom-client` and registers the metrics when they are on.
   * @throws WebhookConfigurationError when `prom-client` is not installed, or a metric of the
   * same name is already registered in the registry.
   */
  start(): void {
    const settings = this.options.observability.metrics;
    if (!settings || this.set) {
      return;
    }
    const prom = loadPromClient();
    const registry = (settings.registry as Registry | undefined) ?? prom.register;
    this.set = this.register(prom, registry, settings.prefix);
    this.registry = registry;
    this.unsubscribe = this.telemetry.subscribe({
      delivery: (record) => this.onDelivery(record),
      attempt: (record) => this.onAttempt(record),
      settled: (record) => this.onSettled(record),
    });
  }

  /** Removes the metrics from the registry, so a new application can register them again. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const name of this.names) {
      this.registry?.removeSingleMetric(name);
    }
    this.names = [];
    this.set = undefined;
  }

  /**
   * The text exposition of every metric in the registry (the module's and any other registered
   * there), for a `GET /metrics` controller. Samples the inbox if the cached sample is stale.
   * @throws WebhookConfigurationError when metrics are off.
   */
  metrics(): Promise<string> {
    if (!this.registry || !this.set) {
      return Promise.reject(new WebhookConfigurationError(METRICS_DISABLED));
    }
    return this.registry.metrics();
  }

  private register(prom: PromClient, registry: Registry, prefix: string): WebhookMetricSet {
    // NOTE: every name is checked before any metric is created, so a conflict registers nothing.
    const taken = METRIC_NAMES.map((name) => `${prefix}${name}`).find((name) =>
      registry.getSingleMetric(name),
    );
    if (taken) {
      throw new WebhookConfigurationError(METRIC_ALREADY_REGISTERED(taken));
    }
    const named = <T extends { name: MetricName }>(config: T): T & { registers: Registry[] } => {
      const name = `${prefix}${config.name}`;
      this.names.push(name);
      return { ...config, name, registers: [registry] };
    };
    const sampler = this.sampler;
    const configured = [...this.options.endpoints.keys()];
    const inboxDepth: Gauge<'endpoint' | 'status'> = new prom.Gauge(
      named({
        name: 'inbox_depth',
        help: 'Events in the inbox per endpoint and status (pending, processing, retrying, dead), sampled from the database.',
        labelNames: ['endpoint', 'status'] as const,
        async collect() {
          const sample = await sampler.sample();
          inboxDepth.reset();
          for (const [endpoint, counts] of sample.depth) {
            for (const status of SAMPLED_STATUSES) {
              inboxDepth.set({ endpoint, status }, counts[status]);
            }
          }
        },
      }),
    );
    const oldestPendingAge: Gauge<'endpoint'> = new prom.Gauge(
      named({
        name: 'oldest_pending_age_seconds',
        help: 'Age of the oldest event waiting for its first run (status pending) per endpoint; 0 when none waits.',
        labelNames: ['endpoint'] as const,
        async collect() {
          const sample = await sampler.sample();
          const now = Date.now();
          oldestPendingAge.reset();
          for (const endpoint of new Set([...configured, ...sample.oldestPendingAt.keys()])) {
            const at = sample.oldestPendingAt.get(endpoint);
            oldestPendingAge.set({ endpoint }, at ? Math.max(0, (now - at.getTime()) / 1000) : 0);
          }
        },
      }),
    );
    const lastDeliveryAge: Gauge<'endpoint'> = new prom.Gauge(
      named({
        name: 'last_delivery_age_seconds',
        help: 'Seconds since the last acknowledged delivery per endpoint (since the process start when none is stored).',
        labelNames: ['endpoint'] as const,
        async collect() {
          await sampler.sample();
          const now = Date.now();
          lastDeliveryAge.reset();
          for (const endpoint of configured) {
            const at = sampler.lastDeliveryAt(endpoint) ?? sampler.startedAt;
            lastDeliveryAge.set({ endpoint }, Math.max(0, (now - at.getTime()) / 1000));
          }
        },
      }),
    );
    const databaseUp: Gauge<string> = new prom.Gauge(
      named({
        name: 'database_up',
        help: '1 when the last sample of the webhook inbox succeeded, 0 when the database could not be read.',
        async collect() {
          databaseUp.set((await sampler.sample()).databaseUp ? 1 : 0);
        },
      }),
    );
    return {
      deliveries: new prom.Counter(
        named({
          name: 'deliveries_total',
          help: 'Webhook deliveries by decision: accepted, duplicate, ignored, rejected_signature, rejected_timestamp, rejected_ip, invalid, too_large, unknown_endpoint, method_not_allowed, store_failed.',
          labelNames: ['endpoint', 'provider', 'decision'] as const,
        }),
      ),
      ackLatency: new prom.Histogram(
        named({
          name: 'ack_latency_seconds',
          help: 'Time from receiving a delivery to deciding its answer (after the commit when stored).',
          labelNames: ['endpoint', 'provider', 'decision'] as const,
          buckets: LATENCY_BUCKETS,
        }),
      ),
      settled: new prom.Counter(
        named({
          name: 'events_settled_total',
          help: 'Processing attempts by the status they left the event in: processed, ignored, retrying, dead.',
          labelNames: ['endpoint', 'provider', 'type', 'status'] as const,
        }),
      ),
      processingDuration: new prom.Histogram(
        named({
          name: 'processing_duration_seconds',
          help: 'Duration of one handler run, by outcome: ran, already_done, failed, or the outcome the handler reported.',
          labelNames: ['endpoint', 'provider', 'type', 'outcome'] as const,
          buckets: DURATION_BUCKETS,
        }),
      ),
      handlerFailures: new prom.Counter(
        named({
          name: 'handler_failures_total',
          help: 'Handler runs that threw.',
          labelNames: ['endpoint', 'provider', 'type', 'handler'] as const,
        }),
      ),
      retries: new prom.Counter(
        named({
          name: 'retries_total',
          help: 'Events scheduled for another attempt after a failure.',
          labelNames: ['endpoint', 'provider', 'type'] as const,
        }),
      ),
      deadLetters: new prom.Counter(
        named({
          name: 'dead_letters_total',
          help: 'Events moved to the dead-letter state.',
          labelNames: ['endpoint', 'provider', 'type'] as const,
        }),
      ),
      timeToSettle: new prom.Histogram(
        named({
          name: 'time_to_settle_seconds',
          help: 'Time from the first receipt of an event to its settlement, by the status it settled in.',
          labelNames: ['endpoint', 'provider', 'status'] as const,
          buckets: SETTLE_BUCKETS,
        }),
      ),
      eventsPerPayment: new prom.Histogram(
        named({
          name: 'events_per_payment',
          help: 'Events stored for a payment (per endpoint), observed each time a new event of the payment is stored.',
          labelNames: ['endpoint', 'provider'] as const,
          buckets: PER_PAYMENT_BUCKETS,
        }),
      ),
      inboxDepth,
      oldestPendingAge,
      lastDeliveryAge,
      databaseUp,
    };
  }

  private onDelivery(record: DeliveryRecord): void {
    const set = this.set;
    if (!set) {
      return;
    }
    const known = this.options.endpoints.get(record.endpoint);
    // NOTE: the endpoint name of a refused delivery is whatever the URL said; only configured
    // names become label values.
    const labels = {
      endpoint: known ? known.name : UNKNOWN,
      provider: known ? known.provider.kind : UNKNOWN,
      decision: record.decision,
    };
    set.deliveries.inc(labels);
    set.ackLatency.observe(labels, record.latencyMs / 1000);
    if (!known || (record.decision !== 'accepted' && record.decision !== 'ignored')) {
      return;
    }
    for (const paymentRef of new Set(record.paymentRefs ?? [])) {
      this.sampler.countPaymentEvents(record, paymentRef).then(
        (events) =>
          this.set?.eventsPerPayment.observe(
            { endpoint: labels.endpoint, provider: labels.provider },
            events,
          ),
        (error: unknown) =>
          this.logger.debug(
            `Counting the events of a payment failed: ${error instanceof Error ? error.message : String(error)}`,
          ),
      );
    }
  }

  private onAttempt(record: AttemptRecord): void {
    const set = this.set;
    if (!set) {
      return;
    }
    const labels = this.eventLabels(record);
    set.processingDuration.observe(
      { ...labels, outcome: this.outcomes.value(record.outcome) },
      record.durationMs / 1000,
    );
    if (record.outcome === 'failed') {
      set.handlerFailures.inc({ ...labels, handler: this.handlers.value(record.handler) });
    }
  }

  private onSettled(record: SettledRecord): void {
    const set = this.set;
    if (!set) {
      return;
    }
    const labels = this.eventLabels(record);
    set.settled.inc({ ...labels, status: record.status });
    if (record.status === 'retrying') {
      set.retries.inc(labels);
    } else if (record.status === 'dead') {
      set.deadLetters.inc(labels);
    }
    set.timeToSettle.observe(
      { endpoint: labels.endpoint, provider: labels.provider, status: record.status },
      record.ageMs / 1000,
    );
  }

  private eventLabels(record: { endpoint: string; provider: string; type: string }) {
    return {
      endpoint: this.endpointsSeen.value(record.endpoint),
      provider: record.provider,
      type: this.types.value(record.type),
    };
  }
}
