// @ts-check
// Paused dispatch: the pauses in force, pausing a scope and resuming one.
import { listPauses, pause, resume } from './admin-api.js';
import { confirmAction } from './confirm-dialog.js';
import { button, byId, el, plural, row, timeCell } from './dom.js';
import { refreshAll } from './refresh.js';
import { guarded, say } from './status-line.js';

/**
 * Pauses dispatch for `scope`, after asking; a part left out is every endpoint or handler.
 * @param {import('./admin-api.js').DispatchPauseScope} scope
 */
export async function pauseScope(scope) {
  const what = `handler ${scope.handler || '(every)'} on endpoint ${scope.endpoint || '(every)'}`;
  const reason = await confirmAction({
    title: `Pause ${what}?`,
    text:
      'Deliveries are still verified, stored and answered; the handlers held do not run, ' +
      'and spend no attempt, until resumed. Every instance sees it within a second.',
    action: 'Pause',
    reason: 'optional',
  });
  if (reason === null) return;
  const done = await pause(scope, reason || undefined);
  say(done.paused ? `Paused ${what}` : `${what} was paused already`);
  await refreshAll();
}

/** @param {import('./admin-api.js').DispatchPause} paused */
async function resumePause(paused) {
  const answer = await confirmAction({
    title: `Resume handler ${paused.handler} on endpoint ${paused.endpoint}?`,
    text: 'The events it held run now.',
    action: 'Resume',
  });
  if (answer === null) return;
  const done = await resume({ endpoint: paused.endpoint, handler: paused.handler });
  say(`Resumed: ${plural(done.resumed, 'held event')} due now`);
  await refreshAll();
}

/** @param {import('./admin-api.js').DispatchPause} paused */
function pauseRow(paused) {
  return row([
    paused.endpoint === '*' ? '(every)' : paused.endpoint,
    paused.handler === '*' ? '(every)' : paused.handler,
    timeCell(paused.pausedAt),
    paused.pausedBy ?? '',
    paused.reason ?? '',
    el(
      'td',
      'actions',
      button('Resume', () => void guarded(() => resumePause(paused))),
    ),
  ]);
}

export async function loadPauses() {
  const pauses = await listPauses();
  byId('pauses-body').replaceChildren(...pauses.map(pauseRow));
  byId('pauses-empty').hidden = pauses.length > 0;
}
