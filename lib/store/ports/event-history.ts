import type { WebhookEventFilter } from './event-filter';

/** What a history row records: a failed attempt, a replay, or a settlement by hand. */
export type EventHistoryKind = 'attempt' | 'replay' | 'settle' | 'recover' | 'backfill';

/** One failed attempt, as the dispatcher hands it to the settlement that records it. */
export interface FailedAttempt {
  /** The handler that failed; null when the event failed before its handlers ran. */
  readonly handlerKey: string | null;
  readonly attempt: number;
  readonly startedAt: Date;
  readonly finishedAt: Date;
  /** The error's class name. */
  readonly errorClass: string;
  /** The error's message and first frames. */
  readonly error: string;
  /** What failures of one cause share (see `errorFingerprint()`). */
  readonly fingerprint: string;
  readonly worker: string;
}

/** Who made an operator's change, and why or with which filter. */
export interface OperatorAction {
  /** The admin caller or the CLI's user; null when nobody was named. */
  readonly actor?: string | null;
  /** A replay's filter (kept as JSON), or a settlement's reason. */
  readonly detail?: string | null;
  /**
   * When the change is made, as the history keeps it: for a replay with a rate, the time its
   * pace let it through.
   * @default now
   */
  readonly at?: Date;
}

/** One entry of an event's history, as `find()` returns it. */
export interface EventHistoryEntry {
  readonly kind: EventHistoryKind;
  /** When the attempt started, or when the change was made. */
  readonly at: Date;
  readonly finishedAt: Date | null;
  readonly attempt: number | null;
  readonly handlerKey: string | null;
  /** See `WebhookHistoryEntity.outcome`. */
  readonly outcome: string;
  readonly errorClass: string | null;
  readonly error: string | null;
  readonly fingerprint: string | null;
  readonly worker: string | null;
  readonly actor: string | null;
  readonly detail: string | null;
}

/**
 * Dead or retrying events that failed for one cause: the same endpoint, handler and error
 * fingerprint on their latest attempt.
 */
export interface FailureGroup {
  readonly endpoint: string;
  /** Null when the events failed before their handlers ran. */
  readonly handlerKey: string | null;
  readonly fingerprint: string;
  readonly errorClass: string | null;
  /** Events in the group now, and how many of them are dead. */
  readonly count: number;
  readonly dead: number;
  /** When the first and the latest of its failures happened. */
  readonly firstSeen: Date;
  readonly lastSeen: Date;
  /** The latest failing event: its inbox id and its error. */
  readonly sampleId: string;
  readonly sampleError: string | null;
}

/** Which failure groups to read. */
export interface FailureGroupFilter extends Pick<WebhookEventFilter, 'endpoint' | 'tenant'> {
  /** Handler key, exactly. */
  readonly handler?: string;
  /** Text the error contains (case-insensitive). */
  readonly error?: string;
  /** One group by its fingerprint. */
  readonly fingerprint?: string;
  /** Only dead events, or only retrying ones; both when left out. */
  readonly status?: 'dead' | 'retrying';
}
