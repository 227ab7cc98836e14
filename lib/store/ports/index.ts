export { InboxWriter } from './inbox-writer.port';
export { InboxWorker } from './inbox-worker.port';
export { InboxQueries } from './inbox-queries.port';
export type {
  DeletedEvents,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  RecordedNames,
  SettledEventSelection,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookInboxStats,
} from './inbox-queries.port';
export type {
  DispatchPause,
  DispatchPauseScope,
  EventHistoryEntry,
  FailedAttempt,
  FailureGroup,
  FailureGroupFilter,
  OperatorAction,
} from './event-history';
