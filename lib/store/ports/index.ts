export { InboxWriter } from './inbox-writer.interface';
export { InboxWorker } from './inbox-worker.interface';
export { InboxQueries } from './inbox-queries.interface';
export type {
  DeletedEvents,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  SettledEventSelection,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookInboxStats,
} from './inbox-queries.interface';
