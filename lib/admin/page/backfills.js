// @ts-check
// Backfills of one handler over stored events: starting one for a window (a dry run counts the
// events the handler would run on), following it until done, the list, and canceling a running
// one.
import { backfillJob, cancelBackfill, listBackfills, startBackfill } from './admin-api.js';
import { confirmAction } from './confirm-dialog.js';
import { button, byId, el, firstLine, row, time, timeCell } from './dom.js';
import { refreshAll } from './refresh.js';
import { guarded, say } from './status-line.js';

/** @typedef {import('./admin-api.js').BackfillJob} BackfillJob */

/** How often a running backfill's progress is read. */
const POLL_MS = 500;

/**
 * The window of a backfill, with the endpoint and types it keeps to when it has them.
 * @param {BackfillJob} job
 */
function windowOf(job) {
  const { since, until, endpoint, tenant, types } = job.scope;
  const where = [
    endpoint ? `endpoint ${endpoint}` : '',
    tenant ? `tenant ${tenant}` : '',
    types?.length ? `types ${types.join(', ')}` : '',
  ].filter((part) => part !== '');
  return `${time(since)} to ${time(until)}${where.length > 0 ? ` (${where.join('; ')})` : ''}`;
}

/**
 * How far a backfill got: the events passed of those it found, and the handler's runs among
 * them; a dry run runs nothing and counts the runs it would make.
 * @param {BackfillJob} job
 */
function progress(job) {
  const ran = job.dryRun ? `would run ${job.ran}` : `ran ${job.ran}`;
  return `${job.passed}/${job.total}, ${ran}, failed ${job.failed}`;
}

/** @param {BackfillJob} job */
function statusOf(job) {
  return job.dryRun ? `${job.status} (dry run)` : job.status;
}

/** @param {BackfillJob} job */
async function cancel(job) {
  const answer = await confirmAction({
    title: `Cancel the backfill of ${job.handler}?`,
    text: 'No run of the handler starts after this; the runs made so far stay.',
    action: 'Cancel backfill',
  });
  if (answer === null) return;
  const canceled = await cancelBackfill(job.id);
  say(`Backfill ${canceled.status}: ${progress(canceled)}`);
  await refreshAll();
}

/** @param {BackfillJob} job */
function backfillRow(job) {
  const error = el('td', 'error-cell', firstLine(job.error));
  error.title = job.error ?? '';
  return row([
    job.handler,
    windowOf(job),
    el('td', '', el('span', `badge status-${job.status}`, statusOf(job))),
    progress(job),
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
 * Offers the handlers backfilled before in the form; the page is not told the app's handlers,
 * and any other key can be typed: a refusal names the app's handlers.
 * @param {readonly BackfillJob[]} backfills
 */
function offerHandlers(backfills) {
  const names = new Set(backfills.map(({ handler }) => handler));
  byId('backfill-handlers').replaceChildren(
    ...[...names].sort().map((name) => Object.assign(el('option', ''), { value: name })),
  );
}

export async function loadBackfills() {
  const backfills = await listBackfills();
  byId('backfills-body').replaceChildren(...backfills.map(backfillRow));
  byId('backfills-empty').hidden = backfills.length > 0;
  offerHandlers(backfills);
}

/**
 * Follows a backfill until it is done, showing its rows as they grow, then what it did.
 * @param {BackfillJob} job
 */
export async function followBackfill(job) {
  let current = job;
  while (current.status === 'running') {
    // NOTE: while it runs, `error` says why it waits (a pause holds its handler) or why its last
    // batch failed and is tried again.
    const why = current.error ? ` (${current.error})` : '';
    say(`Backfilling ${current.handler}: ${progress(current)}${why}`);
    await loadBackfills();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await backfillJob(current.id);
  }
  const failed = current.error ? `: ${current.error}` : '';
  say(
    `${current.dryRun ? 'Dry run' : 'Backfill'} ${current.status}: ${progress(current)}${failed}`,
  );
  await refreshAll();
}

/**
 * Starts the backfill the form asks for, after asking: a dry run, or running the handler.
 * @param {FormData} form
 */
export async function backfillHandler(form) {
  /** @param {string} name */
  const text = (name) => String(form.get(name) ?? '').trim();
  const handler = text('handler');
  const dryRun = form.get('dryRun') !== null;
  const window = `since ${text('since')}${text('until') ? ` until ${text('until')}` : ''}`;
  const where = `${text('endpoint') ? ` on ${text('endpoint')}` : ''}${
    text('type') ? ` of type ${text('type')}` : ''
  }`;
  const what = `${handler} over the events${where} ${window}`;
  const answer = await confirmAction(
    dryRun
      ? {
          title: `Count the events ${handler} would run on${where} ${window}?`,
          text: 'A dry run reads the stored events of the window and runs nothing.',
          action: 'Dry run',
        }
      : {
          title: `Run ${what}?`,
          text:
            'The handler runs once on each processed or ignored event of the window it has not ' +
            'run on, in the background; the other handlers do not run again, and the events keep ' +
            'their status.',
          action: 'Backfill',
        },
  );
  if (answer === null) return;
  const started = await startBackfill({
    handler,
    since: text('since'),
    until: text('until'),
    endpoint: text('endpoint'),
    type: text('type'),
    dryRun: String(dryRun),
    rate: text('rate'),
  });
  await followBackfill(started);
}
