'use strict';
/**
 * Installs and builds a peer app of `bench/peers/` when a run needs it. Each peer is its own npm
 * project with its own lock file, so the versions it pins (another Nest major, the peer's own
 * Stripe SDK) never reach the package's root dependencies.
 */
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');

function mtime(path) {
  return existsSync(path) ? statSync(path).mtimeMs : 0;
}

function newestTs(dir) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) latest = Math.max(latest, newestTs(path));
    else if (entry.name.endsWith('.ts')) latest = Math.max(latest, statSync(path).mtimeMs);
  }
  return latest;
}

function runIn(dir, command, args, what) {
  try {
    execFileSync(command, args, { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
  } catch (error) {
    const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message;
    throw new Error(`${what} failed in ${dir}:\n${output.split('\n').slice(-20).join('\n')}`);
  }
}

/**
 * `npm ci` in `dir` when its node_modules is missing or older than its lock file, then its
 * TypeScript build (its own compiler, `tsconfig.json` → `dist/`) when a source, the config or
 * the install is newer than `dist/main.js`.
 * @param {string} dir the peer's folder
 * @param {(message: string) => void} log
 * @returns {{ installSec: number | null, buildSec: number | null }} seconds each step took, null
 *   when it was up to date
 */
function ensurePeerReady(dir, log) {
  const seconds = (from) => Math.round((Date.now() - from) / 100) / 10;
  // NOTE: npm writes node_modules/.package-lock.json last, so it marks a finished install.
  const installed = join(dir, 'node_modules', '.package-lock.json');
  let installSec = null;
  if (mtime(installed) < mtime(join(dir, 'package-lock.json'))) {
    log(`Installing ${dir} (npm ci) ...`);
    const started = Date.now();
    runIn(dir, 'npm', ['ci', '--no-audit', '--no-fund'], 'npm ci');
    installSec = seconds(started);
    log(`  installed in ${installSec} s`);
  }
  const built = join(dir, 'dist', 'main.js');
  const sources = Math.max(
    newestTs(join(dir, 'src')),
    mtime(join(dir, 'tsconfig.json')),
    mtime(installed),
  );
  let buildSec = null;
  if (sources > mtime(built)) {
    log(`Building ${dir} (tsc) ...`);
    const started = Date.now();
    const compiler = join(dir, 'node_modules', 'typescript', 'bin', 'tsc');
    runIn(dir, process.execPath, [compiler, '-p', 'tsconfig.json'], 'tsc');
    buildSec = seconds(started);
    log(`  built in ${buildSec} s`);
  }
  return { installSec, buildSec };
}

module.exports = { ensurePeerReady };
