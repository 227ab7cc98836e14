import type { EventQueries } from './event-queries.port';
import type { OperatorActions } from './operator-actions.port';
import type { PauseQueries } from './pause-queries.port';
import type { BackfillJobs } from './backfill-jobs.port';
import type { RecoveryJobs } from './recovery-jobs.port';
import type { ReplayJobs } from './replay-jobs.port';
import type { RetentionQueries } from './retention-queries.port';

export type { WebhookEventFilter } from './event-filter';
export type {
  InboxSampleRows,
  PaymentEventTime,
  RecordedNames,
  WebhookEventDetails,
  WebhookEventSummary,
  WebhookInboxStats,
} from './event-queries.port';
export type { SettledEventSelection } from './operator-actions.port';
export type { DeletedEvents, PrunedPayload } from './retention-queries.port';

/**
 * Reads and operator changes on the inbox: admin, CLI, metrics, retention, replays in the
 * background. Each call is its own short transaction (or single statement), serialized with the
 * package's writes on SQLite. Values too long for their column are looked for in the form they
 * were stored in. The parts that use it each take the port they need.
 */
export interface InboxQueries
  extends EventQueries, OperatorActions, PauseQueries, ReplayJobs, RetentionQueries {
  /**
   * Recoveries from providers' event logs; a store without them cannot recover (the admin and
   * CLI say so).
   * @default none
   */
  readonly recoveries?: RecoveryJobs;
  /**
   * Backfills of one handler over stored events; a store without them cannot backfill (the
   * admin and CLI say so).
   * @default none
   */
  readonly backfills?: BackfillJobs;
}

/** Injection token for the {@link InboxQueries}. */
export const InboxQueries = Symbol('InboxQueries');
