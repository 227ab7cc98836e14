// @ts-check
// The admin routes the page reads and changes the inbox through, and the shapes they answer.
// Every change is a same-origin fetch POST with Content-Type: application/json: the routes
// refuse any other write, so a page on another site cannot make one with the operator's cookie.

/**
 * What `JSON.parse` gives back of a `T` the admin routes answer with: its dates as ISO strings.
 * @template T
 * @typedef {T extends Date
 *   ? string
 *   : T extends readonly (infer U)[]
 *     ? readonly Wire<U>[]
 *     : T extends object
 *       ? { readonly [K in keyof T]: Wire<T[K]> }
 *       : T} Wire
 */

/** @typedef {Wire<import('../../store/ports/inbox-queries.port').WebhookEventSummary>} EventView */
/** @typedef {Wire<import('../admin-event-view').WebhookAdminEventWithBody>} EventWithBody */
/** @typedef {Wire<import('../../store/ports/inbox-event').HandlerRunRecord>} HandlerRun */
/** @typedef {Wire<import('../../store/ports/event-history').EventHistoryEntry>} HistoryEntry */
/** @typedef {Wire<import('../../store/ports/event-history').FailureGroup>} FailureGroup */
/** @typedef {Wire<import('../../store/ports/pause-queries.port').DispatchPause>} DispatchPause */
/** @typedef {import('../../store/ports/pause-queries.port').DispatchPauseScope} DispatchPauseScope */
/** @typedef {Wire<import('../../store/ports/replay-jobs.port').ReplayJob>} ReplayJob */
/** @typedef {Wire<import('../../store/ports/recovery-jobs.port').RecoveryJob>} RecoveryJob */
/** @typedef {Wire<import('../../store/ports/backfill-jobs.port').BackfillJob>} BackfillJob */
/** @typedef {Wire<import('../../store/ports/event-queries.port').WebhookInboxStats>} InboxStats */
/** @typedef {import('../webhook-admin.options').WebhookReplayReport} ReplayReport */
/** @typedef {import('../webhook-admin.options').WebhookDiscardReport} DiscardReport */

// NOTE: the activity's shapes are written out here rather than imported from
// lib/observability/activity-recorder.ts: its module reaches the logger, which needs Node's types.

/** @typedef {{ count: number, p50: number, p95: number, max: number }} LatencySummary */

/**
 * What this process answered and ran in one minute (ActivityMinute in activity-recorder.ts).
 * @typedef {object} ActivityMinute
 * @property {string} start the minute's first millisecond
 * @property {Readonly<Record<string, number>>} deliveries deliveries answered, by decision
 * @property {LatencySummary | null} answerMs
 * @property {number} handlerRuns
 * @property {number} handlerFailures
 * @property {LatencySummary | null} handlerMs
 */

/**
 * The last hour of this process, minute by minute (ActivitySnapshot in activity-recorder.ts).
 * @typedef {{ scope: 'process', recordingSince: string, minutes: readonly ActivityMinute[] }}
 *   Activity
 */

/**
 * What `GET events/:id` answers; the event has its headers and body with `include=body`.
 * @template {EventView} E
 * @typedef {{ event: E, handlerRuns: readonly HandlerRun[], history: readonly HistoryEntry[] }}
 *   EventDetails
 */

/** @typedef {{ paused: boolean, endpoint: string, handler: string }} PauseAnswer */
/** @typedef {{ resumed: number, endpoint: string, handler: string }} ResumeAnswer */

/**
 * The query of a filter: keys left out when they have no value.
 * @typedef {Record<string, string | number | undefined | null>} QueryValues
 */

/** The admin routes' path: the page is `{admin}/inbox`. */
const BASE = location.pathname.replace(/\/inbox\/?$/, '');

/**
 * GET `path` under the admin routes, or POST `body` as JSON; the answer's JSON.
 * @param {string} path
 * @param {unknown} [body]
 * @returns {Promise<unknown>}
 */
