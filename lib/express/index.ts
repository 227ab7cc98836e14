// NOTE: everything a plain Express app needs, and nothing that loads Nest: this entry must not
// reach lib/index.ts, the Nest module or `@nestjs/*` (a test checks require.cache).
export { createWebhooksRouter } from './webhooks-router';
export type { WebhooksRouter } from './webhooks-router';
export type { WebhooksRouterOptions } from './webhooks-router.options';
export type { WebhooksRouterLogger } from './router-logger';
export type { WebhookAdminRouterOptions } from './admin-router';
export type { RequestHandler, NextFunction } from './delivery-handler';
export type { RouterRequest } from './request-body';

export type { WebhookHandlerDefinition } from '../handlers/webhook-handler.registry';
export type { PaymentEventPattern } from '../handlers/payment-event-pattern';
export type { PaymentEvent, WebhookContext } from '../handlers/payment-event.interface';
export type { WebhooksLogger, WebhooksLogLevel } from '../telemetry/webhooks-logger';
export type {
  WebhooksModuleOptions,
  WebhookDispatchOptions,
  WebhookBatchOptions,
  WebhookInlineOptions,
  WebhookRetryOptions,
  WebhookReconciliationSchedule,
  WebhookRetentionOptions,
  WebhookStorageOptions,
} from '../options/webhooks-module-options.interface';
export type {
  WebhookObservabilityOptions,
  WebhookMetricsOptions,
  WebhookMetricsRegistry,
  WebhookHealthOptions,
  WebhookAlertOptions,
  WebhookJournalFormat,
} from '../options/webhooks-observability-options.interface';
export type {
  WebhookTransport,
  OpenWebhookTransport,
  WebhookTransportContext,
  WebhookTransportStatus,
  WebhookQueueCounts,
  ClaimedEventProcessor,
} from '../dispatch/webhook-transport';
export type { Clock } from '../dispatch/clock';
export type { DispatchLogger } from '../dispatch/dispatch-logger';
export type { LocalInsertSignal } from '../dispatch/inbox-wakeups';
export type { EventLease } from '../dispatch/webhook-event.processor';
export type {
  DispatchSettings,
  InlineSettings,
  ResolvedDispatchOptions,
} from '../dispatch/dispatch-settings';
export type { HandlerBatchSettings } from '../store/ledger/handler-batches';
export type { Settlement } from '../dispatch/settlement';
export { NonRetryableError } from '../dispatch/non-retryable.error';
export type { PaymentEventType } from '../core/payment-event-types';
export {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../core/webhook-errors';
export type { WebhookRejectionReason } from '../core/webhook-errors';

export * from '../providers/catalog/express-entry';
export { defineEndpoint } from '../providers/define-endpoint';
export type { EndpointExtras } from '../providers/define-endpoint';
export type {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  SignedTransmission,
  WebhookAcknowledgement,
  WebhookDeliveryMethod,
  WebhookEndpoint,
  WebhookRecoverySchedule,
  WebhookProvider,
} from '../providers/webhook-provider.interface';
export type {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../providers/payment-status-client.interface';
export type {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from '../providers/event-log.interface';
export type { SourceAllowlist } from '../core/source-allowlist';
export type { ApiCallBudgetOptions } from '../providers/provider-api-calls';
export { tenantEndpoint } from '../tenants/tenant-endpoint';
export type {
  EndpointFactory,
  TenantEndpoint,
  TenantRequest,
  TenantResolution,
  TenantEndpointOptions,
  TenantLookup,
  TenantSettings,
  TenantCacheOptions,
} from '../tenants/tenant-endpoint';
export type { TenantEndpoints } from '../tenants/tenant-directory';

export { webhooksMigrations } from '../store/schema/migrations';
export type { WebhooksMigrationClass } from '../store/schema/migrations';
export type { WebhookTransactions } from '../store/connections/webhook-transactions';
export { webhookEntities } from '../store/schema/entities';
export type { WebhookEntityClass } from '../store/schema/entities';
export type { WebhookEventStatus } from '../store/ports/webhook-event-status';
export type { WebhookStore } from '../store/ports/webhook-store.port';
// NOTE: the ports (types only here: the Express entry loads no token) and what their methods take
// and return, for a store of an app's own; lib/store/ports/index.ts is the one list of them.
export type * from '../store/ports';
export type { PendingPaymentsSource } from '../reconciliation/pending-payments.source';
export type {
  PendingPayment,
  PendingPaymentsQuery,
} from '../reconciliation/pending-payments.source';
export type { WebhookAdmin } from '../admin/webhook-admin';
export type {
  RecoveryJob,
  WebhookRecoveries,
  WebhookRecoveryOptions,
} from '../recovery/webhook-recoveries';
export type {
  BackfillJob,
  BackfillScope,
  WebhookBackfills,
  WebhookBackfillOptions,
} from '../backfill/webhook-backfills';
export type {
  WebhookEventFilter,
  WebhookEventListOptions,
  WebhookEventSummary,
  WebhookReplayOptions,
  WebhookReplayReport,
  WebhookPurgeOptions,
  WebhookInboxStats,
} from '../admin/webhook-admin';
export type {
  FailureGroupListOptions,
  WebhookDiscardOptions,
  WebhookDiscardReport,
  WebhookOperator,
  WebhookPauseOptions,
  WebhookReplayJobOptions,
} from '../admin/webhook-admin.options';
export type {
  WebhooksHealthReport,
  WebhooksHealthDetails,
  WebhooksHealthMeasure,
} from '../observability/webhooks-health.indicator';
export type { SilentEndpoint } from '../observability/inbox-sampler';
export type {
  WebhookAlert,
  WebhookAlertBase,
  WebhookAlertKind,
  DeadLetterAlert,
  DispatchPausedAlert,
  EndpointSilentAlert,
  HandlerFailingAlert,
  HandlerRecoveredAlert,
  PaymentEventStormAlert,
  SignatureFailuresAlert,
} from '../telemetry/webhook-alert.interface';
