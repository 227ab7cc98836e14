/** Error texts of metrics, health and alerts. Each one says what went wrong and how to fix it. */

export const PROM_CLIENT_MISSING =
  'WebhooksModule option `observability.metrics` is on, but the optional peer dependency ' +
  '`prom-client` is not installed: run `npm i prom-client`, or turn metrics off.';

export const METRICS_DISABLED =
  'Webhook metrics are off: set `observability: { metrics: true }` in WebhooksModule.forRoot() ' +
  '(and `npm i prom-client`) before serving WebhooksMetrics.metrics().';

export const METRIC_ALREADY_REGISTERED = (name: string) =>
  `A metric named "${name}" is already registered in the prom-client registry: another ` +
  'WebhooksModule (or your own code) registered it in the same process. Give each module its own ' +
  '`observability.metrics.registry` or `prefix`, or close the other application first.';
