import { Type } from '@nestjs/common';
import type { WebhookObservabilityOptions } from './webhooks-observability-options.interface';
import { alertsConfigured, metricsConfigured } from './observability-options.resolver';
import { WebhookAlertMonitor } from './webhook-alert.monitor';
import { WebhookAlerts } from './webhook-alerts';
import { WebhooksMetrics } from './webhooks-metrics';

/** The observability parts that exist only when configured, and those of them users inject. */
export interface OptionalObservabilityParts {
  readonly providers: Type<unknown>[];
  readonly exports: Type<unknown>[];
}

/**
 * Metrics (`WebhooksMetrics`) when `observability.metrics` is on; alerts (`WebhookAlerts` and
 * the monitor behind them) when `observability.alerts` or `expectDeliveryWithin` is given.
 * Options known only at startup (`forRootAsync()`) register both, and each then stays idle
 * (no registry, no subscription, no timer) when the options turn it off.
 * @param observability `undefined` with `known: false` when the options come from a factory.
 */
export function optionalObservabilityParts(
  observability: WebhookObservabilityOptions | undefined,
  known: boolean,
): OptionalObservabilityParts {
  const metrics = !known || metricsConfigured(observability);
  const alerts = !known || alertsConfigured(observability);
  return {
    providers: [
      ...(metrics ? [WebhooksMetrics] : []),
      ...(alerts ? [WebhookAlerts, WebhookAlertMonitor] : []),
    ],
    exports: [...(metrics ? [WebhooksMetrics] : []), ...(alerts ? [WebhookAlerts] : [])],
  };
}
