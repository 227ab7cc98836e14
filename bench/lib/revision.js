'use strict';
/**
 * Another git revision of the package, for `npm run bench -- --vs <rev>`: resolved with
 * `git rev-parse`, checked out into a detached worktree under the OS temp dir (kept, and reused
 * while it stays at that commit), given this checkout's `node_modules`, and built with its own
 * `npm run build` and bench build. Its package targets then run beside this checkout's.
 */
const { execFileSync } = require('node:child_process');
const {
  existsSync,
  lstatSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  rmSync,
  symlinkSync,
} = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { ROOT } = require('./targets');
const { ensureBenchBuilt, packageOutOfDate } = require('./build');

/** Runs git in `cwd`; resolves to its trimmed output, throws with git's own message. */
function git(args, cwd = ROOT) {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/**
 * The commit `rev` names (a sha, a branch, `HEAD~3` …).
 * @param {string} rev
 * @param {string} [root] the checkout whose repository resolves it
 * @returns {{ rev: string, sha: string, short: string }}
 * @throws Error naming `rev` when git finds no commit by that name or `rev` has no bench/
 */
function resolveRevision(rev, root = ROOT) {
  let sha;
  try {
    sha = git(['rev-parse', '--verify', '--quiet', '--end-of-options', `${rev}^{commit}`], root);
  } catch {
    throw new Error(`--vs ${rev}: git rev-parse finds no commit by that name in ${root}`);
  }
  const short = git(['rev-parse', '--short', sha], root);
  let benchType = null;
  try {
    benchType = git(['cat-file', '-t', `${sha}:bench`], root);
  } catch {
    // NOTE: git exits non-zero when the path is not in that tree.
  }
  if (benchType !== 'tree') {
    throw new Error(`--vs ${rev} (${short}): that revision has no bench/, so it cannot be run`);
  }
  return { rev, sha, short };
}

/** Where the worktree of `short` lives: `$TMPDIR/payment-webhooks-bench-<short>`. */
function worktreePath(short) {
  return join(tmpdir(), `payment-webhooks-bench-${short}`);
}

/** The commit checked out at `dir`, or null when it is no git checkout. */
function checkedOut(dir) {
  try {
    return git(['rev-parse', 'HEAD'], dir);
  } catch {
    return null;
  }
}

/**
 * Checks `revision` out into its detached worktree, or reuses the one already there at that
 * commit. Resolves to whether it was reused.
 */
function checkoutWorktree(revision, dir, log) {
  if (existsSync(dir) && checkedOut(dir) === revision.sha) return true;
  if (existsSync(dir)) {
    log(`  ${dir} is not at ${revision.short}: checking it out again`);
    try {
      git(['worktree', 'remove', '--force', dir]);
    } catch {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // NOTE: a worktree whose directory the OS removed from the temp dir is still registered;
  // pruning lets `worktree add` use the path again.
  git(['worktree', 'prune']);
  git(['worktree', 'add', '--detach', '--quiet', dir, revision.sha]);
  return false;
}

/** Links this checkout's `node_modules` into `dir` (replacing a link that points elsewhere). */
function linkNodeModules(dir) {
  const own = realpathSync(join(ROOT, 'node_modules'));
  const link = join(dir, 'node_modules');
  let stat = null;
  try {
    stat = lstatSync(link);
  } catch {
    // NOTE: not there yet.
  }
  if (stat?.isSymbolicLink() && readlinkSync(link) === own) return;
  if (stat) rmSync(link, { recursive: true, force: true });
  symlinkSync(own, link, 'dir');
}

/** Whether `sha`'s package-lock.json differs from this checkout's (a missing one differs). */
function lockFileDiffers(sha) {
  let theirs;
  try {
    theirs = execFileSync('git', ['show', `${sha}:package-lock.json`], {
      cwd: ROOT,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 256 * 2 ** 20,
    });
  } catch {
    return true;
  }
  const ours = existsSync(join(ROOT, 'package-lock.json'))
    ? readFileSync(join(ROOT, 'package-lock.json'), 'utf8')
    : null;
  return theirs !== ours;
}

/** `npm run build` in `dir` when its dist/ is older than its sources, then its bench build. */
function buildWorktree(revision, dir, log) {
  if (packageOutOfDate(dir)) {
    log(`  building ${revision.short} (npm run build) ...`);
    try {
      execFileSync('npm', ['run', 'build'], { cwd: dir, stdio: 'pipe', encoding: 'utf8' });
    } catch (error) {
      const output = `${error.stdout ?? ''}${error.stderr ?? ''}`.trim() || error.message;
      throw new Error(
        `--vs ${revision.rev} (${revision.short}): npm run build failed in ${dir}:\n` +
          output.split('\n').slice(-20).join('\n'),
      );
    }
  }
  try {
    ensureBenchBuilt(log, dir);
  } catch (error) {
    throw new Error(`--vs ${revision.rev} (${revision.short}): ${error.message}`);
  }
}

/**
 * Throws, naming the revision, when a spec's script is not where this checkout has it in the
 * other tree (after its build): the target table of that revision differs from this one.
 * @param {object[]} specs targets of TARGETS
 * @param {{ rev: string, short: string, root: string }} tree
 */
function checkTwinScripts(specs, tree) {
  for (const spec of specs) {
    if (!existsSync(join(tree.root, spec.script))) {
      throw new Error(
        `--vs ${tree.rev} (${tree.short}): that revision has no ${spec.script} after its build, ` +
          `so its ${spec.id} target cannot run as this checkout's does`,
      );
    }
  }
}

/**
 * Resolves, checks out, links and builds `rev` for a side-by-side run.
 * @param {{ rev: string, sha: string, short: string }} revision from resolveRevision()
 * @param {object[]} specs the package targets that get a twin
 * @param {(message: string) => void} log
 * @returns {{ rev: string, sha: string, short: string, root: string, reused: boolean,
 *   lockFileDiffers: boolean, setupSec: number }}
 */
function prepareRevision(revision, specs, log) {
  const started = Date.now();
  const root = worktreePath(revision.short);
  log(`Preparing ${revision.rev} (${revision.short}) in ${root} ...`);
  const reused = checkoutWorktree(revision, root, log);
  linkNodeModules(root);
  const differs = lockFileDiffers(revision.sha);
  if (differs) {
    log(
      `  warning: package-lock.json differs between this checkout and ${revision.short}; ` +
        `both run on this checkout's node_modules`,
    );
  }
  buildWorktree(revision, root, log);
  const tree = { ...revision, root, reused, lockFileDiffers: differs };
  checkTwinScripts(specs, tree);
  tree.setupSec = Math.round((Date.now() - started) / 100) / 10;
  log(
    `  ${revision.short} ready (${reused ? 'worktree reused' : 'checked out'}, ${tree.setupSec} s)`,
  );
  return tree;
}

/**
 * The twin of each package target: the same spec, run from the other tree.
 * @param {object[]} specs targets of TARGETS
 * @param {{ short: string, root: string }} tree from prepareRevision()
 */
function twinSpecs(specs, tree) {
  return specs
    .filter((spec) => spec.runsPackage)
    .map((spec) => ({
      ...spec,
      id: `${spec.id}@${tree.short}`,
      label: `${spec.label} @ ${tree.short}`,
      root: tree.root,
      twinOf: spec.id,
    }));
}

module.exports = { resolveRevision, prepareRevision, checkTwinScripts, twinSpecs, worktreePath };
