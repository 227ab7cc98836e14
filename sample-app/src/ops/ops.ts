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
 * `alerts: {}`).
 */
export const shopObservability: WebhookObservabilityOptions = { metrics: true, alerts: {} };
