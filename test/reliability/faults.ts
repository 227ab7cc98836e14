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
      readonly kind: 'kill';
      readonly instance: number;
      readonly restartAfterMs: number;
    }
  | { readonly at: number; readonly kind: 'pg-stop'; readonly durationMs: number }
  | { readonly at: number; readonly kind: 'pg-cut' };

/** What the faults act on. */
export interface FaultTargets {
  readonly instances: readonly AppInstance[];
  readonly postgres?: DedicatedPostgres;
  readonly database: ShopDatabase;
  readonly log: SimulatorLog;
}

/** Kills keep this far (ms) from a PostgreSQL stop, so each fault is seen on its own. */
const KILL_CLEARANCE_MS = 3000;

/**
 * When the faults of a scenario happen: PostgreSQL stops and connection cuts evenly spread
 * over the sending window, kills at random moments clear of them.
 */
export function faultTimeline(scenario: ScenarioConfig, random: Random): FaultAction[] {
  const window = scenario.sendWindowMs;
  const actions: FaultAction[] = [];
  const slots = scenario.pgStops + scenario.pgCuts;
  let stops = 0;
  let cuts = 0;
  for (let slot = 0; slot < slots; slot += 1) {
    const at = Math.round((window * (slot + 1)) / (slots + 1));
    const stop = stops < scenario.pgStops && (slot % 2 === 0 || cuts >= scenario.pgCuts);
    if (stop) {
      stops += 1;
      actions.push({ at, kind: 'pg-stop', durationMs: scenario.pgStopMs });
    } else {
      cuts += 1;
      actions.push({ at, kind: 'pg-cut' });
    }
  }
  const busy = actions.map((action) => ({
    from: action.at - KILL_CLEARANCE_MS,
    to: action.at + (action.kind === 'pg-stop' ? action.durationMs : 0) + KILL_CLEARANCE_MS,
  }));
  for (let kill = 0; kill < scenario.kills; kill += 1) {
    let at = 0;
    for (let tries = 0; tries < 50; tries += 1) {
      at = Math.round(window * (0.05 + 0.9 * random()));
      if (!busy.some((span) => at >= span.from && at <= span.to)) {
        break;
      }
    }
    actions.push({
      at,
      kind: 'kill',
      instance: Math.floor(random() * scenario.instances),
      restartAfterMs: between(random, 200, 1500),
    });
  }
  return actions.sort((a, b) => a.at - b.at);
}

/**
 * Runs the faults one after another, each at its time (or at once when the previous one ran
 * late), logging each with its real-time window. Resolves to the number of kills survived:
 * every killed instance listens again, or this rejects.
 */
export async function runFaults(
  actions: readonly FaultAction[],
  start: number,
  targets: FaultTargets,
): Promise<number> {
  let kills = 0;
  for (const action of actions) {
    await sleep(start + action.at - Date.now());
    switch (action.kind) {
      case 'kill': {
        const instance = targets.instances[action.instance];
        await instance.kill('SIGKILL');
        const killedAt = Date.now();
        await sleep(action.restartAfterMs);
        const restoringAt = Date.now();
        await instance.start();
        targets.log.write({
          type: 'fault',
          kind: 'kill',
          instance: instance.name,
          startedAt: killedAt,
          restoringAt,
          endedAt: Date.now(),
        });
        kills += 1;
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
    }
  }
  return kills;
}
