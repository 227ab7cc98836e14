// @ts-check
// One event opened: its facts and timeline, and its stored headers and body on demand.
import * as adminApi from './admin-api.js';
import { byId, el, row, time } from './dom.js';
import { isParked, statusText } from './event-status.js';
import { timelineItems } from './event-timeline.js';

/**
 * Adds a fact to the list, unless it has no value.
 * @param {HTMLElement} list
 * @param {string} name
 * @param {unknown} value
 */
function fact(list, name, value) {
  if (value === null || value === undefined || value === '') return;
  list.append(el('dt', '', name), el('dd', '', String(value)));
}

/** @param {import('./admin-api.js').EventView} event */
function renderFacts(event) {
  const list = byId('event-facts');
  list.replaceChildren();
  fact(list, 'Inbox id', event.id);
  fact(list, 'Provider event id', event.eventId);
  fact(list, 'Endpoint', event.endpoint + (event.tenant ? `, tenant ${event.tenant}` : ''));
  fact(list, 'Type', `${event.type} (${event.provider} ${event.nativeType})`);
  fact(list, 'Status', statusText(event));
  fact(list, 'Attempts', event.attempts);
  fact(list, 'Payment', event.paymentRef);
  fact(list, 'Order', event.merchantRef);
  if (event.amount !== null) {
    fact(list, 'Amount', `${event.amount} ${event.currency ?? ''} (minor units)`);
  }
  fact(list, 'Outcome', event.outcome);
  fact(list, 'Received', time(event.receivedAt));
  fact(
    list,
    'Next attempt',
    isParked(event) ? 'when dispatch is resumed' : time(event.nextAttemptAt),
  );
}

/**
 * Opens the event with this inbox id.
 * @param {string} id
 */
export async function showEvent(id) {
  // NOTE: without include=body: the body and headers are fetched when "Show body" is clicked.
  const details = await adminApi.showEvent(id);
  const { event } = details;
  const section = byId('event');
  section.dataset.id = event.id;
  byId('event-title').textContent = `Event ${event.eventId}`;
  renderFacts(event);
  byId('timeline').replaceChildren(...timelineItems(details));
  byId('payload').hidden = true;
  byId('show-body').textContent = 'Show body';
  section.hidden = false;
  section.scrollIntoView({ block: 'start' });
}

/** Shows the open event's stored headers and body, or hides them when shown. */
export async function toggleBody() {
  const payload = byId('payload');
  if (!payload.hidden) {
    payload.hidden = true;
    byId('show-body').textContent = 'Show body';
    return;
  }
  const { event } = await adminApi.showEventWithBody(byId('event').dataset.id ?? '');
  byId('payload-headers').replaceChildren(
    ...Object.entries(event.headers ?? {}).map(([name, value]) => row([name, value])),
  );
  byId('payload-note').textContent = event.rawBodyTruncated
    ? `The first ${event.rawBody.length} of ${event.rawBodyLength} characters`
    : `${event.rawBodyLength} characters`;
  byId('payload-body').textContent = event.rawBody;
  payload.hidden = false;
  byId('show-body').textContent = 'Hide body';
}
