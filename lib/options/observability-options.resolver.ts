import { OptionRename, renamedOption } from '../core/deprecated-options';
import { WebhookConfigurationError } from '../core/webhook-errors';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { INVALID_OPTION } from './options.messages';
import type { WebhookAlert } from '../telemetry/webhook-alert.interface';
import { MODULE_OPTIONS, UNKNOWN_SILENCE_ENDPOINT } from './options.messages';
import type {
  WebhookJournalFormat,
  WebhookMetricsRegistry,
  WebhookObservabilityOptions,
} from './webhooks-observability-options.interface';

/** Metric names start with this when no prefix is given. */
export const DEFAULT_METRICS_PREFIX = 'payment_webhooks_';

const METRIC_PREFIX = /^([a-zA-Z_:][a-zA-Z0-9_:]*)?$/;

/** Observability options with every default filled in. */
export interface ResolvedObservabilityOptions {
  readonly journal: WebhookJournalFormat;
  /** Null when metrics are off. */
  readonly metrics: {
    /** Undefined: prom-client's default registry. */
    readonly registry?: WebhookMetricsRegistry;
    readonly prefix: string;
  } | null;
  readonly health: {
    readonly maxPendingBacklog: number;
    readonly maxOldestPendingMs: number;
    /** Null: not checked. */
    readonly maxDeadLetters: number | null;
  };
  readonly alerts: {
    /** Whether alerts are watched for at all (see {@link alertsConfigured}). */
    readonly enabled: boolean;
    readonly onAlert?: (alert: WebhookAlert) => void | Promise<void>;
    readonly signatureFailureThreshold: number;
    readonly signatureFailureWindowMs: number;
    readonly paymentEventThreshold: number;
  };
  /** Endpoint name to the longest expected gap between deliveries, in ms. */
  readonly expectDeliveryWithinMs: ReadonlyMap<string, number>;
  readonly sampleCacheMs: number;
}

function integer(option: string, value: number | undefined, fallback: number, min: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved < min) {
    const rule = min === 0 ? 'a non-negative integer' : `an integer of at least ${min}`;
    throw new WebhookConfigurationError(INVALID_OPTION(option, rule, value));
  }
  return resolved;
}

function isObject(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function resolveJournal(journal: unknown): WebhookJournalFormat {
  if (journal === undefined) {
    return 'line';
  }
  if (journal !== 'object' && journal !== 'line' && journal !== false) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('observability.journal', "'object', 'line' or false", journal),
    );
  }
  return journal;
}

function resolveMetrics(
  metrics: WebhookObservabilityOptions['metrics'],
): ResolvedObservabilityOptions['metrics'] {
  if (metrics === undefined || metrics === false) {
    return null;
  }
  if (metrics === true) {
    return { prefix: DEFAULT_METRICS_PREFIX };
  }
  if (!isObject(metrics)) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('observability.metrics', 'a boolean or { registry?, prefix? }', metrics),
    );
  }
  const registry = metrics.registry as Partial<Record<keyof WebhookMetricsRegistry, unknown>>;
  if (
    registry !== undefined &&
    (!isObject(registry) ||
      typeof registry.metrics !== 'function' ||
      typeof registry.getSingleMetric !== 'function' ||
      typeof registry.removeSingleMetric !== 'function')
  ) {
    throw new WebhookConfigurationError(
      'WebhooksModule option `observability.metrics.registry` must be a prom-client Registry ' +
        '(`new Registry()` or `register` from prom-client).',
    );
  }
  const prefix = metrics.prefix ?? DEFAULT_METRICS_PREFIX;
  if (typeof prefix !== 'string' || !METRIC_PREFIX.test(prefix)) {
    throw new WebhookConfigurationError(
      INVALID_OPTION(
        'observability.metrics.prefix',
        'letters, digits, underscores or colons, not starting with a digit',
        metrics.prefix,
      ),
    );
  }
  return { registry: metrics.registry, prefix };
}

const EXPECT_DELIVERY_WITHIN: OptionRename = {
  from: 'observability.expectDeliveryWithin',
  to: 'observability.expectDeliveryWithinMs',
  where: MODULE_OPTIONS,
  unit: 'milliseconds per endpoint',
  code: 'NPW_DEP_EXPECT_DELIVERY_WITHIN',
};

