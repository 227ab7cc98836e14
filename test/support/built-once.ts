import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** The repository root. */
const ROOT = join(__dirname, '..', '..');

/** A lock older than this was left by a run that was killed while it built. */
const STALE_LOCK_MS = 10 * 60_000;

/**
 * The newest modification time of the files under `dir` whose names end with `suffix`, but not
 * with `.spec.ts` (specs are never built).
 */
export function newestFile(dir: string, suffix: string): number {
  let newest = 0;
  if (!existsSync(dir)) {
    return newest;
  }
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestFile(path, suffix));
    else if (entry.name.endsWith(suffix) && !entry.name.endsWith('.spec.ts')) {
      newest = Math.max(newest, statSync(path).mtimeMs);
    }
  }
  return newest;
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * Runs `build` when `isFresh()` says the output is out of date, once across the Jest workers of
 * a run: the first worker that needs it builds while holding a lock (a directory under .tmp/),
 * the others wait for it and find the output fresh. Suites never build the same output twice at
 * once, nor read one half written.
 */
export function buildOnce(name: string, isFresh: () => boolean, build: () => void): void {
  if (isFresh()) {
    return;
  }
  const lock = join(ROOT, '.tmp', `${name}.lock`);
  mkdirSync(join(ROOT, '.tmp'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > STALE_LOCK_MS) {
        rmSync(lock, { recursive: true, force: true });
      } else if (held) {
        sleep(200);
      }
    }
  }
  try {
    if (!isFresh()) {
      build();
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Runs the TypeScript compiler of the repository with `args`. */
export function tsc(args: readonly string[]): void {
  const bin = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  execFileSync(process.execPath, [bin, ...args], { cwd: ROOT, stdio: 'pipe' });
}
