import { join } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { groupedSpecs } = require('../suites.js') as {
  groupedSpecs: (dir: string) => readonly string[];
};

/**
 * Runs the end-to-end specs of `dir` as one suite, in one module registry: each spec file's
 * tests, hooks and module-level code inside a `describe` block of its file name, so a file's
 * `beforeAll` and `afterEach` stay its own. The files of `ALONE` (test/suites.js) are left to
 * run as suites of their own.
 * @example folderSuite(__dirname); // test/ingress/all.e2e-suite.ts
 */
export function folderSuite(dir: string): void {
  for (const file of groupedSpecs(dir)) {
    describe(file, () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(join(dir, file));
    });
  }
}
