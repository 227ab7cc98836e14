import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { ALONE } = require('../suites.js') as { ALONE: readonly string[] };

const ROOT = join(__dirname, '..', '..');

/**
 * Runs the end-to-end specs of `dir` as one suite, in one module registry: each spec file's
 * tests, hooks and module-level code inside a `describe` block of its file name, so a file's
 * `beforeAll` and `afterEach` stay its own. The files of `ALONE` (test/suites.js) are left to
 * run as suites of their own.
 * @example folderSuite(__dirname); // test/ingress/all.e2e-suite.ts
 */
export function folderSuite(dir: string): void {
  const files = readdirSync(dir)
    .filter((file) => file.endsWith('.e2e-spec.ts'))
    .filter((file) => !ALONE.includes(relative(ROOT, join(dir, file))))
    .sort();
  for (const file of files) {
    describe(file, () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      require(join(dir, file));
    });
  }
}
