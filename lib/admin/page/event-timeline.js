// @ts-check
// An event's timeline: its deliveries, failed attempts, handler runs, replays and settlements
// in the order they happened.
import { el, plural, time } from './dom.js';

/**
 * @typedef {object} TimelineEntry
 * @property {string} at
 * @property {'delivery' | 'attempt' | 'run' | 'replay' | 'settle'} kind
 * @property {string} title
 * @property {string | null} [error]
 * @property {string} [meta]
 */

/**
 * @param {import('./admin-api.js').HistoryEntry} entry
 * @returns {TimelineEntry}
 */
function historyEntry(entry) {
  const by = entry.actor ? ` by ${entry.actor}` : '';
  if (entry.kind === 'attempt') {
    return {
      at: entry.at,
      kind: 'attempt',
      title:
        `Attempt ${entry.attempt} failed in ${entry.handlerKey ?? 'the event, before its handlers'}: ` +
        `${entry.outcome}`,
      error: entry.error,
      meta: [
        entry.worker && `worker ${entry.worker}`,
        entry.fingerprint && `group ${entry.fingerprint}`,
      ]
        .filter(Boolean)
        .join(', '),
    };
  }
  if (entry.kind === 'replay') {
    return {
      at: entry.at,
      kind: 'replay',
      title: `Replayed${by}, from ${entry.outcome}`,
      meta: entry.detail ?? '',
    };
  }
  return {
    at: entry.at,
    kind: 'settle',
    title: `Settled by hand as ${entry.outcome}${by}`,
    meta: entry.detail ?? '',
  };
}

/**
 * One timeline entry per delivery, failed attempt, handler run, replay and settlement.
 * @param {import('./admin-api.js').EventDetails<import('./admin-api.js').EventView>} details
 * @returns {TimelineEntry[]}
 */
function timelineOf({ event, handlerRuns, history }) {
  /** @type {TimelineEntry[]} */
  const entries = [
    {
      at: event.receivedAt,
      kind: 'delivery',
      title: `Received; delivered ${plural(event.deliveryCount, 'time')} by the provider`,
    },
    ...history.map(historyEntry),
    ...handlerRuns.map((run) => ({
      at: run.finishedAt,
      kind: /** @type {const} */ ('run'),
      title:
        `Handler ${run.handlerKey} succeeded on attempt ${run.attempt}` +
        (run.outcome ? ` (${run.outcome})` : ''),
    })),
  ];
  if (event.processedAt) {
    entries.push({ at: event.processedAt, kind: 'settle', title: 'Processed' });
  }
  return entries.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime());
}

/** @param {TimelineEntry} entry */
function timelineItem(entry) {
  const item = el(
    'li',
    `entry entry-${entry.kind}`,
    el('time', '', time(entry.at)),
    el('strong', '', entry.title),
  );
  if (entry.error) item.append(el('pre', 'error-text', entry.error));
  if (entry.meta) item.append(el('p', 'meta', entry.meta));
  return item;
}

/**
 * The timeline's items, oldest first.
 * @param {import('./admin-api.js').EventDetails<import('./admin-api.js').EventView>} details
 */
export function timelineItems(details) {
  return timelineOf(details).map(timelineItem);
}
