// Copies the inbox page's files (HTML, CSS and its JavaScript modules) next to the compiled admin
// code, which serves them from dist/admin/page/: tsc compiles the TypeScript only. The folder's
// tsconfig.json only type-checks the modules, so it is left out.
import { cpSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const to = join(root, 'dist', 'admin', 'page');
rmSync(to, { recursive: true, force: true });
cpSync(join(root, 'lib', 'admin', 'page'), to, {
  recursive: true,
  filter: (source) => basename(source) !== 'tsconfig.json',
});
