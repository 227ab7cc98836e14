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
  EventHistoryEntry,
  FailedAttempt,
  FailureGroup,
  FailureGroupFilter,
  OperatorAction,
} from './event-history';
export type { DispatchPause, DispatchPauseScope } from './pause-queries.port';
// NOTE: the ports each role of a store implements; InboxWorker and InboxQueries compose them.
export type { WorkQueue } from './work-queue.port';
export type { RunLedger } from './run-ledger.port';
export type { EventOutcomes } from './event-outcomes.port';
export type { EventQueries } from './event-queries.port';
export type { OperatorActions } from './operator-actions.port';
export type { PauseQueries } from './pause-queries.port';
export type { ReplayJobs } from './replay-jobs.port';
export type { RetentionQueries } from './retention-queries.port';
