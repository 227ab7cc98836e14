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
  EventHistoryEntry,
  EventHistoryKind,
  FailedAttempt,
  FailureGroup,
  FailureGroupFilter,
  OperatorAction,
} from './event-history';
export type { DispatchPause, DispatchPauseScope } from './pause-queries.port';
export type { NewReplayJob, ReplayBatch, ReplayJob } from './replay-jobs.port';
export type {
  BackfillFailure,
  BackfillJob,
  BackfillScope,
  BackfillState,
  BackfillStep,
  NewBackfillJob,
} from './backfill-jobs.port';
export type { NewRecoveryJob, RecoveredPage, RecoveryJob } from './recovery-jobs.port';
// NOTE: the ports each role of a store implements; InboxWorker and InboxQueries compose them.
export type { WorkQueue } from './work-queue.port';
export type { RunLedger } from './run-ledger.port';
export type { EventOutcomes } from './event-outcomes.port';
export type { EventQueries } from './event-queries.port';
export type { OperatorActions } from './operator-actions.port';
export type { PauseQueries } from './pause-queries.port';
export type { ReplayJobs } from './replay-jobs.port';
export type { BackfillJobs } from './backfill-jobs.port';
export type { RecoveryJobs } from './recovery-jobs.port';
export type { RetentionQueries } from './retention-queries.port';
