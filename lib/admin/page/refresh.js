// @ts-check
// Reloading every section after a change. The sections register their loaders here, so one
// section's action can refresh the others without importing them.
import { guarded } from './status-line.js';

/** @type {(() => Promise<void>)[]} */
const loaders = [];

/** @type {Promise<unknown> | null} */
let refreshing = null;

/**
 * Adds the loaders of sections to what `refreshAll()` reloads.
 * @param {...(() => Promise<void>)} load
 */
export function refreshWith(...load) {
  loaders.push(...load);
}

/** Reloads every section; a refresh asked for while one runs is that one. */
export function refreshAll() {
  refreshing ??= Promise.all(loaders.map((load) => guarded(load))).finally(
    () => (refreshing = null),
  );
  return refreshing;
}
