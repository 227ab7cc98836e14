import type { WebhookObservabilityOptions } from '../options/webhooks-observability-options.interface';
import { alertsConfigured, metricsConfigured } from '../options/observability-options.resolver';

/** Which optional observability parts the module registers as providers. */
export interface OptionalObservabilityParts {
  /** `WebhooksMetrics`. */
  readonly metrics: boolean;
  /** `WebhookAlerts`. */
  readonly alerts: boolean;
}

/**
 * Metrics (`WebhooksMetrics`) when `observability.metrics` is on; alerts (`WebhookAlerts`)
 * when `observability.alerts` or `expectDeliveryWithinMs` is given. Options known only at startup
 * (`forRootAsync()`) register both, and each then stays idle (no registry, no subscription, no
 * timer) when the options turn it off.
 * @param observability `undefined` with `known: false` when the options come from a factory.
 */
export function optionalObservabilityParts(
  observability: WebhookObservabilityOptions | undefined,
  known: boolean,
): OptionalObservabilityParts {
  return {
    metrics: !known || metricsConfigured(observability),
    alerts: !known || alertsConfigured(observability),
  };
}
