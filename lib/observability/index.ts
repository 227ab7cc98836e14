/**
 * `nestjs-payment-webhooks/observability`: the shapes a telemetry or alert listener and a health
 * check read, for code that names them (the services themselves, `WebhookTelemetry`,
 * `WebhookAlerts`, `WebhooksMetrics` and `WebhooksHealthIndicator`, are in the root entry).
 */
export type {
  DeliveryDecision,
  DeliveryRecord,
  AttemptRecord,
  SettledRecord,
  SourceRule,
  SettledFailure,
} from '../telemetry/webhook-telemetry';
export type {
  WebhookAlertKind,
  DeadLetterAlert,
  SignatureFailuresAlert,
  EndpointSilentAlert,
  PaymentEventStormAlert,
  WebhookAlertBase,
} from '../telemetry/webhook-alert.interface';
export type { DispatchPause } from '../store/ports';
export type { WebhookTransportStatus, WebhookQueueCounts } from '../dispatch/webhook-transport';
export type { WebhooksHealthDetails, WebhooksHealthMeasure } from './webhooks-health.indicator';
export type { SilentEndpoint } from './inbox-sampler';
