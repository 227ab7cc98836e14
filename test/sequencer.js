// The order a run starts the suites in: the longest first, so that no worker is left with a long
// suite at the end. Jest's own order does that from the times of the last run; without them (a
// fresh clone, a cold cache) it takes the largest file first, which would put the folder suites
// (three lines each) last. There, a folder suite weighs what its spec files do.
const { statSync } = require('node:fs');
const { dirname, join } = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;
const { groupedSpecs } = require('./suites');

/** The bytes of a suite's spec files: its own, or those of its folder that it runs. */
function weight(path) {
  if (!path.endsWith('all.e2e-suite.ts')) {
    return statSync(path).size;
  }
  const dir = dirname(path);
  return groupedSpecs(dir).reduce((bytes, file) => bytes + statSync(join(dir, file)).size, 0);
}

class SuiteSequencer extends TestSequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    if (sorted.some((test) => test.duration != null)) {
      return sorted;
    }
    const weights = new Map(sorted.map((test) => [test.path, weight(test.path)]));
    return sorted.sort((a, b) => weights.get(b.path) - weights.get(a.path));
  }
}

module.exports = SuiteSequencer;
