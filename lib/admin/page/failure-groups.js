// @ts-check
// Failure groups: dead and retrying events that failed for one cause, each replayed,
// discarded or paused as a whole after a dry run says how many events it touches.
import { discard, listFailureGroups, query, replayDryRun, startReplay } from './admin-api.js';
import { confirmAction } from './confirm-dialog.js';
import { button, byId, el, firstLine, plural, row, timeCell } from './dom.js';
import { pauseScope } from './pauses.js';
import { refreshAll } from './refresh.js';
import { followReplay } from './replay-jobs.js';
import { guarded, say } from './status-line.js';

/** @typedef {import('./admin-api.js').FailureGroup} FailureGroup */

/**
 * The event filter of one failure group, dead and retrying alike.
 * @param {FailureGroup} group
 */
function groupFilter(group) {
  return query({
    endpoint: group.endpoint,
    handler: group.handlerKey ?? undefined,
    fingerprint: group.fingerprint,
    status: 'dead,retrying',
  });
}

/**
 * A group's error: the first line of its latest one, which begins with its class.
 * @param {FailureGroup} group
 */
function errorOf(group) {
  return firstLine(group.sampleError) || group.errorClass || 'Error';
}

/** @param {FailureGroup} group */
function describeGroup(group) {
  return (
    `Endpoint ${group.endpoint}, handler ${group.handlerKey ?? '(before the handlers)'}: ` +
    errorOf(group)
  );
}

/** @param {FailureGroup} group */
async function replayGroup(group) {
  const filter = groupFilter(group);
  const dry = await replayDryRun(filter);
  const count = plural(dry.wouldReplay ?? 0, 'event');
  const answer = await confirmAction({
    title: `Replay ${count}?`,
    text:
      `${describeGroup(group)}. A replayed event runs only the handlers not already in ` +
      'its ledger. The first of them:',
    sample: dry.sample,
    action: `Replay ${count}`,
  });
  if (answer === null) return;
  await followReplay(await startReplay(filter));
}

/** @param {FailureGroup} group */
async function discardGroup(group) {
  const filter = groupFilter(group);
  const dry = await discard(filter, { reason: 'dry run', dryRun: true });
  const count = plural(dry.wouldDiscard ?? 0, 'event');
  const reason = await confirmAction({
    title: `Discard ${count}?`,
    text:
      `${describeGroup(group)}. They are settled as ignored without running; the reason ` +
      'is kept in their history.',
    action: `Discard ${count}`,
    reason: 'required',
  });
  if (reason === null) return;
  const done = await discard(filter, { reason });
  say(`Discarded ${plural(done.discarded, 'event')}`);
  await refreshAll();
}

/** @param {FailureGroup} group */
function groupRow(group) {
  const error = el('td', 'error-cell', errorOf(group));
  error.title = group.sampleError ?? '';
  const actions = el(
    'td',
    'actions',
    button('Replay', () => void guarded(() => replayGroup(group))),
    button('Discard', () => void guarded(() => discardGroup(group))),
    button(
      'Pause',
      () =>
        void guarded(() =>
          pauseScope({ endpoint: group.endpoint, handler: group.handlerKey ?? undefined }),
        ),
    ),
  );
  return row([
    String(group.count),
    String(group.dead),
    group.endpoint,
    group.handlerKey ?? '(before the handlers)',
    error,
    timeCell(group.firstSeen),
    timeCell(group.lastSeen),
    actions,
  ]);
}

export async function loadGroups() {
  const groups = await listFailureGroups();
  byId('groups-body').replaceChildren(...groups.map(groupRow));
  byId('groups-empty').hidden = groups.length > 0;
}
