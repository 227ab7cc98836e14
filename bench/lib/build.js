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

function tsc(project, root) {
  const compiler = require.resolve('typescript/bin/tsc', { paths: [root] });
  try {
    execFileSync(process.execPath, [compiler, '-p', join(root, project)], {
      cwd: root,
      stdio: 'pipe',
    });
  } catch (error) {
    throw new Error(`Building ${project} failed:\n${String(error.stdout || error.message).trim()}`);
  }
}

/**
 * Whether the package's dist/ is missing or older than its sources.
 * @param {string} [root] the checkout (default: this one)
 */
function packageOutOfDate(root = ROOT) {
  return newest(join(root, 'lib'), '.ts') > newest(join(root, 'dist'), '.js');
}

/**
 * Builds the package (dist/) when its sources are newer.
 * @param {(message: string) => void} log
 * @param {string} [root] the checkout to build (default: this one)
 */
function ensurePackageBuilt(log, root = ROOT) {
  if (packageOutOfDate(root)) {
    log('Building the package (dist/) ...');
    tsc('tsconfig.build.json', root);
  }
}

/**
 * Builds the benchmark apps (bench/dist/) when their sources, or the package's dist/, are newer.
 * @param {(message: string) => void} log
 * @param {string} [root] the checkout to build (default: this one)
 */
function ensureBenchBuilt(log, root = ROOT) {
  const appSources = Math.max(
    newest(join(root, 'bench', 'apps'), '.ts'),
    newest(join(root, 'sample-app', 'src'), '.ts'),
    newest(join(root, 'dist'), '.js'),
  );
  if (appSources > newest(join(root, 'bench', 'dist'), '.js')) {
    log('Building the benchmark app (bench/dist/) ...');
    tsc('bench/tsconfig.json', root);
  }
}

/**
 * Builds the package (dist/) and the benchmark apps (bench/dist/) when their sources are newer.
 * @param {(message: string) => void} log
 * @param {string} [root] the checkout to build (default: this one)
 */
function ensureBuilt(log, root = ROOT) {
  ensurePackageBuilt(log, root);
  ensureBenchBuilt(log, root);
}

module.exports = { ensureBuilt, ensureBenchBuilt, ensurePackageBuilt, packageOutOfDate };
