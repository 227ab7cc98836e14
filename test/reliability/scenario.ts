import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { redisPrefix, ThrowawayRedis } from '../support/redis';
import { AppInstance, freePort } from './app-process';
import { Checker, CheckReport } from './checker';
import { ReliabilityConfig, ScenarioConfig, scenarioKey } from './config';
import {
  DedicatedPostgres,
  PostgresShopDatabase,
  ShopDatabase,
  SqliteShopDatabase,
} from './databases';
import { FAULT_PLAN_ENV, FaultPlan } from './fault-plan';
import { FaultCounts, faultTimeline, runFaults } from './faults';
import { ProviderSimulator, sleep } from './provider-simulator';
import { between, Random, seededRandom } from './random';
import { providerSenders } from './senders';
import { readSimulatorLog, SimulatorLog } from './simulator-log';
import { TRANSPORT_PLAN_ENV, TransportPlan, TransportRole } from './transport-plan';
import {
  currencyFor,
  PaymentPlan,
  pickProvider,
  ProviderSecrets,
  ShopOrder,
  WorkloadBuilder,
} from './workload';

const execFileAsync = promisify(execFile);

/** Where a scenario runs: the run's shared pieces. */
export interface ScenarioContext {
  readonly config: ReliabilityConfig;
  readonly scenario: ScenarioConfig;
  /** Repository root (cwd of the apps and the CLI). */
  readonly root: string;
  /** Compiled reliability entry point of the shop. */
  readonly entry: string;
  /** Directory for this run's logs and files. */
  readonly runDirectory: string;
  /** The dedicated server, for PostgreSQL scenarios. */
  readonly postgres?: DedicatedPostgres;
  /** The run's own Redis, for BullMQ scenarios. */
  readonly redis?: ThrowawayRedis;
  /** Progress lines go here. */
  readonly say: (line: string) => void;
}

/** A scenario's outcome. */
export interface ScenarioResult {
  readonly name: string;
  readonly report: CheckReport;
  readonly elapsedMs: number;
}

/** Dispatch timing of the apps, compressed like the providers' clocks. */
const COMPRESSED_DISPATCH = {
  pollIntervalMs: 250,
  leaseMs: 10_000,
  shutdownTimeoutMs: 5000,
  retry: { maxAttempts: 6, baseDelayMs: 250, maxDelayMs: 2000 },
};

/**
 * How long a BullMQ relay holds an event handed to the queue before its sweeper checks the
 * job (`redeliverAfterMs`): short, so a flushed or restarted Redis is noticed within the run.
 */
const BULLMQ_REDELIVER_AFTER_MS = 2000;

/** What the BullMQ transport's sweeper logs when it puts work back on the queue. */
const SWEEP_LINE = /added (\d+) vanished job\(s\) again and handed out (\d+) event\(s\)/g;

/** How long the inbox may take to settle after the replay when it did not settle before. */
const STUCK_DRAIN_MS = 10_000;

/** Orders created at once through `POST /orders`. */
const ORDER_CONCURRENCY = 16;
const PROGRESS_EVERY_MS = 5000;

/**
 * One scenario end to end: start the shop's instances, create the orders, send the workload
 * while injecting faults, wait for the inbox to settle, check the dead letters, deploy the
 * fix, replay the dead events with the package's CLI, and check everything.
 */
