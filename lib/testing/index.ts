export * from '../providers/signed-delivery';
export * from './webhook-test-client';
export * from './settled';
export * from '../providers/catalog/testing-entry';
// NOTE: what settled() reads of the inbox and resolves to, named by its signature.
export type { WebhookEventListOptions } from '../admin/webhook-admin.options';
export type {
  EventHistoryEntry,
  EventHistoryKind,
  FailedAttempt,
  HandlerRunRecord,
  InboxEvent,
  OperatorAction,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WorkLease,
} from '../store/ports';
export type { WebhookEventStatus } from '../store/ports/webhook-event-status';
