import type { EventHistoryEntry, FailureGroup, FailureGroupFilter } from './event-history';
import type { WebhookEventFilter } from './event-filter';
import type { HandlerRunRecord, InboxEvent, WorkLease } from './inbox-event';
import type { WebhookEventStatus } from './webhook-event-status';

/**
 * A stored event without its payload (`rawBody`, `headers`), as lists return it: a list never
 * reads bodies from the database.
 */
export type WebhookEventSummary = Omit<InboxEvent, 'rawBody' | 'headers'> & WorkLease;

/** One stored event with what happened to it. */
export interface WebhookEventDetails {
  /** The inbox row, with its work row's status, attempts and lease while it has one. */
  readonly event: InboxEvent & WorkLease;
  /** The handlers that finished for it, with their attempt and outcome. */
  readonly handlerRuns: readonly HandlerRunRecord[];
  /** Its failed attempts, replays and settlements by hand, oldest first. */
  readonly history: readonly EventHistoryEntry[];
}

/** Counts that tell whether the inbox is healthy. */
export interface WebhookInboxStats {
  /** Events per endpoint and status. */
  readonly counts: readonly { endpoint: string; status: WebhookEventStatus; count: number }[];
  /** When the oldest event still waiting to run (pending or retrying) was received. */
  readonly oldestPendingAt: Date | null;
}

/** What metrics, health and alerts read from the inbox in one sample. */
export interface InboxSampleRows {
  /** Events per endpoint and status, for the statuses asked for. */
  readonly depth: readonly { endpoint: string; status: WebhookEventStatus; count: number }[];
  /** Per endpoint, when its oldest `pending` event was received. */
  readonly oldestPending: readonly { endpoint: string; at: Date }[];
  /** Per endpoint, when its latest event was received (of those received after `since`). */
  readonly latest: readonly { endpoint: string; at: Date }[];
}

/** How many events of one payment were received at one time. */
export interface PaymentEventTime {
  readonly endpoint: string;
  /** The payment reference as asked for (before it was fitted to its column). */
  readonly paymentRef: string;
  readonly receivedAt: Date | null;
  readonly count: number;
}

/** Endpoint names and handler keys, each list sorted, without `*`. */
export interface RecordedNames {
  readonly endpoints: readonly string[];
  readonly handlers: readonly string[];
}

/** What admin, the CLI, metrics, health and alerts read from the inbox. */
export interface EventQueries {
  /** Summaries of the events matching `filter`, newest first, at most `limit`; no payloads. */
  list(filter: WebhookEventFilter, limit: number): Promise<WebhookEventSummary[]>;
  /** How many events match `filter`. */
  count(filter: WebhookEventFilter): Promise<number>;
  /** One event by inbox id with its handler runs (oldest first); null when there is none. */
  find(id: string): Promise<WebhookEventDetails | null>;
  /** Dead and retrying events grouped by failure, the largest groups first, at most `limit`. */
  failureGroups(filter: FailureGroupFilter, limit: number): Promise<FailureGroup[]>;
  /** Counts per endpoint and status, and the oldest event waiting to run. */
  stats(): Promise<WebhookInboxStats>;
  /**
   * One sample for metrics, health and alerts: depth for `statuses`, the oldest pending event
   * and the latest event per endpoint (only among events received after `since`, when given).
   */
  sample(statuses: readonly WebhookEventStatus[], since: Date | null): Promise<InboxSampleRows>;
  /** Per endpoint and receipt time, how many events each of `paymentRefs` has. One statement. */
  paymentEventTimes(paymentRefs: readonly string[]): Promise<PaymentEventTime[]>;
  /** The provider kinds of the stored events (of one endpoint, when given). */
  providerKinds(endpoint?: string): Promise<string[]>;
  /**
   * The endpoint names and handler keys the database records: the endpoints of stored events
   * and pauses; the handlers of handler runs, failed attempts and pauses. Each read in full
   * (the operator's commands read it only for a name the app's configuration does not know).
   */
  recordedNames(): Promise<RecordedNames>;
}
