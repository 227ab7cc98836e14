'use strict';
/**
 * Summarizes a V8 `.cpuprofile` (from `--profile`): where the sampled time went, by package
 * (self time) and by the functions of this package that took the most time including what
 * they called. Percentages are of the busy (non-idle) time.
 */
const { sep } = require('node:path');

/** The bucket a frame's self time is counted in. */
function bucketOf(frame, root) {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName === '(idle)') return '(idle)';
    if (functionName === '(garbage collector)') return '(garbage collector)';
    if (functionName === '(program)') return '(V8 / native)';
    return '(native)';
  }
  const modules = url.lastIndexOf(`${sep}node_modules${sep}`);
  if (modules >= 0) {
    const parts = url.slice(modules + 14).split(sep);
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  const path = url.startsWith('file://') ? url.slice(7) : url;
  if (path.startsWith(`${root}${sep}dist${sep}`)) {
    return `library: ${path
      .slice(root.length + 6)
      .split(sep)[0]
      .replace(/\.js$/, '')}`;
  }
  if (path.startsWith(`${root}${sep}bench${sep}`)) return 'benchmark app';
  if (path.startsWith('node:')) {
    if (path.includes('util/inspect')) return 'node: util.inspect';
    if (path.includes('http') || path.includes('net') || path.includes('stream'))
      return 'node: http/net/streams';
    return 'node: other';
  }
  return path;
}

/**
 * @param {{ nodes: { id: number, callFrame: object, children?: number[] }[], samples: number[], timeDeltas: number[] }} profile
 * @param {string} root repository root, to name the package's own files
 * @param {number} [top] rows per list
 */
function summarizeProfile(profile, root, top = 12) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  for (let i = 0; i < profile.samples.length; i += 1) {
    const id = profile.samples[i];
    self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
  }
  const parent = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parent.set(child, node.id);
  let idle = 0;
  let total = 0;
  const buckets = new Map();
  for (const node of profile.nodes) {
    const time = self.get(node.id) ?? 0;
    total += time;
    const bucket = bucketOf(node.callFrame, root);
    if (bucket === '(idle)') idle += time;
    else buckets.set(bucket, (buckets.get(bucket) ?? 0) + time);
  }
  const busy = total - idle;
  // Inclusive time per function of the package (dist/), counted once per stack.
  const inclusive = new Map();
  const keyOf = (frame) =>
    `${frame.functionName || '(anonymous)'} (${frame.url.split(`${sep}dist${sep}`)[1] ?? frame.url}:${frame.lineNumber + 1})`;
  const own = (frame) => frame.url.includes(`${root}${sep}dist${sep}`);
  for (const node of profile.nodes) {
    const time = self.get(node.id) ?? 0;
    if (time === 0) continue;
    const seen = new Set();
    for (let id = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id).callFrame;
      if (!own(frame)) continue;
      const key = keyOf(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + time);
    }
  }
  const share = (time) => Math.round((time / Math.max(busy, 1)) * 1000) / 10;
  const sorted = (map) =>
    [...map.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, top)
      .map(([name, time]) => ({ name, ms: Math.round(time / 1000), percentOfBusy: share(time) }));
  return {
    sampledMs: Math.round(total / 1000),
    busyMs: Math.round(busy / 1000),
    selfByPackage: sorted(buckets),
    libraryInclusive: sorted(inclusive),
  };
}

module.exports = { summarizeProfile };
