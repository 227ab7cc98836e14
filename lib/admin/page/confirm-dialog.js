// @ts-check
// The dialog every change of the inbox is confirmed in first.
import { byId, el } from './dom.js';

/**
 * @typedef {object} Question
 * @property {string} title
 * @property {string} text
 * @property {readonly string[]} [sample] ids listed under the text
 * @property {string} action the confirming button's label
 * @property {'required' | 'optional'} [reason] whether a reason is asked for
 */

/**
 * Asks before a change: resolves to the reason typed (or '' when none is asked for), or to
 * null when canceled.
 * @param {Question} question
 * @returns {Promise<string | null>}
 */
export function confirmAction({ title, text, sample, action, reason }) {
  const dialog = /** @type {HTMLDialogElement} */ (byId('confirm'));
  const input = /** @type {HTMLInputElement} */ (byId('confirm-reason'));
  const ok = /** @type {HTMLButtonElement} */ (byId('confirm-ok'));
  byId('confirm-title').textContent = title;
  byId('confirm-text').textContent = text;
  byId('confirm-sample').replaceChildren(...(sample ?? []).map((id) => el('li', '', id)));
  byId('confirm-reason-label').hidden = !reason;
  input.value = '';
  ok.textContent = action;
  const check = () => (ok.disabled = reason === 'required' && input.value.trim() === '');
  check();
  input.oninput = check;
  return new Promise((resolve) => {
    /** @param {string | null} value */
    const finish = (value) => {
      dialog.onclose = null;
      if (dialog.open) dialog.close();
      resolve(value);
    };
    ok.onclick = () => finish(reason ? input.value.trim() : '');
    byId('confirm-cancel').onclick = () => finish(null);
    dialog.onclose = () => finish(null);
    dialog.showModal();
    (reason ? input : ok).focus();
  });
}