async function request(path, body) {
  /** @type {RequestInit & { headers: Record<string, string> }} */
  const init = { credentials: 'same-origin', headers: { accept: 'application/json' } };
  if (body !== undefined) {
    init.method = 'POST';
    init.headers['content-type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(`${BASE}/${path}`, init);
  const text = await response.text();
  /** @type {unknown} */
  let value = null;
  try {
    value = text === '' ? null : JSON.parse(text);
  } catch {
    value = null;
  }
  if (!response.ok) {
    const message =
      typeof value === 'object' && value !== null && 'message' in value ? value.message : null;
    const why = typeof message === 'string' ? message : response.statusText;
    throw new Error(`${response.status}: ${why}`);
  }
  return value;
}

/**
 * The query string of `values`.
 * @param {QueryValues} values
 */
export function query(values) {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(values)) {
    if (value !== undefined && value !== null && value !== '') params.set(key, String(value));
  }
  return params.toString();
}

// NOTE: the casts below are where the page trusts the admin routes to answer as typed; the
// routes are the package's own, served from the same process as the page.

/**
 * The events the filter matches, newest first.
 * @param {QueryValues} filter
 */
export async function listEvents(filter) {
  return /** @type {EventView[]} */ (await request(`events?${query(filter)}`));
}

/**
 * One event with its handler runs and history, without its payload (fetched on demand).
 * @param {string} id
 */
export async function showEvent(id) {
  const answer = await request(`events/${encodeURIComponent(id)}`);
  return /** @type {EventDetails<EventView>} */ (answer);
}

/**
 * One event with its stored headers and body.
 * @param {string} id
 */
export async function showEventWithBody(id) {
  const answer = await request(`events/${encodeURIComponent(id)}?include=body`);
  return /** @type {EventDetails<EventWithBody>} */ (answer);
}

export async function listFailureGroups() {
  return /** @type {FailureGroup[]} */ (await request('groups?limit=100'));
}

export async function listPauses() {
  return /** @type {DispatchPause[]} */ (await request('pauses'));
}

export async function activity() {
  return /** @type {Activity} */ (await request('activity'));
}

/**
 * How many events a replay of the filter would put back, and the first of them.
 * @param {string} filter a query string
 */
export async function replayDryRun(filter) {
  return /** @type {ReplayReport} */ (await request(`replay?${filter}&dryRun=true`, {}));
}

/**
 * Starts a replay in the background of the events the filter matches.
 * @param {string} filter a query string
 */
export async function startReplay(filter) {
  return /** @type {ReplayJob} */ (await request(`replays?${filter}`, {}));
}

/** @param {string} id */
export async function replayJob(id) {
  return /** @type {ReplayJob} */ (await request(`replays/${encodeURIComponent(id)}`));
}

/**
 * Settles the events the filter matches as ignored, or with `dryRun` counts them.
 * @param {string} filter a query string
 * @param {{ reason: string, dryRun?: boolean }} body
 */
export async function discard(filter, body) {
  return /** @type {DiscardReport} */ (await request(`discard?${filter}`, body));
}

/**
 * @param {DispatchPauseScope} scope
 * @param {string | undefined} reason
 */
export async function pause(scope, reason) {
  return /** @type {PauseAnswer} */ (await request('pause', { ...scope, reason }));
}

/** @param {DispatchPauseScope} scope */
export async function resume(scope) {
  return /** @type {ResumeAnswer} */ (await request('resume', scope));
}

/** Events per endpoint and status, and the oldest event waiting to run. */
export async function stats() {
  return /** @type {InboxStats} */ (await request('stats'));
}

/**
 * Starts a recovery from an endpoint's event log: `endpoint`, `since`, and optionally `until`,
 * `tenant`, `dryRun`.
 * @param {QueryValues} values
 */
export async function startRecovery(values) {
  return /** @type {RecoveryJob} */ (await request(`recoveries?${query(values)}`, {}));
}

/** The recoveries, newest first. */
export async function listRecoveries() {
  return /** @type {RecoveryJob[]} */ (await request('recoveries?limit=20'));
}

/** @param {string} id */
export async function recoveryJob(id) {
  return /** @type {RecoveryJob} */ (await request(`recoveries/${encodeURIComponent(id)}`));
}

/** @param {string} id */
export async function cancelRecovery(id) {
  const path = `recoveries/${encodeURIComponent(id)}/cancel`;
  return /** @type {RecoveryJob} */ (await request(path, {}));
}

/**
 * Starts a backfill of one handler over stored events: `handler`, `since`, and optionally
 * `until`, `endpoint`, `type` (a comma list), `dryRun`, `rate`.
 * @param {QueryValues} values
 */
export async function startBackfill(values) {
  return /** @type {BackfillJob} */ (await request(`backfills?${query(values)}`, {}));
}

/** The backfills, newest first. */
export async function listBackfills() {
  return /** @type {BackfillJob[]} */ (await request('backfills?limit=20'));
}

/** @param {string} id */
export async function backfillJob(id) {
  return /** @type {BackfillJob} */ (await request(`backfills/${encodeURIComponent(id)}`));
}

/** @param {string} id */
export async function cancelBackfill(id) {
  const path = `backfills/${encodeURIComponent(id)}/cancel`;
  return /** @type {BackfillJob} */ (await request(path, {}));
}
