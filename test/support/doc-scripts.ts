import { spawnSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { buildOnce, newestFile, tsc } from './built-once';

/** The repository root. */
export const ROOT = join(__dirname, '..', '..');

/** What a docs script printed and how it exited. */
export interface DocScriptResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Compiles scripts/ to .tmp/scripts as the `docs:*` npm scripts do, when they changed since,
 * once across the suites of a run.
 */
export function compileDocScripts(): void {
  const out = join(ROOT, '.tmp', 'scripts');
  buildOnce(
    'doc-scripts',
    () => newestFile(out, '.js') >= newestFile(join(ROOT, 'scripts'), '.ts'),
    () => tsc(['-p', join(ROOT, 'scripts', 'tsconfig.json')]),
  );
}

/** Runs a compiled docs script (`options-reference`, `check-doc-links`…) in a child process. */
export function runDocScript(name: string, args: readonly string[]): DocScriptResult {
  const run = spawnSync(process.execPath, [join(ROOT, '.tmp', 'scripts', `${name}.js`), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
  });
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** A new directory holding the given files, by path relative to it. */
export function docsTree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, file)), { recursive: true });
    writeFileSync(join(root, file), text);
  }
  return root;
}

/** A new directory holding a copy of lib/ (node_modules linked), for the options reference. */
export function libCopy(): string {
  const root = mkdtempSync(join(tmpdir(), 'docs-lib-'));
  cpSync(join(ROOT, 'lib'), join(root, 'lib'), { recursive: true });
  // NOTE: the provider catalog also lists each provider folder's test kit.
  cpSync(join(ROOT, 'test/providers'), join(root, 'test/providers'), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  return root;
}

/**
 * `make` (`docsTree`, `libCopy`) as a function whose directories are removed once the calling
 * suite ends; call it inside `describe`.
 */
export function removedAfterSuite<A extends unknown[]>(
  make: (...args: A) => string,
): (...args: A) => string {
  const roots: string[] = [];
  afterAll(() => roots.forEach((root) => rmSync(root, { recursive: true, force: true })));
  return (...args) => {
    const root = make(...args);
    roots.push(root);
    return root;
  };
}
