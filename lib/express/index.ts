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
export type {
  WebhooksModuleOptions,
  WebhookDispatchOptions,
  WebhookRetryOptions,
  WebhookReconciliationSchedule,
  WebhookRetentionOptions,
} from '../options/webhooks-module-options.interface';
export type { WebhookObservabilityOptions } from '../options/webhooks-observability-options.interface';
export { NonRetryableError } from '../dispatch/non-retryable.error';
export type { PaymentEventType } from '../core/payment-event-types';
export {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../core/webhook-errors';

export * from '../providers/catalog/express-entry';
export { defineEndpoint } from '../providers/define-endpoint';
export type { EndpointExtras } from '../providers/define-endpoint';
export type { WebhookEndpoint, WebhookProvider } from '../providers/webhook-provider.interface';
export { tenantEndpoint } from '../tenants/tenant-endpoint';
export type {
  EndpointFactory,
  TenantEndpointOptions,
  TenantLookup,
  TenantSettings,
} from '../tenants/tenant-endpoint';

export { webhooksMigrations } from '../store/schema/migrations';
export type { WebhookTransactions } from '../store/connections/webhook-transactions';
export { webhookEntities } from '../store/schema/entities';
export type { WebhookEventStatus } from '../store/ports/webhook-event-status';
export type { WebhookStore } from '../store/ports/webhook-store.port';
export type { InboxWriter } from '../store/ports/inbox-writer.port';
export type { InboxWorker } from '../store/ports/inbox-worker.port';
export type { InboxQueries } from '../store/ports/inbox-queries.port';
export type {
  EventOutcomes,
  EventQueries,
  OperatorActions,
  PauseQueries,
  ReplayJobs,
  RetentionQueries,
  RunLedger,
  WorkQueue,
} from '../store/ports';
export type { PendingPaymentsSource } from '../reconciliation/pending-payments.source';
export type {
  PendingPayment,
  PendingPaymentsQuery,
} from '../reconciliation/pending-payments.source';
export type { WebhookAdmin } from '../admin/webhook-admin';
export type {
  WebhookEventFilter,
  WebhookEventListOptions,
  WebhookEventSummary,
  WebhookReplayReport,
  WebhookInboxStats,
} from '../admin/webhook-admin';
export type { WebhooksHealthReport } from '../observability/webhooks-health.indicator';
