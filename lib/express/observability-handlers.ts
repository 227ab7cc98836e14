import { WebhooksHealthReport } from '../observability/webhooks-health.indicator';
import { WebhooksMetrics } from '../observability/webhooks-metrics';
import { RequestHandler } from './delivery-handler';
import { METRICS_OFF } from './express.messages';
import { errorBody, writeJson, writeText } from './http-answer';

/** Answers the health report as JSON: 200 when up, 503 when down. */
export function healthHandler(check: () => Promise<WebhooksHealthReport>): RequestHandler {
  return (_request, response, next) => {
    check()
      .then((report) => writeJson(response, report.status === 'up' ? 200 : 503, report))
      .catch(next);
  };
}

/** Answers the Prometheus text exposition, or 404 naming the option while metrics are off. */
export function metricsHandler(metrics: WebhooksMetrics): RequestHandler {
  return (_request, response, next) => {
    if (!metrics.enabled) {
      writeJson(response, 404, errorBody(404, METRICS_OFF));
      return;
    }
    metrics
      .metrics()
      .then((text) => writeText(response, 200, metrics.contentType, text))
      .catch(next);
  };
}
