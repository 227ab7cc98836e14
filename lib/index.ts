/**
 * The root entry: what an app names to wire the module, write a handler and inject the
 * module's services. That is the module and its options token, the decorators, the admin
 * routes' ready-made guard, the endpoint
 * factories with the contract a custom provider implements, the injectable services, the
 * schema (`webhooksMigrations`, `webhookEntities`), the store tokens, the normalized event
 * type, the errors an app throws or catches (handler errors, configuration and verification
 * errors, and the HTTP exceptions its exception filters see), and the types those values take
 * and return. A type belongs here when a root value's options or results name it.
 *
 * Everything else has a subpath entry: `/providers` (per-provider option types, status clients
 * and their error, constants), `/payments` (the payment-state helpers and the list of normalized
 * types), `/observability` (telemetry, alert and
 * health shapes), `/idempotency`, `/testing`, and `/express` (the plain Express adapter: an
 * entry of its own, which loads no Nest package). Provider classes, entity classes, migrations by
 * class name and the engine's internals are not exported. `test/docs/public-surface.e2e-spec.ts`
 * pins the runtime names of every entry (at most 38 here besides the endpoint factories, one
 * per provider folder); a new export changes that list on purpose.
 */
export { WebhooksModule } from './nest/webhooks.module';
export { WEBHOOKS_MODULE_OPTIONS } from './nest/webhooks.module-definition';
export type {
  WebhooksModuleOptions,
  WebhookDispatchOptions,
  WebhookBatchOptions,
  WebhookInlineOptions,
  WebhookRetryOptions,
  WebhookReconciliationSchedule,
  WebhookRetentionOptions,
} from './options/webhooks-module-options.interface';
export type {
  WebhookObservabilityOptions,
  WebhookMetricsOptions,
  WebhookMetricsRegistry,
  WebhookHealthOptions,
  WebhookAlertOptions,
  WebhookJournalFormat,
} from './options/webhooks-observability-options.interface';
export type {
  WebhooksModuleExtras,
  WebhookAdminRoutesOptions,
} from './nest/webhooks-module-extras';

export { OnPaymentEvent } from './nest/on-payment-event.decorator';
export type { OnPaymentEventOptions, PaymentEventPattern } from './nest/on-payment-event.decorator';
export type { PaymentEvent, WebhookContext } from './handlers/payment-event.interface';
export { PaymentWebhook } from './nest/payment-webhook.decorator';
export type { PaymentEventType } from './core/payment-event-types';

export * from './providers/endpoints';
export { tenantEndpoint } from './tenants/tenant-endpoint';
export type {
  EndpointFactory,
  TenantCacheOptions,
  TenantEndpointOptions,
  TenantLookup,
  TenantRequest,
  TenantResolution,
  TenantSettings,
} from './tenants/tenant-endpoint';

export { NonRetryableError } from './dispatch/non-retryable.error';
export {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from './core/webhook-errors';
export type { WebhookRejectionReason } from './core/webhook-errors';
export {
  WebhookRefusalException,
  WebhookSignatureException,
  WebhookPayloadException,
  UnknownWebhookEndpointException,
  WebhookTooLargeException,
  WebhookStoreUnavailableException,
  RawBodyUnavailableException,
  UnsupportedWebhookMediaTypeException,
  WebhookSourceForbiddenException,
} from './nest/webhook-ingress.exceptions';

export { WebhookDispatcher } from './dispatch/webhook.dispatcher';
export { WEBHOOKS_TRANSPORT } from './nest/webhooks.constants';
export type {
  WebhookTransport,
  OpenWebhookTransport,
  WebhookTransportContext,
  WebhookTransportStatus,
  WebhookQueueCounts,
} from './dispatch/webhook-transport';
export { WebhookTransactions } from './store/connections/webhook-transactions';
export { ReconciliationService } from './reconciliation/reconciliation';
export type {
  ReconcileOptions,
  ReconciliationReport,
  ReconciliationFailure,
} from './reconciliation/reconciliation';
export { PendingPaymentsSource } from './reconciliation/pending-payments.source';
export type {
  PendingPayment,
  PendingPaymentsQuery,
} from './reconciliation/pending-payments.source';
export { WebhookRetention } from './retention/webhook-retention';
export type { RetentionReport } from './retention/webhook-retention';
export { WebhookAdmin } from './admin/webhook-admin';
export { AdminBasicAuthGuard } from './nest/admin-basic-auth.guard';
export type { AdminBasicAuthOptions } from './nest/admin-basic-auth.guard';
export type {
  WebhookEventFilter,
  WebhookEventListOptions,
  WebhookEventSummary,
  WebhookEventDetails,
  WebhookReplayOptions,
  WebhookReplayReport,
  WebhookPurgeOptions,
  WebhookInboxStats,
} from './admin/webhook-admin';
export { WebhookTelemetry } from './telemetry/webhook-telemetry';
export type { WebhookTelemetryListener } from './telemetry/webhook-telemetry';
export { WebhooksMetrics } from './observability/webhooks-metrics';
export { WebhooksHealthIndicator } from './observability/webhooks-health.indicator';
export type {
  WebhooksHealthReport,
  WebhooksHealthIndicatorResult,
} from './observability/webhooks-health.indicator';
export { WebhookAlerts } from './observability/alerts/webhook-alerts';
export type { WebhookAlert, WebhookAlertListener } from './telemetry/webhook-alert.interface';

export { webhooksMigrations } from './store/schema/migrations';
export { webhookEntities } from './store/schema/entities';
export { WebhookStore } from './store/ports/webhook-store.port';
export type { NewWebhookEvent, RecordResult } from './store/ports/inbox-writer.port';
export type { ProcessedResult } from './store/ports/inbox-worker.port';
export type { WebhookEventStatus } from './store/ports/webhook-event-status';
export { InboxWriter, InboxWorker, InboxQueries } from './store/ports';
export type {
  EventOutcomes,
  EventQueries,
  OperatorActions,
  PauseQueries,
  ReplayJobs,
  RetentionQueries,
  RunLedger,
  WorkQueue,
} from './store/ports';
export type {
  DeletedEvents,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  RecordedNames,
  SettledEventSelection,
} from './store/ports';