export async function runScenario(context: ScenarioContext): Promise<ScenarioResult> {
  const { config, scenario, say } = context;
  const key = scenarioKey(scenario);
  const name =
    scenario.workers > 0
      ? `${key}×${scenario.instances}+${scenario.workers}w`
      : `${key}×${scenario.instances}`;
  const started = Date.now();
  const random = seededRandom(`${config.seed}:${key}`);
  const secrets: ProviderSecrets = {
    STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(18).toString('base64url')}`,
    QVARD_SECRET_KEY: randomBytes(24).toString('hex'),
    TBANK_PASSWORD: randomBytes(12).toString('hex'),
  };
  const plan: FaultPlan = {
    seed: `${config.seed}:${key}`,
    failRate: config.failRate,
    failUpToAttempt: config.failUpToAttempt,
    markedFixed: false,
    slowMs: config.slowMs,
    dispatch: COMPRESSED_DISPATCH,
  };
  const transportEnv = transportEnvOf(context);
  const database = await openDatabase(context);
  const instances: AppInstance[] = [];
  const workers: AppInstance[] = [];
  const log = new SimulatorLog(join(context.runDirectory, `${key}-simulator.jsonl`));
  const newProcess = async (label: string, role: TransportRole) =>
    new AppInstance(
      label,
      await freePort(),
      context.entry,
      {
        ...database.appEnv,
        ...secrets,
        [FAULT_PLAN_ENV]: JSON.stringify(plan),
        ...transportEnv(role),
      },
      join(context.runDirectory, `${label}.log`),
      context.root,
    );
  try {
    for (let i = 0; i < scenario.instances; i += 1) {
      const label =
        scenario.instances > 1 ? `${key}-${String.fromCharCode(97 + i)}` : scenario.database;
      const instance = await newProcess(label, 'ingress');
      instances.push(instance);
      // NOTE: one at a time, so the first instance runs the migrations alone.
      await instance.start();
      if (i === 0) {
        await database.installProbes();
      }
    }
    for (let i = 0; i < scenario.workers; i += 1) {
      const worker = await newProcess(`${key}-w${i + 1}`, 'worker');
      workers.push(worker);
      await worker.start();
    }
    const everyProcess = [...instances, ...workers];
    const targets = instances.map((instance) => instance.url);
    say(
      `${name}: ${instances.length} instance(s)` +
        (workers.length > 0 ? ` and ${workers.length} worker process(es)` : '') +
        ` up; creating ${scenario.payments} orders`,
    );
    const payments = await createPayments(targets, scenario.payments, random);
    const builder = new WorkloadBuilder(secrets, random);
    const plans: PaymentPlan[] = payments.map(({ order, provider }) => ({
      order,
      provider,
      story: builder.story(provider),
    }));
    const messages = builder.build(plans, config.mix, scenario.sendWindowMs);
    const marked = Math.max(1, Math.round(plans.length * config.markedRate));
    const slow = config.slowMs > 0 ? Math.max(1, Math.round(plans.length * config.slowRate)) : 0;
    // NOTE: marked and slow orders are disjoint, so a dead event is dead only for being marked.
    const chosen = pickSome(
      plans.map((p) => p.order.id),
      marked + slow,
      random,
    );
    await database.addOrderFault('marked', chosen.slice(0, marked));
    await database.addOrderFault('slow', chosen.slice(marked));
    say(
      `${name}: sending ${messages.length} deliveries over ${scenario.sendWindowMs / 1000} s ` +
        `(${marked} marked, ${slow} slow orders) with ${describeFaults(scenario)}`,
    );
    const simulator = new ProviderSimulator({
      senders: providerSenders(config.compression, config.timeoutMs),
      targets,
      concurrency: config.concurrency,
      random: seededRandom(`${config.seed}:${key}:routes`),
      log,
    });
    const start = Date.now() + 200;
    const progress = setInterval(() => {
      const p = simulator.progress;
      say(
        `${name}: ${Math.round((Date.now() - start) / 1000)} s, ${p.settled}/${messages.length} settled, ${p.attempts} requests, ${p.gaveUp} given up`,
      );
    }, PROGRESS_EVERY_MS);
    let faults: FaultCounts;
    try {
      [, faults] = await Promise.all([
        simulator.send(messages, start),
        runFaults(faultTimeline(scenario, random), start, {
          instances,
          workers,
          postgres: context.postgres,
          redis: context.redis,
          database,
          log,
        }),
      ]);
    } finally {
      clearInterval(progress);
      await log.close();
    }
    say(
      `${name}: sending done in ${Math.round((Date.now() - start) / 1000)} s; waiting for the inbox to settle`,
    );
    const left = await drain(database, config.drainTimeoutMs);
    const checker = new Checker(database, readSimulatorLog(log.path));
    const before = await checker.beforeFix();
    say(
      `${name}: ${left === 0 ? 'settled' : `${left} event(s) still to run after ${config.drainTimeoutMs / 1000} s`}; ` +
        `${before.dead.length} event(s) dead; deploying the fix and replaying them`,
    );
    for (const instance of everyProcess) {
      await instance.stop();
      instance.setEnv({ [FAULT_PLAN_ENV]: JSON.stringify({ ...plan, markedFixed: true }) });
      await instance.start();
    }
    const replayed = await replayDead(context.root, database);
    // NOTE: events that never settled before the fix are not waited for again as long.
    await drain(database, left === 0 ? config.drainTimeoutMs : STUCK_DRAIN_MS);
    // NOTE: with BullMQ the HTTP instances run no worker: every effect is a worker process's.
    const handlerPids = workers.length > 0 ? new Set(workers.flatMap((w) => w.pids)) : undefined;
    const report = await checker.final(before.dead, replayed, faults, handlerPids);
    report.violations.unshift(...before.violations);
    const crashes = everyProcess.flatMap((p) => p.crashes);
    if (crashes.length > 0) {
      report.violations.push(
        `${crashes.length} process(es) exited that no fault stopped: ${crashes.join('; ')}`,
      );
    }
    Object.assign(report.figures, sweeps(everyProcess.map((p) => p.logPath)));
    return { name, report, elapsedMs: Date.now() - started };
  } finally {
    for (const instance of [...instances, ...workers]) {
      await instance.close();
    }
    await database.close();
  }
}

/** The faults of a scenario, for the progress line. */
function describeFaults(scenario: ScenarioConfig): string {
  const parts = [
    `${scenario.kills} kill(s)`,
    `${scenario.pgStops} PostgreSQL stop(s)`,
    `${scenario.pgCuts} connection cut(s)`,
  ];
  if (scenario.transport === 'bullmq') {
    parts.push(
      `${scenario.workerKills} worker kill(s)`,
      `${scenario.redisRestarts} Redis restart(s)`,
      `${scenario.redisFlushes} FLUSHALL(s)`,
    );
  }
  return parts.join(', ');
}

/**
 * The transport environment of each process: none for in-process dispatch; for BullMQ, the
 * run's Redis under a prefix of the scenario's own, and the process's role.
 * @throws Error when a BullMQ scenario has no Redis or no PostgreSQL inbox.
 */
function transportEnvOf(context: ScenarioContext): (role: TransportRole) => Record<string, string> {
  const { scenario, redis } = context;
  if (scenario.transport !== 'bullmq') {
    return () => ({});
  }
  if (!redis || scenario.database !== 'postgres') {
    throw new Error("The BullMQ scenario needs the run's own Redis and the PostgreSQL inbox");
  }
  const prefix = redisPrefix();
  return (role) => {
    const plan: TransportPlan = {
      kind: 'bullmq',
      role,
      redisUrl: redis.url,
      prefix,
      redeliverAfterMs: BULLMQ_REDELIVER_AFTER_MS,
    };
    return { [TRANSPORT_PLAN_ENV]: JSON.stringify(plan) };
  };
}

/** What the BullMQ sweepers of these logs put back on the queue (0 and 0 without BullMQ). */
function sweeps(logPaths: readonly string[]): { readded: number; reclaimed: number } {
  let readded = 0;
  let reclaimed = 0;
  for (const path of logPaths) {
    for (const match of readFileSync(path, 'utf8').matchAll(SWEEP_LINE)) {
      readded += Number(match[1]);
      reclaimed += Number(match[2]);
    }
  }
  return { readded, reclaimed };
}

/** `count` distinct items of `items`, picked at random. */
function pickSome<T>(items: readonly T[], count: number, random: Random): T[] {
  const pool = [...items];
  const picked: T[] = [];
  while (picked.length < count && pool.length > 0) {
    picked.push(pool.splice(Math.floor(random() * pool.length), 1)[0]);
  }
  return picked;
}

async function openDatabase(context: ScenarioContext): Promise<ShopDatabase> {
  if (context.scenario.database === 'sqlite') {
    return new SqliteShopDatabase(join(context.runDirectory, 'shop.sqlite'));
  }
  if (!context.postgres) {
    throw new Error('The PostgreSQL scenario needs the dedicated PostgreSQL server');
  }
  const name = `shop_${randomBytes(4).toString('hex')}`;
  return new PostgresShopDatabase(await context.postgres.createDatabase(name), name);
}

/** Creates the orders through the shop's API, a few at a time, each with its Idempotency-Key. */
async function createPayments(
  targets: readonly string[],
  count: number,
  random: Random,
): Promise<{ order: ShopOrder; provider: PaymentPlan['provider'] }[]> {
  const wanted = Array.from({ length: count }, () => {
    const provider = pickProvider(random);
    return { provider, amount: between(random, 100, 250_000), currency: currencyFor(provider) };
  });
  const created: { order: ShopOrder; provider: PaymentPlan['provider'] }[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < wanted.length) {
      const index = next++;
      const { provider, amount, currency } = wanted[index];
      const order = await createOrder(targets[index % targets.length], amount, currency);
      created[index] = { order, provider };
    }
  };
  await Promise.all(Array.from({ length: ORDER_CONCURRENCY }, worker));
  return created;
}

/**
 * `POST /orders`, retried with the same Idempotency-Key on a network error or a 5xx.
 * @throws Error when the shop refuses the order or keeps failing.
 */
async function createOrder(target: string, amount: number, currency: string): Promise<ShopOrder> {
  const key = randomUUID();
  let failure = '';
  for (let attempt = 1; attempt <= 5; attempt += 1) {
    try {
      const response = await fetch(`${target}/orders`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': key },
        body: JSON.stringify({ amount, currency }),
      });
      const text = await response.text();
      if (response.status === 201 || response.status === 200) {
        const order = JSON.parse(text) as ShopOrder;
        return { id: order.id, amount: order.amount, currency: order.currency };
      }
      failure = `${response.status} ${text.slice(0, 200)}`;
      if (response.status < 500) {
        break;
      }
    } catch (error) {
      failure = (error as Error).message;
    }
    await sleep(200 * attempt);
  }
  throw new Error(`POST ${target}/orders failed: ${failure}`);
}

/**
 * Waits until no event is left to run: none pending, retrying or processing. Resolves to the
 * events still left once `timeoutMs` passed (0 when the inbox settled); the checker names them.
 */
async function drain(database: ShopDatabase, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let quiet = 0;
  for (;;) {
    const [row] = await database.query<{ n: number | string }>(
      "SELECT count(*) AS n FROM webhook_events WHERE status IN ('pending', 'retrying', 'processing')",
    );
    quiet = Number(row.n) === 0 ? quiet + 1 : 0;
    if (quiet >= 2) {
      return 0;
    }
    if (Date.now() > deadline) {
      return Number(row.n);
    }
    await sleep(500);
  }
}

/** Replays every dead event with the package's CLI, as an operator would; resolves to the count. */
async function replayDead(root: string, database: ShopDatabase): Promise<number> {
  const cli = join(root, 'dist', 'cli', 'main.js');
  const { stdout } = await execFileAsync(
    process.execPath,
    [cli, 'events', 'replay', '--status', 'dead', '--json', ...database.cliArgs],
    { cwd: root },
  );
  return (JSON.parse(stdout) as { replayed: number }).replayed;
}
