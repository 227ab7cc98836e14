import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The benchmark's side-by-side run against another git revision (`npm run bench -- --vs <rev>`):
 * its argument errors as the runner answers them in a child process, revisions resolved by real
 * git in a throwaway repository, and the side-by-side figures from fixed results.
 */

const ROOT = join(__dirname, '..', '..');
const RUNNER = join(ROOT, 'bench', 'run.js');

interface Spec {
  id: string;
  label: string;
  script: string;
  runsPackage?: boolean;
  root?: string;
  twinOf?: string;
}
interface Tree {
  rev: string;
  sha: string;
  short: string;
  root: string;
}
interface SideRow {
  target: string;
  twin: string;
  figure: string;
  better: string;
  rounds: { round: number; this: number | null; other: number | null; ratio: number | null }[];
  medianRatio: number | null;
}
/* eslint-disable @typescript-eslint/no-require-imports */
const revision = require('../../bench/lib/revision') as {
  resolveRevision(rev: string, root?: string): { rev: string; sha: string; short: string };
  checkTwinScripts(specs: Spec[], tree: Tree): void;
  twinSpecs(specs: Spec[], tree: Tree): Spec[];
};
const { TARGETS } = require('../../bench/lib/targets') as { TARGETS: Record<string, Spec> };
const report = require('../../bench/lib/report') as {
  addRatios(results: unknown): void;
  sideBySide(results: unknown): SideRow[];
  markdown(results: unknown): string;
  median(values: number[]): number | null;
  goals(
    results: unknown,
  ): { goal: string; target: string; measured: string; met: boolean | null }[];
};
/* eslint-enable @typescript-eslint/no-require-imports */

/** Runs the benchmark runner with `args`; resolves to its exit code and stderr. */
function runBench(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [RUNNER, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}

describe('npm run bench -- --vs / --rounds: argument errors', () => {
  it.each([
    [
      ['--vs', 'no-such-revision-7f3a'],
      /--vs no-such-revision-7f3a: git rev-parse finds no commit/,
    ],
    [['--vs'], /--vs needs a value/],
    [['--vs', ' '], /--vs needs a git revision/],
    [['--rounds', '0'], /--rounds needs a positive number, got "0"/],
    [['--rounds', '2.5'], /--rounds needs a whole number, got "2.5"/],
    [['--rounds', 'three'], /--rounds needs a positive number, got "three"/],
    [['--vs', 'HEAD', '--long'], /--vs and --rounds do not apply to --long/],
    [['--rounds', '2', '--long'], /--vs and --rounds do not apply to --long/],
    [
      ['--vs', 'HEAD', '--targets', 'reference,peer'],
      /--vs needs one of the package targets: pg-express, pg-fastify, sqlite-express/,
    ],
  ])('%j exits 2 with a clear message', async (args, message) => {
    const { code, stderr } = await runBench(args);
    expect(stderr).toMatch(message);
    expect(code).toBe(2);
  });

  it('--help documents --vs and --rounds', async () => {
    const output = execFileSync(process.execPath, [RUNNER, '--help'], { encoding: 'utf8' });
    expect(output).toMatch(/--vs REV/);
    expect(output).toMatch(/--rounds N .*\n.*\(default 1; with --vs 3\)/);
  });
});

describe('bench revisions (real git)', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: repo, encoding: 'utf8', stdio: 'pipe' }).trim();

  beforeAll(() => {
    repo = mkdtempSync(join(tmpdir(), 'pw-bench-vs-'));
    git('init', '--quiet');
    git('config', 'user.email', 'bench@example.com');
    git('config', 'user.name', 'Bench');
    writeFileSync(join(repo, 'README.md'), 'no bench yet\n');
    git('add', '.');
    git('commit', '--quiet', '-m', 'without bench');
    mkdirSync(join(repo, 'bench'));
    writeFileSync(join(repo, 'bench', 'run.js'), '\n');
    git('add', '.');
    git('commit', '--quiet', '-m', 'with bench');
  });

  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('resolves a revision to its commit and short sha', () => {
    const resolved = revision.resolveRevision('HEAD', repo);
    expect(resolved.sha).toBe(git('rev-parse', 'HEAD'));
    expect(resolved.short).toBe(git('rev-parse', '--short', 'HEAD'));
    expect(resolved.rev).toBe('HEAD');
  });

  it('names the revision when it is unknown or has no bench/', () => {
    expect(() => revision.resolveRevision('no-such-branch', repo)).toThrow(
      /--vs no-such-branch: git rev-parse finds no commit by that name/,
    );
    const short = git('rev-parse', '--short', 'HEAD~1');
    expect(() => revision.resolveRevision('HEAD~1', repo)).toThrow(
      `--vs HEAD~1 (${short}): that revision has no bench/, so it cannot be run`,
    );
  });

  it('names the revision when its tree lacks a target script', () => {
    const tree = { rev: 'HEAD', sha: 'x', short: 'abc1234', root: repo };
    expect(() => revision.checkTwinScripts([TARGETS['pg-express']], tree)).toThrow(
      '--vs HEAD (abc1234): that revision has no bench/dist/bench/apps/main.js after its build, ' +
        "so its pg-express target cannot run as this checkout's does",
    );
    expect(() =>
      revision.checkTwinScripts([{ ...TARGETS['pg-express'], script: 'bench/run.js' }], tree),
    ).not.toThrow();
  });

  it('twins the package targets only, run from the other tree', () => {
    const tree = { rev: 'main', sha: 'x', short: 'abc1234', root: '/tmp/other' };
    const twins = revision.twinSpecs(Object.values(TARGETS), tree);
    expect(twins.map((twin) => twin.id)).toEqual([
      'pg-express@abc1234',
      'pg-fastify@abc1234',
      'sqlite-express@abc1234',
    ]);
    expect(twins[0]).toMatchObject({
      label: '(b) sample app, PostgreSQL, Express @ abc1234',
      root: '/tmp/other',
      twinOf: 'pg-express',
      script: TARGETS['pg-express'].script,
    });
  });
});

