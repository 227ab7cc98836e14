/** Name of the environment variable that carries a `TransportPlan` (JSON) to the app process. */
export const TRANSPORT_PLAN_ENV = 'RELIABILITY_TRANSPORT';

/**
 * How one app process of a BullMQ scenario runs its dispatch: `ingress` processes answer HTTP
 * and relay due events to the queue (no BullMQ worker); `worker` processes do not listen at
 * all and run the jobs (and relay too, as a worker-only deployment does by default).
 */
export type TransportRole = 'ingress' | 'worker';

/** The BullMQ transport of one app process, set by the runner per instance. */
export interface TransportPlan {
  readonly kind: 'bullmq';
  readonly role: TransportRole;
  /** The run's own Redis (`redis://127.0.0.1:<port>`). */
  readonly redisUrl: string;
  /** The scenario's BullMQ key prefix. */
  readonly prefix: string;
  /** `redeliverAfterMs` of the transport: how soon the sweeper checks a handed-out event's job. */
  readonly redeliverAfterMs: number;
}

/**
 * Reads the transport given to the app process; undefined when none is (in-process dispatch).
 * @throws Error when the variable is set but is not a plan.
 */
export function transportPlanFromEnv(
  env: NodeJS.ProcessEnv = process.env,
): TransportPlan | undefined {
  const text = env[TRANSPORT_PLAN_ENV];
  if (!text) {
    return undefined;
  }
  const plan = JSON.parse(text) as TransportPlan;
  if (
    plan.kind !== 'bullmq' ||
    (plan.role !== 'ingress' && plan.role !== 'worker') ||
    typeof plan.redisUrl !== 'string' ||
    typeof plan.prefix !== 'string' ||
    !Number.isSafeInteger(plan.redeliverAfterMs)
  ) {
    throw new Error(`${TRANSPORT_PLAN_ENV} is not a transport plan: ${text.slice(0, 200)}`);
  }
  return plan;
}
