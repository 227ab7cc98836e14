'use strict';
/** Builds what the benchmark runs, when its sources changed since the last build. */
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync } = require('node:fs');
const { join } = require('node:path');
const { ROOT } = require('./targets');

function newest(dir, extension) {
  if (!existsSync(dir)) return 0;
  let latest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== 'dist')
        latest = Math.max(latest, newest(path, extension));
    } else if (entry.name.endsWith(extension) && !entry.name.endsWith('.spec.ts')) {
      latest = Math.max(latest, statSync(path).mtimeMs);
    }
  }
  return latest;
}

function tsc(project) {
  const compiler = require.resolve('typescript/bin/tsc', { paths: [ROOT] });
  try {
    execFileSync(process.execPath, [compiler, '-p', join(ROOT, project)], {
      cwd: ROOT,
      stdio: 'pipe',
    });
  } catch (error) {
    throw new Error(`Building ${project} failed:\n${String(error.stdout || error.message).trim()}`);
  }
}

/**
 * Builds the package (dist/) when its sources are newer.
 * @param {(message: string) => void} log
 */
function ensurePackageBuilt(log) {
  const libSources = newest(join(ROOT, 'lib'), '.ts');
  if (libSources > newest(join(ROOT, 'dist'), '.js')) {
    log('Building the package (dist/) ...');
    tsc('tsconfig.build.json');
  }
}

/**
 * Builds the package (dist/) and the benchmark apps (bench/dist/) when their sources are newer.
 * @param {(message: string) => void} log
 */
function ensureBuilt(log) {
  ensurePackageBuilt(log);
  const appSources = Math.max(
    newest(join(ROOT, 'bench', 'apps'), '.ts'),
    newest(join(ROOT, 'sample-app', 'src'), '.ts'),
    newest(join(ROOT, 'dist'), '.js'),
  );
  if (appSources > newest(join(ROOT, 'bench', 'dist'), '.js')) {
    log('Building the benchmark app (bench/dist/) ...');
    tsc('bench/tsconfig.json');
  }
}

module.exports = { ensureBuilt, ensurePackageBuilt };
