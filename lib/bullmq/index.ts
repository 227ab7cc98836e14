export { bullmqTransport, BullmqWebhookTransport } from './bullmq.transport';
export type { BullmqTransportOptions } from './bullmq-transport.options';
export { WEBHOOK_JOB_NAME, webhookJobId } from './webhook-job';
export type { WebhookJobData, WebhookJobLike } from './webhook-job';
export type { WebhookJobResult } from './webhook-job.runner';
// NOTE: what bullmqTransport() returns and the transport it opens implements.
export type {
  ClaimedEventProcessor,
  OpenWebhookTransport,
  WebhookQueueCounts,
  WebhookTransport,
  WebhookTransportContext,
  WebhookTransportStatus,
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
export type {
  InboxWorker,
  ClaimOptions,
  ExpiredLease,
  FailedAttempt,
  HandlerRunOutcome,
  HandlerRunRecord,
  HandlerSettlement,
  InboxEvent,
  ProcessedResult,
  ReleaseOptions,
  StoredValues,
  WorkLease,
  DispatchPause,
  DispatchPauseScope,
  EventOutcomes,
  PauseQueries,
  RunLedger,
  WorkQueue,
} from '../store/ports';
export type { WebhookEventStatus } from '../store/ports/webhook-event-status';
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
export type { PaymentEventType } from '../core/payment-event-types';
