import type { Registry } from 'prom-client';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { BoundedLabel } from './bounded-label';
import { InboxSampler } from './inbox-sampler';
import type { OpenWebhookTransport } from '../dispatch/webhook-transport';
import {
  eventMetrics,
  inboxGauges,
  METRIC_NAMES,
  MetricNaming,
  TRANSPORT_METRIC_NAMES,
  transportMetrics,
  WebhookMetricSet,
} from './webhook-metric-set';
import { METRIC_ALREADY_REGISTERED, METRICS_DISABLED } from './observability.messages';
import { loadPromClient, PromClient } from './prom-client.loader';
import {
  AttemptRecord,
  DeliveryRecord,
  SettledRecord,
  WebhookTelemetry,
} from '../telemetry/webhook-telemetry';
import { SafeLogger } from '../telemetry/safe-logger';

/** Label value for a delivery to an endpoint name that is not configured. */
const UNKNOWN = '(unknown)';

/** Prometheus's text format, answered while metrics are off. */
const TEXT_CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8';

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
  private unsubscribeWait?: () => void;

  /** @internal the module constructs it; an app injects it, so its dependencies are not part of the API. */
  constructor(
    private readonly options: ResolvedWebhooksOptions,
    private readonly telemetry: WebhookTelemetry,
    private readonly sampler: InboxSampler,
    private readonly transport: Pick<OpenWebhookTransport, 'status' | 'onWait'> | null = null,
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
    this.unsubscribeWait = this.transport?.onWait((queue, waitedMs) =>
      this.set?.queueWait?.observe({ queue }, waitedMs / 1000),
    );
  }

  /** Removes the metrics from the registry, so a new application can register them again. */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unsubscribeWait?.();
    this.unsubscribeWait = undefined;
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
    const names = [...METRIC_NAMES, ...(this.transport ? TRANSPORT_METRIC_NAMES : [])];
    const taken = names
      .map((name) => `${prefix}${name}`)
      .find((name) => registry.getSingleMetric(name));
    if (taken) {
      throw new WebhookConfigurationError(METRIC_ALREADY_REGISTERED(taken));
    }
    const named: MetricNaming = (config) => {
      const name = `${prefix}${config.name}`;
      this.names.push(name);
      return { ...config, name, registers: [registry] };
    };
    return {
      ...eventMetrics(prom, named),
      ...inboxGauges(prom, named, this.sampler, [...this.options.endpoints.keys()]),
      ...(this.transport ? transportMetrics(prom, named, this.transport) : {}),
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