function resolveSilence(
  options: WebhookObservabilityOptions | undefined,
  endpoints: ReadonlyMap<string, WebhookEndpoint>,
): Map<string, number> {
  const expect = renamedOption(
    options?.expectDeliveryWithinMs,
    options?.expectDeliveryWithin,
    EXPECT_DELIVERY_WITHIN,
    'WebhooksModule option observability',
  );
  const resolved = new Map<string, number>();
  if (expect === undefined) {
    return resolved;
  }
  if (!isObject(expect)) {
    throw new WebhookConfigurationError(
      INVALID_OPTION(
        'observability.expectDeliveryWithinMs',
        'an object of endpoint name to milliseconds',
        expect,
      ),
    );
  }
  for (const [name, ms] of Object.entries(expect)) {
    if (!endpoints.has(name)) {
      throw new WebhookConfigurationError(UNKNOWN_SILENCE_ENDPOINT(name, [...endpoints.keys()]));
    }
    resolved.set(name, integer(`observability.expectDeliveryWithinMs.${name}`, ms, 0, 1000));
  }
  return resolved;
}

/** Whether `observability.metrics` turns the Prometheus metrics on. */
export function metricsConfigured(options: WebhookObservabilityOptions | undefined): boolean {
  return options?.metrics !== undefined && options.metrics !== false;
}

/**
 * Whether the options ask for alerts: `observability.alerts` given (even `{}`, for alerts in the
 * log and `WebhookAlerts.subscribe()`), or an endpoint expected to hear within a time.
 */
export function alertsConfigured(options: WebhookObservabilityOptions | undefined): boolean {
  return (
    options?.alerts !== undefined ||
    Object.keys(options?.expectDeliveryWithinMs ?? options?.expectDeliveryWithin ?? {}).length > 0
  );
}

/** Merges the defaults into `observability` and fails with a message naming the fix. */
export function resolveObservabilityOptions(
  options: WebhookObservabilityOptions | undefined,
  endpoints: ReadonlyMap<string, WebhookEndpoint>,
): ResolvedObservabilityOptions {
  if (options !== undefined && !isObject(options)) {
    throw new WebhookConfigurationError(
      INVALID_OPTION('observability', 'an object { metrics?, health?, alerts?, … }', options),
    );
  }
  const health = options?.health ?? {};
  const alerts = options?.alerts ?? {};
  if (alerts.onAlert !== undefined && typeof alerts.onAlert !== 'function') {
    throw new WebhookConfigurationError(
      INVALID_OPTION('observability.alerts.onAlert', 'a function (alert) => void', alerts.onAlert),
    );
  }
  return {
    journal: resolveJournal(options?.journal),
    metrics: resolveMetrics(options?.metrics),
    health: {
      maxPendingBacklog: integer(
        'observability.health.maxPendingBacklog',
        health.maxPendingBacklog,
        1000,
        1,
      ),
      maxOldestPendingMs: integer(
        'observability.health.maxOldestPendingMs',
        health.maxOldestPendingMs,
        900_000,
        1,
      ),
      maxDeadLetters:
        health.maxDeadLetters === undefined
          ? null
          : integer('observability.health.maxDeadLetters', health.maxDeadLetters, 0, 0),
    },
    alerts: {
      enabled: alertsConfigured(options),
      onAlert: alerts.onAlert,
      signatureFailureThreshold: integer(
        'observability.alerts.signatureFailureThreshold',
        alerts.signatureFailureThreshold,
        5,
        1,
      ),
      signatureFailureWindowMs: integer(
        'observability.alerts.signatureFailureWindowMs',
        alerts.signatureFailureWindowMs,
        600_000,
        1,
      ),
      paymentEventThreshold: integer(
        'observability.alerts.paymentEventThreshold',
        alerts.paymentEventThreshold,
        20,
        1,
      ),
    },
    expectDeliveryWithinMs: resolveSilence(options, endpoints),
    sampleCacheMs: integer('observability.sampleCacheMs', options?.sampleCacheMs, 5000, 0),
  };
}
