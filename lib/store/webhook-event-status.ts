/** Where an inbox event stands. */
export type WebhookEventStatus =
  'pending' | 'processing' | 'retrying' | 'processed' | 'ignored' | 'dead';

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