/** A closed-loop or fixed-rate result with the fields the report reads. */
function load(acksPerSec: number, p99: number, appMs: number) {
  return {
    acksPerSec,
    latencyMs: { p50: p99 / 2, p99, p999: p99, max: p99 * 2 },
    non2xx: 0,
    socketErrors: 0,
    acked: acksPerSec * 2,
    rows: acksPerSec * 2,
    accounting: { ok: true, detail: 'ok' },
    cpu: { appMsPerUnit: appMs, dbMsPerUnit: appMs / 2 },
  };
}

function drain(eventsPerSec: number) {
  return {
    scenario: 'drain',
    backlog: 2000,
    handled: 2000,
    eventsPerSec,
    wallSec: 1,
    backlogLeft: 0,
    cpu: { appMsPerUnit: 0.4, dbMsPerUnit: 0.2 },
    handlerRunsCheck: { ok: true, detail: '2000 handler runs for 2000 stored events' },
  };
}

function target(id: string, round: number, scenarios: Record<string, unknown>, twinOf?: string) {
  const label = id.startsWith('reference')
    ? '(a) reference'
    : `(b) express${twinOf ? ' @ abc1234' : ''}`;
  return { id, label, round, dispatcher: false, scenarios, ...(twinOf ? { twinOf } : {}) };
}

/** Three rounds of the reference, this checkout and its twin, with fixed figures. */
function fixedResults() {
  const targets = [];
  const own = [1000, 1200, 900];
  const other = [1000, 1000, 1000];
  for (let round = 1; round <= 3; round += 1) {
    targets.push(target('reference', round, { throughput: load(4000 * round, 5, 0.2) }));
    targets.push(
      target('pg-express', round, {
        throughput: load(own[round - 1], 20, 0.5),
        fixedRate: load(1000, 10 * round, 0.6),
        drain: round === 2 ? { scenario: 'drain', error: 'boom' } : drain(2000),
      }),
    );
    targets.push(
      target(
        'pg-express@abc1234',
        round,
        {
          throughput: load(other[round - 1], 20, 0.25),
          fixedRate: load(1000, 10, 0.6),
          drain: drain(2500),
        },
        'pg-express',
      ),
    );
  }
  return {
    mode: 'full',
    startedAt: '2026-12-01T17:00:00.000Z',
    machine: {
      nproc: 2,
      cpuModel: 'cpu',
      memoryGiB: 1,
      os: 'Linux',
      node: 'v20',
      postgres: null,
      sqlite: null,
      wrk: 'wrk',
      loadAverageAtStart: [0, 0, 0],
      loadAverageAtEnd: [0, 0, 0],
    },
    settings: {
      durationSec: 2,
      wrk: { threads: 1, connections: 50 },
      fixedRatePerSec: 1000,
      handlerMs: 200,
      dispatchConcurrency: 'sample default',
      prefillRows: 0,
      pinned: false,
      rounds: 3,
    },
    vs: { revision: 'main', sha: 'abc1234abc', short: 'abc1234', worktree: '/tmp/wt' } as Record<
      string,
      unknown
    >,
    targets,
    failures: [],
    checks: [],
    goals: [],
  };
}

