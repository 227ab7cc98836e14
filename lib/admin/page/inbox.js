// @ts-check
// The inbox page of nestjs-payment-webhooks: plain browser JavaScript over the admin routes,
// loaded as native ES modules with nothing to build. This entry wires the sections to the page.
import { legend, loadActivity, SERIES } from './activity-charts.js';
import { backfillHandler, loadBackfills } from './backfills.js';
import { byId } from './dom.js';
import { toggleBody } from './event-detail.js';
import { loadEvents, search } from './event-list.js';
import { loadGroups } from './failure-groups.js';
import { loadPauses, pauseScope } from './pauses.js';
import { loadRecoveries, recoverWindow } from './recoveries.js';
import { refreshAll, refreshWith } from './refresh.js';
import { guarded } from './status-line.js';

/**
 * How often the charts, failure groups, pauses, recoveries and backfills are read again (the
 * events list on Refresh).
 */
const REFRESH_MS = 10_000;

/**
 * Runs `work` with the form's values when the form is submitted.
 * @param {string} id
 * @param {(form: FormData) => Promise<void>} work
 */
function onSubmit(id, work) {
  byId(id).addEventListener('submit', (submit) => {
    submit.preventDefault();
    void guarded(() => work(new FormData(/** @type {HTMLFormElement} */ (submit.target))));
  });
}

refreshWith(loadActivity, loadGroups, loadPauses, loadRecoveries, loadBackfills, loadEvents);
onSubmit('filter-form', () => loadEvents());
onSubmit('search-form', (form) => search(String(form.get('search')).trim()));
onSubmit('pause-form', (form) =>
  pauseScope({
    endpoint: String(form.get('endpoint')).trim() || undefined,
    handler: String(form.get('handler')).trim() || undefined,
  }),
);
onSubmit('recovery-form', recoverWindow);
onSubmit('backfill-form', backfillHandler);
byId('filter-form').addEventListener('reset', () => setTimeout(() => void guarded(loadEvents)));
byId('refresh').addEventListener('click', () => void refreshAll());
byId('event-close').addEventListener('click', () => (byId('event').hidden = true));
byId('show-body').addEventListener('click', () => void guarded(toggleBody));
legend('deliveries-legend', SERIES);
legend('latency-legend', ['p50', 'p95']);
void refreshAll();
setInterval(() => {
  void guarded(loadActivity);
  void guarded(loadGroups);
  void guarded(loadPauses);
  void guarded(loadRecoveries);
  void guarded(loadBackfills);
}, REFRESH_MS);
