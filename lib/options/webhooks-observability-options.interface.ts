import type { WebhookAlert } from '../telemetry/webhook-alert.interface';

/**
 * The part of a `prom-client` `Registry` the metrics use. Pass `new Registry()` or the default
 * `register`; the type is spelled out so the package's types do not need `prom-client`.
 */
export interface WebhookMetricsRegistry {
  /** `Content-Type` of `metrics()`. */
  readonly contentType: string;
  /** Text exposition of every metric in the registry. */
  metrics(): Promise<string>;
  /** A registered metric by name. */
  getSingleMetric(name: string): unknown;
  /** Removes a metric by name. */
  removeSingleMetric(name: string): void;
}

/** Prometheus metrics through `prom-client` (an optional peer dependency: `npm i prom-client`). */
export interface WebhookMetricsOptions {
  /**
   * Registry the metrics are registered on.
   * @default prom-client's default registry (`register`)
   * @advanced
   */
  registry?: WebhookMetricsRegistry;
  /**
   * Prefix of every metric name.
   * @default 'payment_webhooks_'
   * @advanced
   */
  prefix?: string;
}

/** Thresholds of `WebhooksHealthIndicator`; crossing one reports the module as down. */
export interface WebhookHealthOptions {
  /**
   * Most events waiting to run for the first time (status `pending`), over all endpoints.
   * @default 1000
   * @advanced
   */
  maxPendingBacklog?: number;
  /**
   * Longest an event may wait in `pending` before its first run, in ms. Events in `retrying`
   * wait on purpose (backoff) and are not counted.
   * @default 900000 (15 minutes)
   * @advanced
   */
  maxOldestPendingMs?: number;
  /**
   * Most events in the dead-letter state. Dead letters stay until replayed or purged by hand,
   * so with a limit the check stays down until someone acts.
   * @default undefined (not checked)
   * @advanced
   */
  maxDeadLetters?: number;
}

/** When and where alerts are raised. */
export interface WebhookAlertOptions {
  /**
   * Called with every alert, after it is logged. Errors (and rejected promises) are logged and
   * dropped. `WebhookAlerts.subscribe()` does the same from any provider.
   */
  onAlert?: (alert: WebhookAlert) => void | Promise<void>;
  /**
   * Consecutive deliveries refused for a bad signature on one endpoint that raise a
   * `signature_failures` alert (a rotated secret or someone probing the endpoint).
   * @default 5
   * @advanced
   */
  signatureFailureThreshold?: number;
  /**
   * The refusals of one run must fall within this many ms.
   * @default 600000 (10 minutes)
   * @advanced
   */
  signatureFailureWindowMs?: number;
  /**
   * Events stored for one payment (per endpoint) above which a `payment_event_storm` alert is
   * raised: a provider or a loop resending about one payment.
   * @default 20
   * @advanced
   */
  paymentEventThreshold?: number;
}

/** How the delivery journal is logged: see `WebhookObservabilityOptions.journal`. */
export type WebhookJournalFormat = 'object' | 'line' | false;

/** Metrics, health thresholds and alerts. */
export interface WebhookObservabilityOptions {
  /**
   * Prometheus metrics: `true` for the defaults, or where and how to register them. Needs
   * `prom-client` installed.
   * @default false
   */
  metrics?: boolean | WebhookMetricsOptions;
  /**
   * How each delivery's journal line is logged (context `WebhookIngress`):
   * - `'line'`: one `key=value` text line (values with spaces or quotes JSON-quoted), which
   *   reads as one line through Nest's default `ConsoleLogger` and through `console`; an object
   *   would be written there over several lines, formatted with `util.inspect` on every delivery;
   * - `'object'`: the record as an object, for a logger that takes objects and writes them as
   *   fields (pino, winston, Nest's `ConsoleLogger` with `json: true`);
   * - `false`: no line; `WebhookTelemetry` still publishes every delivery, for an app that
   *   routes them to its own log.
   * @default 'line'
   * @advanced
   */
  journal?: WebhookJournalFormat;
  /** Health thresholds. */
  health?: WebhookHealthOptions;
  /** Alerts. */
  alerts?: WebhookAlertOptions;
  /**
   * Per endpoint name, the longest expected gap between acknowledged deliveries, in ms (at
   * least 1000). A longer gap marks the health check down and raises an `endpoint_silent`
   * alert. Endpoints not listed are never considered silent.
   * @default {}
   * @example
   * expectDeliveryWithinMs: { stripe: 60 * 60 * 1000 } // a busy shop hears from Stripe hourly
   */
  expectDeliveryWithinMs?: Readonly<Record<string, number>>;
  /**
   * The longest expected gaps in ms per endpoint, under their name before 1.0.
   * @deprecated use `expectDeliveryWithinMs` (the same milliseconds); read until 2.0.
   */
  expectDeliveryWithin?: Readonly<Record<string, number>>;
  /**
   * How long a database sample (inbox depth, oldest pending event, last delivery) is reused by
   * metric scrapes, health checks and the silence check, in ms. Keeps frequent scrapes and
   * probes from querying the database each time.
   * @default 5000
   * @advanced
   */
  sampleCacheMs?: number;
}
