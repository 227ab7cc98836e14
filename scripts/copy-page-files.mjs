// Copies the inbox page's files (HTML, JavaScript, CSS) next to the compiled admin code, which
// serves them from dist/admin/page/: tsc compiles the TypeScript only.
import { cpSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const to = join(root, 'dist', 'admin', 'page');
rmSync(to, { recursive: true, force: true });
cpSync(join(root, 'lib', 'admin', 'page'), to, { recursive: true });
