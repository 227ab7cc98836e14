// @ts-check
// Replays in the background: the page follows one it started until it is done.
import { replayJob } from './admin-api.js';
import { plural } from './dom.js';
import { refreshAll } from './refresh.js';
import { say } from './status-line.js';

/** How often a running replay's progress is read. */
const POLL_MS = 500;
/** How long after a replay the page looks again, for the handlers to have run. */
const SETTLE_MS = 2000;

/**
 * Follows a replay in the background until it is done, then shows what changed.
 * @param {import('./admin-api.js').ReplayJob} job
 */
export async function followReplay(job) {
  let current = job;
  while (current.status === 'running') {
    const failed = current.error
      ? ` (its last batch failed and is tried again: ${current.error})`
      : '';
    say(`Replaying: ${current.replayed} of ${plural(current.total, 'event')} put back${failed}`);
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    current = await replayJob(current.id);
  }
  say(`Replay ${current.status}: ${plural(current.replayed, 'event')} put back`);
  await refreshAll();
  // NOTE: the handlers run once the events are back; look again when they have had a moment.
  setTimeout(() => void refreshAll(), SETTLE_MS);
}
