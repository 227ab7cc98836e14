/** Where an inbox event stands. */
export type WebhookEventStatus =
  'pending' | 'processing' | 'retrying' | 'processed' | 'ignored' | 'dead';

/** The statuses of an event with a work row: still to run, running, retrying, or dead. */
export type WebhookWorkStatus = Extract<
  WebhookEventStatus,
  'pending' | 'processing' | 'retrying' | 'dead'
>;

/** The statuses an event has while it has a work row. */
export const WORK_STATUSES: readonly WebhookEventStatus[] = [
  'pending',
  'processing',
  'retrying',
  'dead',
];

/** Every status an event can have. */
export const WEBHOOK_EVENT_STATUSES: readonly WebhookEventStatus[] = [
  'pending',
  'processing',
  'retrying',
  'processed',
  'ignored',
  'dead',
];

/** The statuses a replay puts back: `processing` belongs to a worker, `pending` already waits. */
export const REPLAYABLE_STATUSES: readonly WebhookEventStatus[] = [
  'processed',
  'ignored',
  'dead',
  'retrying',
];

/**
 * The due time of an event a pause holds: claims never reach it, and lifting the pause makes
 * the event due now.
 */
export const PARKED_UNTIL = new Date('9999-12-31T00:00:00.000Z');

/** Whether a due time is a pause's (see {@link PARKED_UNTIL}). */
export function isParked(dueAt: Date | null | undefined): boolean {
  return dueAt != null && dueAt.getTime() >= PARKED_UNTIL.getTime();
}
