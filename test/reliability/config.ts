import { WorkloadMix } from './workload';
import { Compression } from './senders';

/** One run against one database. */
export interface ScenarioConfig {
  /** `postgres` (two instances on one database) or `sqlite` (one instance). */
  readonly database: 'postgres' | 'sqlite';
  /**
   * Where the handlers run: `in-process` (each instance's claim loop) or `bullmq` (the HTTP
   * instances relay to a BullMQ queue on the run's own Redis, worker-only processes run the jobs).
   */
  readonly transport: 'in-process' | 'bullmq';
  /** HTTP instances (the simulator's targets). */
  readonly instances: number;
  /** Worker-only processes (no HTTP), for `bullmq`. */
  readonly workers: number;
  /** Payments (orders) in the workload. */
  readonly payments: number;
  /** Real ms over which first deliveries are spread; retries may go on after it. */
  readonly sendWindowMs: number;
  /** SIGKILLs of a random HTTP instance, each followed by a restart. */
  readonly kills: number;
  /** SIGKILLs of a random worker process, each followed by a restart. */
  readonly workerKills: number;
  /** Times PostgreSQL is stopped, and for how long. */
  readonly pgStops: number;
  readonly pgStopMs: number;
  /** Times every app connection is terminated (`pg_terminate_backend`). */
  readonly pgCuts: number;
  /** Times Redis is killed (SIGKILL, keeping nothing) and started again after `redisDownMs`. */
  readonly redisRestarts: number;
  readonly redisDownMs: number;
  /** Times Redis is emptied with `FLUSHALL` while it runs. */
  readonly redisFlushes: number;
}

/** What `--only` names a scenario by: its transport for BullMQ, else its database. */
export type ScenarioKey = 'postgres' | 'sqlite' | 'bullmq';

/** The scenario's name in options, seeds and file names. */
export function scenarioKey(scenario: ScenarioConfig): ScenarioKey {
  return scenario.transport === 'bullmq' ? 'bullmq' : scenario.database;
}

/** No worker processes, no Redis faults: what the in-process scenarios leave out. */
const IN_PROCESS = {
  transport: 'in-process',
  workers: 0,
  workerKills: 0,
  redisRestarts: 0,
  redisDownMs: 0,
  redisFlushes: 0,
} as const;

/** Everything a run is made of; `short` fits CI, `long` is for a local soak. */
export interface ReliabilityConfig {
  readonly profile: 'short' | 'long';
  readonly seed: string;
  readonly scenarios: readonly ScenarioConfig[];
  readonly mix: WorkloadMix;
  /** How many times faster each simulated provider's clock runs. */
  readonly compression: Compression;
  /** Request timeout of every simulated provider, in real ms. */
  readonly timeoutMs: number;
  /** Requests in flight at once from the simulator. */
  readonly concurrency: number;
  /** Probe-handler faults: random failures, the marked subset, slow attempts. */
  readonly failRate: number;
  readonly failUpToAttempt: number;
  readonly markedRate: number;
  /** Share of orders whose events' first attempts are slow (at least one order). */
  readonly slowRate: number;
  readonly slowMs: number;
  /** Longest wait for the inbox to settle after sending, in ms. */
  readonly drainTimeoutMs: number;
  /** Keep the run directory (logs, SQLite file, PostgreSQL data) instead of deleting it. */
  readonly keep: boolean;
}

const PROFILES: Record<ReliabilityConfig['profile'], readonly ScenarioConfig[]> = {
  short: [
    {
      ...IN_PROCESS,
      database: 'postgres',
      instances: 2,
      payments: 1000,
      sendWindowMs: 40_000,
      kills: 4,
      pgStops: 1,
      pgStopMs: 3000,
      pgCuts: 1,
    },
    {
      ...IN_PROCESS,
      database: 'sqlite',
      instances: 1,
      payments: 400,
      sendWindowMs: 20_000,
      kills: 2,
      pgStops: 0,
      pgStopMs: 0,
      pgCuts: 0,
    },
    {
      database: 'postgres',
      transport: 'bullmq',
      instances: 2,
      workers: 3,
      payments: 500,
      sendWindowMs: 30_000,
      kills: 1,
      workerKills: 3,
      pgStops: 1,
      pgStopMs: 3000,
      pgCuts: 1,
      redisRestarts: 1,
      redisDownMs: 2000,
      redisFlushes: 1,
    },
  ],
  long: [
    {
      ...IN_PROCESS,
      database: 'postgres',
      instances: 2,
      payments: 5000,
      sendWindowMs: 180_000,
      kills: 15,
      pgStops: 3,
      pgStopMs: 5000,
      pgCuts: 3,
    },
    {
      ...IN_PROCESS,
      database: 'sqlite',
      instances: 1,
      payments: 2000,
      sendWindowMs: 90_000,
      kills: 6,
      pgStops: 0,
      pgStopMs: 0,
      pgCuts: 0,
    },
    {
      database: 'postgres',
      transport: 'bullmq',
      instances: 2,
      workers: 4,
      payments: 3000,
      sendWindowMs: 150_000,
      kills: 4,
      workerKills: 12,
      pgStops: 2,
      pgStopMs: 5000,
      pgCuts: 2,
      redisRestarts: 3,
      redisDownMs: 4000,
      redisFlushes: 3,
    },
  ],
};

