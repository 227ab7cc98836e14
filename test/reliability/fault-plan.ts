import { createHash } from 'node:crypto';
import type { WebhookDispatchOptions } from 'nestjs-payment-webhooks';

/** Name of the environment variable that carries a `FaultPlan` (JSON) to the app process. */
export const FAULT_PLAN_ENV = 'RELIABILITY_FAULTS';

/**
 * What the reliability app does wrong on purpose, shared by the runner (which predicts the
 * outcome) and the app process (which misbehaves). Random failures are a pure function of
 * `seed` and the event, so a run can be reproduced; marked and slow orders are listed in the
 * database by the runner.
 */
export interface FaultPlan {
  /** Seed of every choice below. */
  readonly seed: string;
  /** Chance that an attempt of the probe handler fails after writing its effect (0..1). */
  readonly failRate: number;
  /**
   * Random failures happen only up to this attempt, so a randomly failing event always
   * succeeds before `dispatch.retry.maxAttempts` and never becomes `dead` by chance.
   */
  readonly failUpToAttempt: number;
  /**
   * The fix is deployed: the marked orders (listed in the order-faults table by the runner) no
   * longer fail.
   */
  readonly markedFixed: boolean;
  /** How long the first attempt of a slow order's event takes inside its transaction, in ms. */
  readonly slowMs: number;
  /** Dispatch timing for the app, compressed like the providers' clocks. */
  readonly dispatch: WebhookDispatchOptions;
}

/**
 * A number in [0, 1) from the seed and the parts, the same in every process.
 * @example unitHash('42', 'fail', eventKey, attempt) < 0.1
 */
export function unitHash(seed: string, ...parts: (string | number)[]): number {
  const digest = createHash('sha256')
    .update([seed, ...parts].join('\n'))
    .digest();
  return digest.readUInt32BE(0) / 0x1_0000_0000;
}

/** Whether this attempt of this event fails at random (a transient fault). */
export function failsAtRandom(plan: FaultPlan, eventId: string, attempt: number): boolean {
  return (
    attempt <= plan.failUpToAttempt && unitHash(plan.seed, 'fail', eventId, attempt) < plan.failRate
  );
}

/** How long this attempt takes: `slowMs` for the first attempt of a slow order's event. */
export function slowDelayMs(plan: FaultPlan, slowOrder: boolean, attempt: number): number {
  return slowOrder && attempt === 1 ? plan.slowMs : 0;
}

/**
 * Reads the plan given to the app process.
 * @throws Error when the variable is missing or is not a plan.
 */
export function faultPlanFromEnv(env: NodeJS.ProcessEnv = process.env): FaultPlan {
  const text = env[FAULT_PLAN_ENV];
  if (!text) {
    throw new Error(
      `${FAULT_PLAN_ENV} is not set: the reliability app needs its fault plan as JSON ` +
        '(the runner in test/reliability/run.ts sets it)',
    );
  }
  const plan = JSON.parse(text) as FaultPlan;
  if (typeof plan.seed !== 'string' || typeof plan.failRate !== 'number' || !plan.dispatch) {
    throw new Error(`${FAULT_PLAN_ENV} is not a fault plan: ${text.slice(0, 200)}`);
  }
  return plan;
}
