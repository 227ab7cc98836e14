// @ts-check
// Recoveries from the providers' event logs: starting one for a window of an endpoint (a dry
// run counts the events the inbox lacks), following it until done, the list, and canceling a
// running one.
import { cancelRecovery, listRecoveries, recoveryJob, startRecovery, stats } from './admin-api.js';
import { confirmAction } from './confirm-dialog.js';
import { button, byId, el, firstLine, row, time, timeCell } from './dom.js';
import { refreshAll } from './refresh.js';
import { guarded, say } from './status-line.js';

/** @typedef {import('./admin-api.js').RecoveryJob} RecoveryJob */

/** How often a running recovery's progress is read. */
const POLL_MS = 500;
/** How long after a recovery the page looks again, for the handlers of its events to have run. */
const SETTLE_MS = 2000;

/** @param {RecoveryJob} job */
function endpointOf(job) {
  return job.endpoint + (job.tenant ? ` (${job.tenant})` : '');
}

/**
 * What a recovery read and stored; a dry run stores nothing and counts the events missing.
 * @param {RecoveryJob} job
 */
function counts(job) {
  return `${job.found} read, ${job.stored} ${job.dryRun ? 'missing' : 'stored'}`;
}

/** @param {RecoveryJob} job */
function statusOf(job) {
  return job.dryRun ? `${job.status} (dry run)` : job.status;
}

/** @param {RecoveryJob} job */
async function cancel(job) {
  const answer = await confirmAction({
    title: `Cancel the recovery of ${endpointOf(job)}?`,
    text: 'It stops before the next page of the event log; the events stored so far stay.',
    action: 'Cancel recovery',
  });
  if (answer === null) return;
  const canceled = await cancelRecovery(job.id);
  say(`Recovery ${canceled.status}: ${counts(canceled)}`);
  await refreshAll();
}

/** @param {RecoveryJob} job */
function recoveryRow(job) {
  const error = el('td', 'error-cell', firstLine(job.error));
  error.title = job.error ?? '';
  return row([
    endpointOf(job),
    `${time(job.since)} to ${time(job.until)}`,
    el('td', '', el('span', `badge status-${job.status}`, statusOf(job))),
    counts(job),
    job.actor ?? '',
    timeCell(job.createdAt),
    error,
    el(
      'td',
      'actions',
      job.status === 'running' ? button('Cancel', () => void guarded(() => cancel(job))) : null,
    ),
  ]);
}

/**
 * Offers the endpoints the page has seen (those with stored events, or recovered before) in the
 * form; any other name can still be typed, and the route says why it cannot be read.
 * @param {readonly RecoveryJob[]} recoveries
 * @param {readonly { endpoint: string }[]} counted
 */
function offerEndpoints(recoveries, counted) {
  const names = new Set([...counted, ...recoveries].map(({ endpoint }) => endpoint));
  byId('recovery-endpoints').replaceChildren(
    ...[...names].sort().map((name) => Object.assign(el('option', ''), { value: name })),
  );
}

export async function loadRecoveries() {
  const [recoveries, inbox] = await Promise.all([listRecoveries(), stats()]);
  byId('recoveries-body').replaceChildren(...recoveries.map(recoveryRow));
  byId('recoveries-empty').hidden = recoveries.length > 0;
  offerEndpoints(recoveries, inbox.counts);
}

/**
 * Follows a recovery until it is done, showing its rows as they grow, then what it did.
 * @param {RecoveryJob} job
 */
export async function followRecovery(job) {
  let current = job;
  while (current.status === 'running') {
    const failed = current.error
      ? ` (its last page failed and is read again: ${current.error})`
      : '';
    say(`Recovering ${endpointOf(current)}: ${counts(current)}${failed}`);
    await loadRecoveries();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await recoveryJob(current.id);
  }
  const failed = current.error ? `: ${current.error}` : '';
  say(`${current.dryRun ? 'Dry run' : 'Recovery'} ${current.status}: ${counts(current)}${failed}`);
  await refreshAll();
  // NOTE: the recovered events' handlers run once they are stored; look again in a moment.
  if (!current.dryRun) setTimeout(() => void refreshAll(), SETTLE_MS);
}

/**
 * Starts the recovery the form asks for, after asking: a dry run, or storing what is missing.
 * @param {FormData} form
 */
export async function recoverWindow(form) {
  /** @param {string} name */
  const text = (name) => String(form.get(name) ?? '').trim();
  const endpoint = text('endpoint');
  const dryRun = form.get('dryRun') !== null;
  const window = `since ${text('since')}${text('until') ? ` until ${text('until')}` : ''}`;
  const what = `${endpoint}${text('tenant') ? ` (${text('tenant')})` : ''} ${window}`;
  const answer = await confirmAction(
    dryRun
      ? {
          title: `Count the events of ${what} the inbox lacks?`,
          text: "A dry run reads the window of the provider's event log and stores nothing.",
          action: 'Dry run',
        }
      : {
          title: `Recover the events of ${what}?`,
          text:
            "The window of the provider's event log is read in the background; the events the " +
            'inbox lacks are stored and their handlers run, the others are left as they are.',
          action: 'Recover',
        },
  );
  if (answer === null) return;
  const started = await startRecovery({
    endpoint,
    tenant: text('tenant'),
    since: text('since'),
    until: text('until'),
    dryRun: String(dryRun),
  });
  await followRecovery(started);
}