/** Each scenario's share of `--payments` and of `--duration`, which size the PostgreSQL one. */
const SHARES: Record<ScenarioKey, { readonly payments: number; readonly window: number }> = {
  postgres: { payments: 1, window: 1 },
  sqlite: { payments: 0.4, window: 0.5 },
  bullmq: { payments: 0.5, window: 0.75 },
};

/** Options read from the command line (`--long`, `--payments=N`, …) or the environment. */
export const USAGE = `Usage: npm run test:reliability [-- options]
  --long               the long profile (default: short, for CI)
  --payments=N         payments on PostgreSQL (SQLite 40 %, BullMQ 50 %)   RELIABILITY_PAYMENTS
  --duration=S         seconds of sending on PostgreSQL (SQLite ½, BullMQ ¾) RELIABILITY_DURATION_S
  --seed=TEXT          seed of the workload's shape and the fault timeline  RELIABILITY_SEED
  --only=SCENARIO      one scenario: postgres, sqlite or bullmq             RELIABILITY_ONLY
  --slow-ms=MS         how long a slow handler attempt takes (0: none)      RELIABILITY_SLOW_MS
  --keep               keep the run directory (logs, databases)             RELIABILITY_KEEP=1
Profile: RELIABILITY_PROFILE=short|long.`;

/**
 * The configuration from `argv` and `env`.
 * @throws Error with the usage when an option is unknown or malformed.
 */
export function loadConfig(argv: readonly string[], env: NodeJS.ProcessEnv): ReliabilityConfig {
  const flags = new Map<string, string>();
  for (const arg of argv) {
    const match = /^--([a-z-]+)(?:=(.*))?$/.exec(arg);
    if (!match) {
      throw new Error(`Unknown argument ${JSON.stringify(arg)}\n${USAGE}`);
    }
    flags.set(match[1], match[2] ?? 'true');
  }
  const known = ['long', 'payments', 'duration', 'seed', 'only', 'keep', 'slow-ms'];
  const unknown = [...flags.keys()].filter((flag) => !known.includes(flag));
  if (unknown.length > 0) {
    throw new Error(`Unknown option --${unknown[0]}\n${USAGE}`);
  }
  const profile = flags.has('long') || env.RELIABILITY_PROFILE === 'long' ? 'long' : 'short';
  const payments = positive('payments', flags.get('payments') ?? env.RELIABILITY_PAYMENTS);
  const duration = positive('duration', flags.get('duration') ?? env.RELIABILITY_DURATION_S);
  const only = flags.get('only') ?? env.RELIABILITY_ONLY;
  const slowText = flags.get('slow-ms') ?? env.RELIABILITY_SLOW_MS;
  const slowMs = slowText === '0' ? 0 : (positive('slow-ms', slowText) ?? 6000);
  if (only !== undefined && !(only in SHARES)) {
    throw new Error(
      `--only must be postgres, sqlite or bullmq, not ${JSON.stringify(only)}\n${USAGE}`,
    );
  }
  const scenarios = PROFILES[profile]
    .filter((scenario) => only === undefined || scenarioKey(scenario) === only)
    .map((scenario) => {
      const { payments: share, window: windowShare } = SHARES[scenarioKey(scenario)];
      return {
        ...scenario,
        payments:
          payments === undefined ? scenario.payments : Math.max(1, Math.round(payments * share)),
        sendWindowMs:
          duration === undefined
            ? scenario.sendWindowMs
            : Math.round(duration * 1000 * windowShare),
      };
    });
  return {
    profile,
    seed: flags.get('seed') ?? env.RELIABILITY_SEED ?? String(Date.now()),
    scenarios,
    mix: { duplicateRate: 0.25, concurrentRate: 0.05, invalidRate: 0.1 },
    compression: { qvard: 30, stripe: 60, tbank: 720 },
    timeoutMs: 5000,
    concurrency: 48,
    failRate: 0.1,
    failUpToAttempt: 2,
    markedRate: 0.01,
    slowRate: slowMs === 0 ? 0 : 0.003,
    slowMs,
    drainTimeoutMs: 180_000,
    keep: flags.has('keep') || env.RELIABILITY_KEEP === '1',
  };
}

function positive(name: string, value: string | undefined): number | undefined {
  if (value === undefined) {
    return undefined;
  }
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) {
    throw new Error(`--${name} must be a positive number, not ${JSON.stringify(value)}\n${USAGE}`);
  }
  return number;
}
