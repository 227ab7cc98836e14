// @ts-check
// An event's status as the CLI says it, shared by the events list and the event's facts.

/**
 * Whether the event waits on a pause of dispatch: the store parks it at the far future
 * (PARKED_UNTIL in lib/store/ports/webhook-event-status.ts), as the CLI reads it too.
 * @param {import('./admin-api.js').EventView} event
 */
export function isParked(event) {
  return typeof event.nextAttemptAt === 'string' && event.nextAttemptAt.startsWith('9999-12-31');
}

/**
 * The event's status as the CLI prints it: `pending (paused)` for one held by a pause.
 * @param {import('./admin-api.js').EventView} event
 */
export function statusText(event) {
  return isParked(event) ? `${event.status} (paused)` : event.status;
}
