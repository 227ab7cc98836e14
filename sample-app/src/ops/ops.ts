import { TerminusModule } from '@nestjs/terminus';
import type { WebhookObservabilityOptions } from 'nestjs-payment-webhooks';
import { HealthController } from './health.controller';
import { MetricsController } from './metrics.controller';

/** What the shop's operations routes need imported: terminus for `GET /health`. */
export const opsImports = [TerminusModule.forRoot({ errorLogStyle: 'pretty' })];

/** `GET /metrics` and `GET /health`. */
export const opsControllers = [MetricsController, HealthController];

/**
 * The webhook module's observability in the shop: Prometheus metrics on prom-client's default
 * registry, the default health thresholds, alerts in the log (on with their default thresholds:
 * `alerts: {}`), and the delivery journal as one `key=value` line per delivery (the shop logs
 * through Nest's `ConsoleLogger`, which would format an object with `util.inspect`).
 */
export const shopObservability: WebhookObservabilityOptions = {
  metrics: true,
  alerts: {},
  journal: 'line',
};