describe('bench report: side by side', () => {
  it('gives each round this ÷ other and the median of the rounds', () => {
    const results = fixedResults();
    const rows = report.sideBySide(results);
    const throughput = rows.find((row) => row.figure === 'Throughput acks/s');
    expect(throughput).toMatchObject({
      target: 'pg-express',
      twin: 'pg-express@abc1234',
      better: 'higher',
    });
    expect(throughput?.rounds).toEqual([
      { round: 1, this: 1000, other: 1000, ratio: 1 },
      { round: 2, this: 1200, other: 1000, ratio: 1.2 },
      { round: 3, this: 900, other: 1000, ratio: 0.9 },
    ]);
    expect(throughput?.medianRatio).toBe(1);
    const p99 = rows.find((row) => row.figure === 'Fixed-rate p99 ms');
    expect(p99?.rounds.map((r) => r.ratio)).toEqual([1, 2, 3]);
    expect(p99?.better).toBe('lower');
    expect(rows.find((row) => row.figure === 'Throughput: app CPU ms/ack')?.medianRatio).toBe(2);
  });

  it('leaves a failed round out of the median and skips figures neither side measured', () => {
    const rows = report.sideBySide(fixedResults());
    const drainRow = rows.find((row) => row.figure === 'Drain handler starts/s');
    expect(drainRow?.rounds.map((r) => r.ratio)).toEqual([0.8, null, 0.8]);
    expect(drainRow?.rounds[1]).toEqual({ round: 2, this: null, other: 2500, ratio: null });
    expect(drainRow?.medianRatio).toBe(0.8);
    expect(rows.some((row) => row.figure.startsWith('Re-delivery'))).toBe(false);
    expect(report.median([])).toBeNull();
    expect(report.median([3, 1, 2, 10])).toBe(2.5);
  });

  it('takes ratios against the reference of the same round and labels rounds in the tables', () => {
    const results = fixedResults();
    report.addRatios(results);
    const own = results.targets.filter((t) => t.id === 'pg-express');
    expect(own.map((t) => (t.scenarios.throughput as { ratio: number }).ratio)).toEqual([
      0.25, 0.15, 0.08,
    ]);
    results.vs.rows = report.sideBySide(results);
    const markdown = report.markdown(results);
    expect(markdown).toContain('### Side by side: this checkout vs main');
    expect(markdown).toContain(
      '| Target | Figure | Round 1: this / abc1234 (ratio) | Round 2: this / abc1234 (ratio) | ' +
        'Round 3: this / abc1234 (ratio) | Median ratio this ÷ abc1234 |',
    );
    expect(markdown).toContain(
      '| (b) express | Throughput acks/s (higher is better) | 1,000 / 1,000 (1.00×) | ' +
        '1,200 / 1,000 (1.20×) | 900 / 1,000 (0.90×) | 1.00× |',
    );
    expect(markdown).toContain(
      '| (b) express | Drain handler starts/s (higher is better) | 2,000 / 2,500 (0.80×) | – / 2,500 (–) |',
    );
    expect(markdown).toContain('| (b) express @ abc1234, round 3 | 1,000 |');
    expect(markdown).toContain('| (a) reference, round 2 | 8,000 | 1.00× (ref) |');
  });
});

describe('bench report: goals', () => {
  it('judges the drain against the other revision, the Express p99 at 25 ms and acks against the peer', () => {
    const results = fixedResults();
    results.targets.push(target('peer', 1, { throughput: load(800, 30, 0.3) }));
    report.addRatios(results);
    results.vs.rows = report.sideBySide(results);
    const goals = report.goals(results);
    expect(goals.find((g) => g.goal.includes('drain'))).toMatchObject({
      goal: 'pg-express: dispatcher drain, no-op handler, vs abc1234 (median of the rounds)',
      target: '≥ 1.75×',
      measured: '0.80× (2,000 / 2,500, – / 2,500, 2,000 / 2,500 events/s)',
      met: false,
    });
    expect(goals.find((g) => g.goal.includes('p99 ack latency at 1,000'))).toMatchObject({
      target: '≤ 25 ms',
      measured: '10.0 ms',
      met: true,
    });
    expect(goals.find((g) => g.goal.includes('NestJS peer'))).toMatchObject({
      target: '≥ 1.00×',
      measured: '1.25× (1,000/s vs 800/s)',
      met: true,
    });
  });

  it('keeps the absolute drain goal for a run without --vs', () => {
    const all = fixedResults();
    const results = { ...all, vs: undefined, targets: all.targets.filter((t) => !('twinOf' in t)) };
    report.addRatios(results);
    const drainGoal = report.goals(results).find((g) => g.goal.includes('drain'));
    expect(drainGoal).toMatchObject({ target: '≥ 2,000 events/s', measured: '2,000 events/s' });
  });
});
