// @ts-check
// The events list: its filters, the search by inbox id or provider event id, and its rows,
// each opening the event.
import { listEvents } from './admin-api.js';
import { byId, el, firstLine, row, timeCell } from './dom.js';
import { showEvent } from './event-detail.js';
import { statusText } from './event-status.js';
import { guarded, say } from './status-line.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** Most events the list shows. */
const LIMIT = 100;

/** @param {import('./admin-api.js').EventView} event */
function eventRow(event) {
  const tr = row([
    timeCell(event.receivedAt),
    event.endpoint + (event.tenant ? ` (${event.tenant})` : ''),
    event.type,
    el('td', '', el('span', `badge status-${event.status}`, statusText(event))),
    String(event.attempts),
    event.eventId,
    firstLine(event.lastError),
  ]);
  tr.className = 'clickable';
  tr.tabIndex = 0;
  tr.dataset.id = event.id;
  const open = () => void guarded(() => showEvent(event.id));
  tr.addEventListener('click', open);
  tr.addEventListener('keydown', (key) => key.key === 'Enter' && open());
  return tr;
}

/** @param {readonly import('./admin-api.js').EventView[]} events */
function renderEvents(events) {
  byId('events-body').replaceChildren(...events.map(eventRow));
  byId('events-empty').hidden = events.length > 0;
}

/** Lists the events the filter form asks for. */
export async function loadEvents() {
  const form = new FormData(/** @type {HTMLFormElement} */ (byId('filter-form')));
  const values = Object.fromEntries(
    [...form.entries()].map(([key, value]) => [key, String(value).trim()]),
  );
  renderEvents(await listEvents({ ...values, limit: LIMIT }));
}

/**
 * Opens the event an inbox id names, or lists those a provider event id names (opening the
 * one when there is one).
 * @param {string} text
 */
export async function search(text) {
  if (UUID.test(text)) {
    await showEvent(text);
    return;
  }
  const events = await listEvents({ eventId: text, limit: LIMIT });
  renderEvents(events);
  if (events.length === 1) await showEvent(events[0].id);
  else say(events.length === 0 ? `No event ${text}` : `${events.length} events ${text}`);
}
