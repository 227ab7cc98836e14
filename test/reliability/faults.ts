import type { ThrowawayRedis } from '../support/redis';
import { AppInstance } from './app-process';
import { DedicatedPostgres, ShopDatabase } from './databases';
import { sleep } from './provider-simulator';
import { between, Random } from './random';
import { ScenarioConfig } from './config';
import { SimulatorLog } from './simulator-log';

/** One fault, at a time relative to the start of sending. */
export type FaultAction =
  | {
      readonly at: number;
      /** `kill`: an HTTP instance; `worker-kill`: a worker-only process. */
      readonly kind: 'kill' | 'worker-kill';
      readonly instance: number;
      readonly restartAfterMs: number;
    }
  | { readonly at: number; readonly kind: 'pg-stop'; readonly durationMs: number }
  | { readonly at: number; readonly kind: 'pg-cut' }
  | { readonly at: number; readonly kind: 'redis-restart'; readonly durationMs: number }
  | { readonly at: number; readonly kind: 'redis-flush' };

/** What the faults act on. */
export interface FaultTargets {
  readonly instances: readonly AppInstance[];
  /** Worker-only processes (BullMQ scenario). */
  readonly workers: readonly AppInstance[];
  readonly postgres?: DedicatedPostgres;
  /** The run's own Redis (BullMQ scenario). */
  readonly redis?: ThrowawayRedis;
  readonly database: ShopDatabase;
  readonly log: SimulatorLog;
}

/** What each fault did, counted. */
export type FaultCounts = Record<FaultAction['kind'], number>;

/** The faults spread evenly over the window, in this order, round robin while any is left. */
const SPREAD_KINDS = ['pg-stop', 'pg-cut', 'redis-restart', 'redis-flush'] as const;

/** Kills keep this far (ms) from a PostgreSQL stop, so each fault is seen on its own. */
const KILL_CLEARANCE_MS = 3000;

/**
 * When the faults of a scenario happen: PostgreSQL stops and connection cuts, Redis restarts
 * and flushes evenly spread over the sending window, kills of HTTP instances and then of
 * worker processes at random moments clear of them.
 */
export function faultTimeline(scenario: ScenarioConfig, random: Random): FaultAction[] {
  const window = scenario.sendWindowMs;
  const left: Record<(typeof SPREAD_KINDS)[number], number> = {
    'pg-stop': scenario.pgStops,
    'pg-cut': scenario.pgCuts,
    'redis-restart': scenario.redisRestarts,
    'redis-flush': scenario.redisFlushes,
  };
  const order: (typeof SPREAD_KINDS)[number][] = [];
  while (SPREAD_KINDS.some((kind) => left[kind] > 0)) {
    for (const kind of SPREAD_KINDS.filter((k) => left[k] > 0)) {
      left[kind] -= 1;
      order.push(kind);
    }
  }
  const actions: FaultAction[] = order.map((kind, slot) => {
    const at = Math.round((window * (slot + 1)) / (order.length + 1));
    switch (kind) {
      case 'pg-stop':
        return { at, kind, durationMs: scenario.pgStopMs };
      case 'redis-restart':
        return { at, kind, durationMs: scenario.redisDownMs };
      default:
        return { at, kind };
    }
  });
  const busy = actions.map((action) => ({
    from: action.at - KILL_CLEARANCE_MS,
    to: action.at + ('durationMs' in action ? action.durationMs : 0) + KILL_CLEARANCE_MS,
  }));
  const kills = [
    ...Array.from({ length: scenario.kills }, () => ['kill', scenario.instances] as const),
    ...Array.from(
      { length: scenario.workerKills },
      () => ['worker-kill', scenario.workers] as const,
    ),
  ];
  for (const [kind, processes] of kills) {
    let at = 0;
    for (let tries = 0; tries < 50; tries += 1) {
      at = Math.round(window * (0.05 + 0.9 * random()));
      if (!busy.some((span) => at >= span.from && at <= span.to)) {
        break;
      }
    }
    actions.push({
      at,
      kind,
      instance: Math.floor(random() * processes),
      restartAfterMs: between(random, 200, 1500),
    });
  }
  return actions.sort((a, b) => a.at - b.at);
}

/**
 * Runs the faults one after another, each at its time (or at once when the previous one ran
 * late), logging each with its real-time window. Resolves to the faults survived, by kind:
 * every killed process is ready again and Redis answers again, or this rejects.
 */
export async function runFaults(
  actions: readonly FaultAction[],
  start: number,
  targets: FaultTargets,
): Promise<FaultCounts> {
  const counts: FaultCounts = {
    kill: 0,
    'worker-kill': 0,
    'pg-stop': 0,
    'pg-cut': 0,
    'redis-restart': 0,
    'redis-flush': 0,
  };
  for (const action of actions) {
    await sleep(start + action.at - Date.now());
    counts[action.kind] += 1;
    switch (action.kind) {
      case 'kill':
      case 'worker-kill': {
        const group = action.kind === 'kill' ? targets.instances : targets.workers;
        const instance = group[action.instance];
        await instance.kill('SIGKILL');
        const killedAt = Date.now();
        await sleep(action.restartAfterMs);
        const restoringAt = Date.now();
        await instance.start();
        targets.log.write({
          type: 'fault',
          kind: action.kind,
          instance: instance.name,
          startedAt: killedAt,
          restoringAt,
          endedAt: Date.now(),
        });
        break;
      }
      case 'pg-stop': {
        const postgres = targets.postgres;
        if (!postgres) {
          throw new Error('A PostgreSQL stop needs the dedicated PostgreSQL server');
        }
        await postgres.stop();
        const stoppedAt = Date.now();
        await sleep(action.durationMs);
        const restoringAt = Date.now();
        await postgres.resume();
        targets.log.write({
          type: 'fault',
          kind: 'pg-stop',
          startedAt: stoppedAt,
          restoringAt,
          endedAt: Date.now(),
        });
        break;
      }
      case 'pg-cut': {
        const at = Date.now();
        const terminated = await targets.database.cutConnections();
        targets.log.write({
          type: 'fault',
          kind: 'pg-cut',
          startedAt: at,
          restoringAt: at,
          endedAt: Date.now(),
          terminated,
        });
        break;
      }
      case 'redis-restart': {
        const redis = redisOf(targets);
        await redis.kill();
        const killedAt = Date.now();
        await sleep(action.durationMs);
        const restoringAt = Date.now();
        await redis.restart();
        targets.log.write({
          type: 'fault',
          kind: 'redis-restart',
          startedAt: killedAt,
          restoringAt,
          endedAt: Date.now(),
        });
        break;
      }
      case 'redis-flush': {
        const at = Date.now();
        await redisOf(targets).flushAll();
        targets.log.write({
          type: 'fault',
          kind: 'redis-flush',
          startedAt: at,
          restoringAt: at,
          endedAt: Date.now(),
        });
        break;
      }
    }
  }
  return counts;
}

function redisOf(targets: FaultTargets): ThrowawayRedis {
  if (!targets.redis) {
    throw new Error("A Redis fault needs the run's own Redis server");
  }
  return targets.redis;
}
