'use strict';
/** Small numeric helpers shared by the runner and the generators. */

/**
 * Percentiles of `values` (nearest rank), plus max and mean; values are copied, not sorted in place.
 * @param {number[]} values
 * @param {number[]} ranks e.g. [50, 99]
 * @returns {Record<string, number | null>} keys `p50`, `p99`, `p99.9` → `p999`, `max`, `mean`, `count`
 */
function percentiles(values, ranks) {
  const out = { count: values.length };
  if (values.length === 0) {
    for (const rank of ranks) out[key(rank)] = null;
    out.max = null;
    out.mean = null;
    return out;
  }
  const sorted = Float64Array.from(values).sort();
  for (const rank of ranks) {
    const index = Math.min(
      sorted.length - 1,
      Math.max(0, Math.ceil((rank / 100) * sorted.length) - 1),
    );
    out[key(rank)] = round(sorted[index]);
  }
  out.max = round(sorted[sorted.length - 1]);
  let sum = 0;
  for (const value of sorted) sum += value;
  out.mean = round(sum / sorted.length);
  return out;
}

function key(rank) {
  return `p${String(rank).replace('.', '')}`;
}

function round(value, digits = 2) {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

module.exports = { percentiles, round };
