import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { startThrowawayRedis, ThrowawayRedis } from '../support/redis';
import { Figures } from './checker';
import { loadConfig, ReliabilityConfig, scenarioKey, USAGE } from './config';
import { DedicatedPostgres, runDirectory } from './databases';
import { repositoryRoot } from './repository-root';
import { runScenario, ScenarioResult } from './scenario';

/**
 * The reliability proof: plays Stripe, Qvard and T-Bank against the sample shop running as real
 * processes (two instances on PostgreSQL, one on SQLite, and two HTTP instances with worker-only
 * processes on the BullMQ transport), kills them, stops and cuts PostgreSQL, kills and flushes
 * Redis, makes handlers fail and stall, then checks the database against the simulator's log.
 * Prints one summary line and exits non-zero on any violation.
 *
 * Run with `npm run test:reliability` (short profile) or `npm run test:reliability -- --long`.
 */
async function main(): Promise<number> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(USAGE);
    return 0;
  }
  let config: ReliabilityConfig;
  try {
    config = loadConfig(process.argv.slice(2), process.env);
  } catch (error) {
    console.error((error as Error).message);
    return 2;
  }
  const root = repositoryRoot(__dirname);
  const entry = join(__dirname, 'app', 'main.js');
  for (const built of [
    join(root, 'dist', 'index.js'),
    join(root, 'sample-app', 'dist', 'app.module.js'),
  ]) {
    if (!existsSync(built)) {
      console.error(
        `${built} is missing: run "npm run build" first (npm run test:reliability does)`,
      );
      return 2;
    }
  }
  const directory = runDirectory();
  const began = Date.now();
  const say = (line: string) =>
    console.log(`[${((Date.now() - began) / 1000).toFixed(1).padStart(6)} s] ${line}`);
  say(`reliability, ${config.profile} profile, seed ${config.seed}; files in ${directory}`);
  let postgres: DedicatedPostgres | undefined;
  let redis: ThrowawayRedis | undefined;
  const results: ScenarioResult[] = [];
  const failures: string[] = [];
  try {
    if (config.scenarios.some((scenario) => scenario.database === 'postgres')) {
      postgres = await DedicatedPostgres.start(directory);
      say(`dedicated PostgreSQL on port ${postgres.port}`);
    }
    if (config.scenarios.some((scenario) => scenario.transport === 'bullmq')) {
      redis = await startThrowawayRedis();
      say(`the run's own Redis on port ${redis.port}`);
    }
    for (const scenario of config.scenarios) {
      try {
        const result = await runScenario({
          config,
          scenario,
          root,
          entry,
          runDirectory: directory,
          postgres,
          redis,
          say,
        });
        results.push(result);
        say(
          `${result.name}: ${describe(result.report.figures)} in ${Math.round(result.elapsedMs / 1000)} s`,
        );
        result.report.notes.forEach((note) => say(`${result.name}: NOTE ${note}`));
        result.report.violations.forEach((violation) =>
          say(`${result.name}: VIOLATION ${violation}`),
        );
      } catch (error) {
        failures.push(`${scenarioKey(scenario)}: ${(error as Error).stack ?? String(error)}`);
        say(`${scenarioKey(scenario)}: FAILED ${(error as Error).message}`);
      }
    }
  } finally {
    await redis?.stop();
    await postgres?.destroy();
    if (
      !config.keep &&
      failures.length === 0 &&
      results.every((r) => r.report.violations.length === 0)
    ) {
      rmSync(directory, { recursive: true, force: true });
    } else {
      say(`kept ${directory} (logs of every instance and the simulator)`);
    }
  }
  failures.forEach((failure) => console.error(failure));
  const total = sum(results.map((result) => result.report.figures));
  const violations =
    results.reduce((n, result) => n + result.report.violations.length, 0) + failures.length;
  console.log(
    `RELIABILITY ${violations === 0 ? 'PASS' : 'FAIL'} profile=${config.profile} seed=${config.seed} ` +
      `${describe(total)} violations=${violations} elapsed=${Math.round((Date.now() - began) / 1000)}s`,
  );
  return violations === 0 ? 0 : 1;
}

/** The figures as `name=value` pairs, the summary's wording. */
function describe(figures: Figures): string {
  return [
    `sent=${figures.sent}`,
    `acknowledged=${figures.acknowledged}`,
    `stored=${figures.stored}`,
    `processed=${figures.processed}`,
    `duplicates_absorbed=${figures.duplicatesAbsorbed}`,
    `kills_survived=${figures.killsSurvived}`,
    `worker_kills=${figures.workerKillsSurvived}`,
    `pg_stops=${figures.outagesSurvived}`,
    `pg_cuts=${figures.connectionCutsSurvived}`,
    `redis_restarts=${figures.redisRestartsSurvived}`,
    `redis_flushes=${figures.redisFlushesSurvived}`,
    `lost=${figures.lost}`,
    `duplicated_effects=${figures.duplicatedEffects}`,
    `backward_transitions=${figures.backwardTransitions}`,
    `dead_replayed=${figures.replayed}/${figures.deadBeforeFix}`,
    `invalid_refused=${figures.invalidRefused}/${figures.invalidSent}`,
    `invalid_stored=${figures.invalidStored}`,
    `deliveries=${figures.deliveries}`,
    `requests=${figures.requests}`,
    `given_up=${figures.gaveUp}`,
    `answers_503=${figures.unavailable503}`,
    `timeouts=${figures.timeouts}`,
    `answer_p99_ms=${figures.answerP99Ms}`,
    `refused_connections=${figures.connectionErrors}`,
    `recovery_ms=${figures.recoveryMs}`,
    `jobs_readded=${figures.readded}`,
    `events_reclaimed=${figures.reclaimed}`,
  ].join(' ');
}

/** Figures that are the worst of the scenarios rather than their sum. */
const SLOWEST: ReadonlySet<keyof Figures> = new Set(['recoveryMs', 'answerP99Ms', 'answerMaxMs']);

/** Adds the scenarios' figures up (times: the slowest). */
function sum(all: readonly Figures[]): Figures {
  const total: Partial<Record<keyof Figures, number>> = {};
  for (const figures of all) {
    for (const [key, value] of Object.entries(figures) as [keyof Figures, number][]) {
      const previous = total[key] ?? 0;
      total[key] = SLOWEST.has(key) ? Math.max(previous, value) : previous + value;
    }
  }
  return new Proxy(total, { get: (target, key) => target[key as keyof Figures] ?? 0 }) as Figures;
}

void main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
