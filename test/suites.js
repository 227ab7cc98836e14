// How `npm test` groups the end-to-end specs into Jest suites, read by jest.config.js and by
// test/support/folder-suite.ts.
//
// Jest gives every suite a module registry of its own, so each suite loads Nest, TypeORM and
// the package again: about 2 s of CPU time a suite, half of what most specs cost. The specs of a
// folder of test/ therefore run as one suite, its `all.e2e-suite.ts`, each spec file in a
// `describe` block of its name; the specs below take long enough to keep a worker busy, and run
// as suites of their own.

/** Spec files that run as suites of their own, by path from the repository root. */
const ALONE = [
  'test/cli/cli.e2e-spec.ts',
  'test/docs/docs-options-reference.e2e-spec.ts',
  'test/dispatch/reliability.e2e-spec.ts',
  'test/ingress/provider-api-budget.e2e-spec.ts',
];

const { readdirSync } = require('node:fs');
const { join, relative } = require('node:path');

const ROOT = join(__dirname, '..');

/** The spec files of a folder that its `all.e2e-suite.ts` runs: all but those of `ALONE`. */
function groupedSpecs(dir) {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.e2e-spec.ts'))
    .filter((file) => !ALONE.includes(relative(ROOT, join(dir, file))))
    .sort();
}

module.exports = { ALONE, groupedSpecs };
