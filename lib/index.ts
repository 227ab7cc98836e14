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
 * Everything else has a subpath entry: `/providers` (status clients and their error, constants,
 * native payload types, and the option types again), `/payments` (the payment-state helpers and
 * the list of normalized types), `/observability` (telemetry, alert and
 * health shapes), `/idempotency`, `/testing`, and `/express` (the plain Express adapter: an
 * entry of its own, which loads no Nest package). Provider classes, entity classes, migrations by
 * class name and the engine's internals are not exported. api/*.api.md pins the surface of every
 * entry (`npm run api:check`), and `test/docs/public-surface.e2e-spec.ts` its runtime names from
 * there (at most 38 here besides the endpoint factories, one per provider folder); a new export
 * changes the report on purpose.
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
  WebhookStorageOptions,
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
export type { WebhooksLogger, WebhooksLogLevel } from './telemetry/webhooks-logger';
export { PaymentWebhook } from './nest/payment-webhook.decorator';
export type { PaymentEventType } from './core/payment-event-types';

export * from './providers/endpoints';
export { tenantEndpoint } from './tenants/tenant-endpoint';
export type {
  EndpointFactory,
  TenantEndpoint,
  TenantCacheOptions,
  TenantEndpointOptions,
  TenantLookup,
  TenantRequest,
  TenantResolution,
  TenantSettings,
} from './tenants/tenant-endpoint';
export type { TenantEndpoints } from './tenants/tenant-directory';

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
export type {
  RefusedDelivery,
  WebhookRefusalBody,
  WebhookRefusalKind,
} from './ingress/webhook-refusal';

export { WebhookDispatcher } from './dispatch/webhook.dispatcher';
export { WEBHOOKS_TRANSPORT } from './nest/webhooks.constants';
export type {
  WebhookTransport,
  OpenWebhookTransport,
  WebhookTransportContext,
  WebhookTransportStatus,
  WebhookQueueCounts,
  ClaimedEventProcessor,
} from './dispatch/webhook-transport';
// NOTE: what a transport is opened with (WebhookTransportContext) and returns, for a transport
// of an app's own.
export type { Clock } from './dispatch/clock';
export type { DispatchLogger } from './dispatch/dispatch-logger';
export type { LocalInsertSignal } from './dispatch/inbox-wakeups';
export type { EventLease } from './dispatch/webhook-event.processor';
export type {
  DispatchSettings,
  InlineSettings,
  ResolvedDispatchOptions,
} from './dispatch/dispatch-settings';
export type { HandlerBatchSettings } from './store/ledger/handler-batches';
export type { Settlement } from './dispatch/settlement';
export { WebhookTransactions } from './store/connections/webhook-transactions';
export { ReconciliationService } from './reconciliation/reconciliation';
export type {
  ReconcileOptions,
  ReconciliationReport,
  ReconciliationFailure,
} from './reconciliation/reconciliation';
export { WebhookRecoveries } from './recovery/webhook-recoveries';
// NOTE: a type only: an app reaches the backfills through `WebhookAdmin.backfills`.
export type {
  BackfillJob,
  BackfillScope,
  WebhookBackfillOptions,
  WebhookBackfills,
} from './backfill/webhook-backfills';
export type { RecoveryJob, WebhookRecoveryOptions } from './recovery/webhook-recoveries';
export { PendingPaymentsSource } from './reconciliation/pending-payments.source';
export type {
  PendingPayment,
  PendingPaymentsQuery,
} from './reconciliation/pending-payments.source';
export { WebhookRetention } from './retention/webhook-retention';
export type { RetentionReport } from './retention/webhook-retention';
export type { PurgedIdempotencyRecords } from './idempotency/idempotency-store.port';
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
export type {
  FailureGroupListOptions,
  WebhookDiscardOptions,
  WebhookDiscardReport,
  WebhookOperator,
  WebhookPauseOptions,
  WebhookReplayJobOptions,
} from './admin/webhook-admin.options';
export { WebhookTelemetry } from './telemetry/webhook-telemetry';
export type {
  AttemptRecord,
  DeliveryDecision,
  DeliveryRecord,
  SettledFailure,
  SettledRecord,
  SourceRule,
  WebhookTelemetryListener,
} from './telemetry/webhook-telemetry';
export { WebhooksMetrics } from './observability/webhooks-metrics';
export { WebhooksHealthIndicator } from './observability/webhooks-health.indicator';
export type {
  WebhooksHealthReport,
  WebhooksHealthIndicatorResult,
  WebhooksHealthDetails,
  WebhooksHealthMeasure,
} from './observability/webhooks-health.indicator';
export type { SilentEndpoint } from './observability/inbox-sampler';
export { WebhookAlerts } from './observability/alerts/webhook-alerts';
export type {
  WebhookAlert,
  WebhookAlertListener,
  DeadLetterAlert,
  DispatchPausedAlert,
  EndpointSilentAlert,
  HandlerFailingAlert,
  HandlerRecoveredAlert,
  PaymentEventStormAlert,
  SignatureFailuresAlert,
  WebhookAlertBase,
  WebhookAlertKind,
} from './telemetry/webhook-alert.interface';

export { webhooksMigrations } from './store/schema/migrations';
export type { WebhooksMigrationClass } from './store/schema/migrations';
export { webhookEntities } from './store/schema/entities';
export type { WebhookEntityClass } from './store/schema/entities';
export { WebhookStore } from './store/ports/webhook-store.port';
export type { WebhookEventStatus } from './store/ports/webhook-event-status';
export { InboxWriter, InboxWorker, InboxQueries } from './store/ports';
// NOTE: what the ports' methods take and return, for a store of an app's own; lib/store/ports/index.ts
// is the one list of them.
export type * from './store/ports';
