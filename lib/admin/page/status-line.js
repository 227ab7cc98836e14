// @ts-check
// The status line at the top of the page: progress, results and every error of a request.
import { byId } from './dom.js';

/**
 * @param {string} message
 * @param {boolean} [isError]
 */
export function say(message, isError) {
  const status = byId('status');
  status.textContent = message;
  status.classList.toggle('error', Boolean(isError));
}

/**
 * Runs `work`, its error said on the status line.
 * @template T
 * @param {() => Promise<T>} work
 * @returns {Promise<T | undefined>}
 */
export async function guarded(work) {
  try {
    return await work();
  } catch (error) {
    say(error instanceof Error ? error.message : String(error), true);
    return undefined;
  }
}
