export { InboxWriter } from './inbox-writer.port';
export { InboxWorker } from './inbox-worker.port';
export { InboxQueries } from './inbox-queries.port';
// NOTE: every type the three ports' signatures name, so an entry that exports a port can export
// what implementing or calling it takes from here.
export type {
  InlineRecordResult,
  NewTransmission,
  NewWebhookEvent,
  RecordResult,
  RecordedTransmission,
} from './inbox-writer.port';
export type {
  ClaimOptions,
  ExpiredLease,
  HandlerRunOutcome,
  HandlerSettlement,
  ProcessedResult,
  ReleaseOptions,
  StoredValues,
} from './inbox-worker.port';
export type { HandlerRunRecord, InboxEvent, WorkLease } from './inbox-event';
export type { InlineEnd, InlineRequest, InlineRun, InlineSession } from './inline-run';
export type {
  DeletedEvents,
  InboxSampleRows,
  PaymentEventTime,
  PrunedPayload,
  RecordedNames,
  SettledEventSelection,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from './inbox-queries.port';
export type {
  DispatchPause,
  DispatchPauseScope,
  EventHistoryEntry,
  EventHistoryKind,
  FailedAttempt,
  FailureGroup,
  FailureGroupFilter,
  NewReplayJob,
  OperatorAction,
  ReplayBatch,
  ReplayJob,
} from './event-history';
