export { WebhooksModule } from './webhooks.module';
export { WEBHOOKS_MODULE_OPTIONS } from './webhooks.module-definition';
export type {
  WebhooksModuleOptions,
  WebhooksModuleExtras,
  WebhookDispatchOptions,
  WebhookRetryOptions,
  WebhookReconciliationSchedule,
} from './interfaces/webhooks-module-options.interface';
export type { PaymentEvent, WebhookContext } from './interfaces/payment-event.interface';

export { OnPaymentEvent } from './handlers/on-payment-event.decorator';
export type {
  OnPaymentEventOptions,
  PaymentEventPattern,
} from './handlers/on-payment-event.decorator';
export { NonRetryableError } from './dispatch/non-retryable.error';
export { PaymentWebhook } from './ingress/payment-webhook.decorator';
export { WebhookDispatcher } from './dispatch/webhook.dispatcher';

export { PAYMENT_EVENT_TYPES, isPaymentEventType } from './core/payment-event-types';
export type { PaymentEventType } from './core/payment-event-types';
export {
  ProviderStatusError,
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from './core/webhook-errors';
export type { WebhookRejectionReason, ProviderStatusFailure } from './core/webhook-errors';

export * from './providers';

export { WebhookStore } from './store/webhook-store.interface';
export type {
  NewWebhookEvent,
  RecordResult,
  ProcessedResult,
} from './store/webhook-store.interface';
export type { WebhookEventStatus } from './store/webhook-event-status';
export { WebhookEventEntity, WebhookHandlerRunEntity, webhookEntities } from './store/entities';
export {
  webhooksMigrations,
  CreateWebhooksTables1764400000000,
  AddEventOutcomes1764500000000,
} from './store/migrations';
export { WebhookTransactions } from './store/webhook-transactions.service';

export { ReconciliationService } from './reconciliation/reconciliation.service';
export type {
  ReconcileOptions,
  ReconciliationReport,
  ReconciliationFailure,
} from './reconciliation/reconciliation.service';
export { PendingPaymentsSource } from './reconciliation/pending-payments.source';
export type {
  PendingPayment,
  PendingPaymentsQuery,
} from './reconciliation/pending-payments.source';

export { WebhookTelemetry } from './observability/webhook-telemetry';
export type {
  DeliveryDecision,
  DeliveryRecord,
  AttemptRecord,
  SettledRecord,
  WebhookTelemetryListener,
} from './observability/webhook-telemetry';
export { redact } from './observability/redact';
export { WebhooksMetrics } from './observability/webhooks-metrics';
export { WebhooksHealthIndicator } from './observability/webhooks-health.indicator';
export type {
  WebhooksHealthReport,
  WebhooksHealthDetails,
  WebhooksHealthMeasure,
  WebhooksHealthIndicatorResult,
} from './observability/webhooks-health.indicator';
export type { SilentEndpoint } from './observability/inbox-sampler';
export { WebhookAlerts } from './observability/webhook-alerts';
export type {
  WebhookAlert,
  WebhookAlertKind,
  WebhookAlertListener,
  DeadLetterAlert,
  SignatureFailuresAlert,
  EndpointSilentAlert,
  PaymentEventStormAlert,
} from './observability/webhook-alert.interface';
export type {
  WebhookObservabilityOptions,
  WebhookMetricsOptions,
  WebhookMetricsRegistry,
  WebhookHealthOptions,
  WebhookAlertOptions,
} from './observability/webhooks-observability-options.interface';

export { WebhookRetention } from './retention/webhook-retention.service';
export type { RetentionReport } from './retention/webhook-retention.service';
export type { WebhookRetentionOptions } from './interfaces/webhooks-module-options.interface';
export { PROVIDER_RETRY_HORIZONS, MIN_DEDUP_DAYS } from './retention/provider-retry-horizons';
export type { ProviderRetryHorizon } from './retention/provider-retry-horizons';

export { WebhookAdmin } from './admin/webhook-admin.service';
export type { WebhookAdminRoutesOptions } from './admin/webhook-admin.controller';
export type {
  WebhookEventFilter,
  WebhookEventListOptions,
  WebhookEventDetails,
  WebhookReplayOptions,
  WebhookReplayReport,
  WebhookPurgeOptions,
  WebhookInboxStats,
} from './admin/webhook-admin.service';

export {
  WebhookSignatureException,
  WebhookPayloadException,
  UnknownWebhookEndpointException,
  WebhookTooLargeException,
  WebhookStoreUnavailableException,
  RawBodyUnavailableException,
  UnsupportedWebhookMediaTypeException,
  WebhookSourceForbiddenException,
} from './ingress/webhook-ingress.exceptions';

export * from './payments';

export * from './idempotency/root-exports.deprecated';
