import type { Settlement } from '../dispatch/settlement';
import type { InboxEvent } from '../store/ports/inbox-event';
import { shortText } from '../telemetry/safe-text';

/** Longest failure summary a job's `failedReason` carries. */
const MAX_SUMMARY = 1000;

/** A failed attempt's settlement: retried later, or dead. */
export type FailedSettlement = Extract<Settlement, { readonly status: 'retrying' | 'dead' }>;

/**
 * What a webhook job fails with when its attempt failed, after the event's `retrying` or `dead`
 * was committed to the inbox: its message, BullMQ's `failedReason`, is the failure on one line.
 * BullMQ does not run the job again (`attempts: 1`); the inbox hands the next attempt out as a
 * job of its own.
 */
export class FailedAttemptError extends Error {
  override readonly name = 'FailedAttemptError';
  /** What the attempt left the event in. */
  readonly status: FailedSettlement['status'];

  constructor(
    event: Pick<InboxEvent, 'id' | 'endpoint' | 'tenant' | 'eventId'>,
    attempt: number,
    settlement: FailedSettlement,
  ) {
    const label = [event.endpoint, event.tenant, event.eventId].filter((part) => part !== '');
    const then =
      settlement.status === 'retrying'
        ? `retrying at ${settlement.nextAttemptAt.toISOString()}`
        : 'the event is dead';
    super(
      `Event ${event.id} (${shortText(label.join('/'))}) attempt ${attempt} failed: ` +
        `${shortText(settlement.summary, MAX_SUMMARY)}; ${then}`,
    );
    this.status = settlement.status;
    // NOTE: BullMQ keeps the stack beside the reason; the runner's frames would only say where
    // the job ended, not why the handler failed (the inbox's last_error keeps the handler's).
    this.stack = `${this.name}: ${this.message}`;
  }
}
