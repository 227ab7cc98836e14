import type { FailedAttempt } from './event-history';

/** What the dispatcher learned while handling an event, kept on the event. */
export interface ProcessedResult {
  /** The handlers' reported outcomes, or the dispatcher's own (`provider_disagrees`). */
  outcome?: string | null;
  /** The status the provider's API returned. */
  providerStatus?: string | null;
}

/** How an event's attempt ends: processed, ignored, retried later, or dead. */
export interface EventOutcomes {
  /** Marks a held event processed. */
  markProcessed(
    id: string,
    workerId: string,
    now: Date,
    result?: ProcessedResult,
  ): Promise<boolean>;
  /** Marks a held event ignored (no handler wants it). */
  markIgnored(id: string, workerId: string, now: Date): Promise<boolean>;
  /** Puts a held event back for a later attempt, recording its `failed` attempts. */
  scheduleRetry(
    id: string,
    workerId: string,
    nextAttemptAt: Date,
    error: string,
    result?: ProcessedResult,
    failed?: readonly FailedAttempt[],
  ): Promise<boolean>;
  /** Moves a held event to the dead-letter state, recording its `failed` attempts. */
  markDead(
    id: string,
    workerId: string,
    error: string,
    failed?: readonly FailedAttempt[],
  ): Promise<boolean>;
}
