/** Texts of the answer path's time limit. Each one names the fix. */

/** Where a delivery's write stood when its time ran out. */
export type AnswerStage = 'queued' | 'connection' | 'statement';

/** What a write was waiting for when its time ran out. */
export const WAITING_FOR: Record<AnswerStage, string> = {
  queued: 'it was queued behind earlier writes that had not finished',
  connection:
    'it was waiting for a database connection (on SQLite, for a handler transaction to end)',
  statement:
    "its statement was held back by a lock on webhook_events or another connection's write transaction",
};

export const STORE_TIMEOUT = (timeoutMs: number, stage: AnswerStage) =>
  `The delivery was not stored within ${timeoutMs} ms (storeTimeoutMs), so it was answered 503 ` +
  `for the provider to retry: ${WAITING_FOR[stage]}. Look for long transactions and locks on ` +
  'webhook_events, or raise storeTimeoutMs.';
