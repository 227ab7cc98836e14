#!/usr/bin/env node
'use strict';
/**
 * Draining a backlog over 1, 2 and 4 worker processes, in-process worker against the BullMQ
 * transport: `npm run bench:workers [-- options]`. See `node bench/workers.js --help`.
 *
 * Each cell (transport × handler × workers) gets a fresh PostgreSQL database. The inbox is
 * filled while no worker runs, through the built package's own ingress (`engine.ingest()` of
 * an unmounted, dispatch-disabled `createWebhooksRouter()`, with Stripe-signed deliveries), so
 * the rows are exactly what ingress stores. The cell's Redis prefix is emptied, W worker
 * processes (`bench/lib/drain-worker.js`) boot, and the clock starts when all of them are told
 * to start; it stops when the last effect row is committed. Then every event must be
 * `processed`, with one effect row and one ledger row each. The in-process and the BullMQ cell
 * of the same handler and W run one after the other, their order alternating.
 */
const { fork } = require('node:child_process');
const {
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} = require('node:fs');
const os = require('node:os');
const { join, relative, resolve } = require('node:path');
const { randomBytes } = require('node:crypto');
const { Pool } = require('pg');
const { signedDelivery } = require('./lib/events');
const { ensurePackageBuilt } = require('./lib/build');
const { processCpuSeconds, cpuByPidOf, machineCpuSeconds, postgresCpuDelta } = require('./lib/cpu');
const { benchRedisUrl, redisVersion, dropRedisPrefix } = require('./lib/redis');
const { round } = require('./lib/stats');
const { ROOT, postgresAdminUrl, adminQuery, sleep } = require('./lib/targets');
const { express, openInbox, routerOptions } = require('./lib/drain-app');

const TRANSPORTS = ['in-process', 'bullmq'];

const HELP = `Usage: npm run bench:workers [-- options]

Drains N stored events over 1, 2 and 4 worker processes, with the in-process worker and with
the BullMQ transport, for a no-op handler and a slow one; prints a table and writes
bench/results/workers-<date>.json.

  --smoke             600 events, workers 1 and 2, no-op handler; exits 1 unless every cell
                      drains with one effect per event (under a minute)
  --events N          events per cell (default 20000)
  --workers LIST      worker processes per cell (default 1,2,4)
  --handlers LIST     noop and/or slow (default noop,slow)
  --handler-ms M      what the slow handler sleeps inside its transaction (default 20)
  --concurrency C     dispatch.concurrency of every worker process, both transports (default 8);
                      each process's PostgreSQL pool holds C + 4 connections
  --rounds R          times each pair runs; the order of a pair alternates (default 1)
  --limit S           longest a cell may take to drain, in seconds (default 900)
  --out FILE          where to write the JSON (default bench/results/workers-<date>.json)
  --no-build          use dist/ as it is

Needs PostgreSQL as \`npm run bench\` does (or BENCH_DATABASE_URL) and Redis at TEST_REDIS_URL
or redis://127.0.0.1:6379; each cell uses its own key prefix, removed afterwards.
`;

function parseArgs(argv) {
  const options = {
    smoke: false,
    events: undefined,
    workers: undefined,
    handlers: undefined,
    handlerMs: 20,
    concurrency: 8,
    rounds: 1,
    limitSec: 900,
    out: undefined,
    build: true,
  };
  const positive = (arg, value) => {
    const number = Number(value);
    if (!Number.isInteger(number) || number <= 0) {
      throw new Error(`${arg} needs a positive whole number, got "${value}"`);
    }
    return number;
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${arg} needs a value`);
      i += 1;
      return argv[i];
    };
    const list = () =>
      value()
        .split(',')
        .map((item) => item.trim())
        .filter(Boolean);
    switch (arg) {
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        process.exit(0);
        break;
      case '--smoke':
        options.smoke = true;
        break;
      case '--events':
        options.events = positive(arg, value());
        break;
      case '--workers':
        options.workers = list().map((item) => positive(arg, item));
        break;
      case '--handlers':
        options.handlers = list();
        for (const name of options.handlers) {
          if (name !== 'noop' && name !== 'slow')
            throw new Error(`Unknown handler "${name}"; known: noop, slow`);
        }
        break;
      case '--handler-ms':
        options.handlerMs = positive(arg, value());
        break;
      case '--concurrency':
        options.concurrency = positive(arg, value());
        break;
      case '--rounds':
        options.rounds = positive(arg, value());
        break;
      case '--limit':
        options.limitSec = positive(arg, value());
        break;
      case '--out':
        options.out = value();
        break;
      case '--no-build':
        options.build = false;
        break;
      default:
        throw new Error(`Unknown option "${arg}"; see --help`);
    }
  }
  options.events ??= options.smoke ? 600 : 20_000;
  options.workers ??= options.smoke ? [1, 2] : [1, 2, 4];
  options.handlers ??= options.smoke ? ['noop'] : ['noop', 'slow'];
  if (options.smoke) options.limitSec = Math.min(options.limitSec, 20);
  options.out ??= join(
    'bench',
    'results',
    options.smoke ? 'workers-smoke.json' : `workers-${new Date().toISOString().slice(0, 10)}.json`,
  );
  return options;
}

const log = (message) => process.stderr.write(`${message}\n`);
const fmt = (value, digits = 0) =>
  value === null || value === undefined || Number.isNaN(value)
    ? '–'
    : Number(value).toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });

// ---------------------------------------------------------------------------------------------
// Filling the inbox

/**
 * Stores `count` Stripe-signed events through the package's ingress with no worker running;
 * resolves to the answers' statuses and the time taken.
 */
async function fillInbox(url, { count, handlerMs }) {
  const dataSource = await openInbox({ url, poolSize: 10, migrate: true });
  const started = Date.now();
  const statuses = {};
  try {
    const router = await express().createWebhooksRouter(
      routerOptions({ dataSource, handlerMs, dispatch: { enabled: false } }),
    );
    try {
      const now = Math.floor(Date.now() / 1000);
      let next = 0;
      // NOTE: deliveries side by side, as a provider's retries arrive; ingress commits them in groups.
      const sender = async () => {
        while (next < count) {
          const { body, signature } = signedDelivery('wk', next, now);
          next += 1;
          const answer = await router.engine.ingest({
            endpoint: 'stripe',
            method: 'POST',
            rawBody: Buffer.from(body),
            headers: { 'content-type': 'application/json', 'stripe-signature': signature },
            sourceIp: '127.0.0.1',
            receivedAt: new Date(),
          });
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        }
      };
      await Promise.all(Array.from({ length: 32 }, sender));
    } finally {
      await router.stop();
    }
  } finally {
    await dataSource.destroy();
  }
  const seconds = (Date.now() - started) / 1000;
  return { statuses, seconds: round(seconds, 1), perSec: round(count / seconds, 0) };
}

// ---------------------------------------------------------------------------------------------
// Worker processes

/** Forks one worker process; resolves once it has booted and said `ready`. */
function startWorker(index, env, logFile) {
  const out = openSync(logFile, 'a');
  const child = fork(join(__dirname, 'lib', 'drain-worker.js'), [], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'production', ...env },
    stdio: ['ignore', out, out, 'ipc'],
  });
  closeSync(out);
  const said = (word, timeoutMs) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`worker ${index} did not say "${word}" within ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onMessage = (message) => {
        if (message !== word) return;
        clearTimeout(timer);
        child.off('exit', onExit);
        child.off('message', onMessage);
        resolve();
      };
      const onExit = (code) => {
        clearTimeout(timer);
        reject(new Error(`worker ${index} exited with ${code} (log ${logFile})`));
      };
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  const worker = {
    child,
    said,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.connected) child.send('stop');
      else child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    },
  };
  return said('ready', 60_000).then(
    () => worker,
    async (error) => {
      child.kill('SIGKILL');
      throw error;
    },
  );
}

/**
 * CPU the drain cost, per event: the worker processes, the PostgreSQL backends serving this
 * cell's database (found in pg_stat_activity at the end, before the workers stop) and the
 * Redis server (shared with anything else using it). Also how many cores the rest of the
 * machine kept busy meanwhile: busy CPU time of the machine less the workers', the cell's
 * backends' and this runner's, over the wall time.
 */
function startCpu(workers, pool, database) {
  const sample = () => ({
    workers: workers.map((worker) => processCpuSeconds(worker.child.pid)),
    postgres: cpuByPidOf('postgres'),
    redis: cpuByPidOf('redis-server'),
    machine: machineCpuSeconds(),
    runner: process.cpuUsage(),
    at: Date.now(),
  });
  const before = sample();
  return async (events) => {
    const after = sample();
    const { rows } = await pool.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [
      database,
    ]);
    const own = new Set(rows.map((row) => String(row.pid)));
    const ownBackends = (byPid) => byPid && new Map([...byPid].filter(([pid]) => own.has(pid)));
    const workersSec = after.workers.reduce(
      (sum, seconds, i) =>
        seconds === null || before.workers[i] === null ? sum : sum + seconds - before.workers[i],
      0,
    );
    const postgresSec = postgresCpuDelta(ownBackends(before.postgres), ownBackends(after.postgres));
    const redisSec = postgresCpuDelta(before.redis, after.redis);
    const runner = process.cpuUsage(before.runner);
    const runnerSec = (runner.user + runner.system) / 1e6;
    const wallSec = (after.at - before.at) / 1000;
    const otherCores =
      before.machine && after.machine && postgresSec !== null
        ? (after.machine.busy - before.machine.busy - workersSec - postgresSec - runnerSec) /
          wallSec
        : null;
    const msPerEvent = (seconds) =>
      seconds === null ? null : round((seconds * 1000) / Math.max(1, events), 3);
    return {
      workersMsPerEvent: msPerEvent(workersSec),
      postgresMsPerEvent: msPerEvent(postgresSec),
      redisMsPerEvent: msPerEvent(redisSec),
      otherCores: otherCores === null ? null : round(Math.max(0, otherCores), 2),
    };
  };
}

// ---------------------------------------------------------------------------------------------
// One cell

/** What the inbox holds after a drain: statuses, effect rows, ledger rows, most attempts. */
async function inboxFigures(pool) {
  const { rows: statusRows } = await pool.query(
    'SELECT status, count(*)::int AS n, max(attempts)::int AS attempts FROM webhook_events GROUP BY status',
  );
  const [{ effects, distinctEffects }] = (
    await pool.query(
      'SELECT count(*)::int AS effects, count(DISTINCT event_id)::int AS "distinctEffects" FROM bench_effects',
    )
  ).rows;
  const [{ ledger }] = (
    await pool.query('SELECT count(*)::int AS ledger FROM webhook_handler_runs')
  ).rows;
  const statuses = Object.fromEntries(statusRows.map((row) => [row.status, row.n]));
  const maxAttempts = Math.max(0, ...statusRows.map((row) => row.attempts));
  return { statuses, effects, distinctEffects, ledger, maxAttempts };
}

async function effectRows(pool) {
  return (await pool.query('SELECT count(*)::int AS n FROM bench_effects')).rows[0].n;
}

/**
 * Runs one cell: fresh database, fill, W workers, the timed drain, the checks.
 * @param {{ transport: string, handler: string, workers: number, round: number }} cell
 */
async function runCell(cell, context) {
  const { options, adminUrl, redisUrl, runDir } = context;
  const handlerMs = cell.handler === 'slow' ? options.handlerMs : 0;
  const name = `bench_workers_${randomBytes(4).toString('hex')}`;
  const prefix = `bench-workers-${randomBytes(4).toString('hex')}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const result = { ...cell, handlerMs, events: options.events };
  result.loadAverageBefore = os.loadavg().map((value) => round(value, 2));
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const pool = new Pool({ connectionString: url.toString(), max: 2 });
  const workers = [];
  const logFiles = [];
  try {
    result.fill = await fillInbox(url.toString(), { count: options.events, handlerMs });
    const before = await inboxFigures(pool);
    if (before.statuses.pending !== options.events) {
      throw new Error(
        `the fill stored ${JSON.stringify(before.statuses)}, not ${options.events} pending events`,
      );
    }
    await dropRedisPrefix(redisUrl, prefix);
    const env = {
      BENCH_DATABASE: url.toString(),
      BENCH_TRANSPORT: cell.transport,
      BENCH_CONCURRENCY: String(options.concurrency),
      BENCH_POOL_SIZE: String(options.concurrency + 4),
      BENCH_HANDLER_MS: String(handlerMs),
      BENCH_REDIS_URL: redisUrl,
      BENCH_REDIS_PREFIX: prefix,
    };
    const booting = Date.now();
    for (let i = 0; i < cell.workers; i += 1) {
      const logFile = join(
        runDir,
        `${cell.transport}-${cell.handler}-w${cell.workers}-r${cell.round}-${i}.log`,
      );
      logFiles.push(logFile);
      workers.push(await startWorker(i, env, logFile));
    }
    result.bootSec = round((Date.now() - booting) / 1000, 1);
    const stopCpu = startCpu(workers, pool, name);
    const started = Date.now();
    for (const worker of workers) worker.child.send('start');
    const limit = started + options.limitSec * 1000;
    let effects = 0;
    let drainedAt = null;
    while (Date.now() < limit) {
      effects = await effectRows(pool);
      if (effects >= options.events) {
        drainedAt = Date.now();
        break;
      }
      if (workers.some((worker) => worker.child.exitCode !== null)) {
        throw new Error('a worker process exited during the drain');
      }
      await sleep(100);
    }
    result.cpu = await stopCpu(effects);
    result.drainSec = drainedAt === null ? null : round((drainedAt - started) / 1000, 2);
    result.eventsPerSec =
      drainedAt === null ? null : round(options.events / ((drainedAt - started) / 1000), 0);
    result.after = await inboxFigures(pool);
    result.checks = checksOf(result, options.events);
  } catch (error) {
    result.error = error.message;
  } finally {
    await Promise.allSettled(workers.map((worker) => worker.stop()));
    result.workerWarnings = warningsIn(logFiles);
    await pool.end().catch(() => undefined);
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error) =>
      log(`  could not drop database ${name}: ${error.message}`),
    );
    await dropRedisPrefix(redisUrl, prefix).catch((error) =>
      log(`  could not remove the Redis prefix ${prefix}: ${error.message}`),
    );
  }
  result.loadAverageAfter = os.loadavg().map((value) => round(value, 2));
  return result;
}

/** The lines the workers logged (warnings and errors only): how many, and the first few. */
function warningsIn(files) {
  const lines = files.flatMap((file) => {
    try {
      return readFileSync(file, 'utf8').split('\n').filter(Boolean);
    } catch {
      return [];
    }
  });
  return { count: lines.length, first: lines.slice(0, 5) };
}

/** Drained in time, every event processed, one effect and one ledger row per event. */
function checksOf(result, events) {
  const { statuses, effects, distinctEffects, ledger } = result.after;
  const processed = statuses.processed ?? 0;
  return [
    {
      name: 'drained',
      ok: result.drainSec !== null && processed === events,
      detail: `${processed} of ${events} processed (${JSON.stringify(statuses)})`,
    },
    {
      name: 'effects',
      ok: effects === events && distinctEffects === events,
      detail: `${effects} effect rows for ${distinctEffects} distinct events`,
    },
    { name: 'ledger', ok: ledger === events, detail: `${ledger} ledger rows` },
  ];
}

// ---------------------------------------------------------------------------------------------
// Plan and report

/**
 * The cells in the order they run: per round, handler and W, the two transports one after the
 * other, in-process first in even pairs (counted over the whole run) and BullMQ first in odd.
 */
function plan(options) {
  const cells = [];
  let pair = 0;
  for (let round = 1; round <= options.rounds; round += 1) {
    for (const handler of options.handlers) {
      for (const workers of options.workers) {
        const order = pair % 2 === 0 ? TRANSPORTS : [...TRANSPORTS].reverse();
        for (const transport of order) cells.push({ round, transport, handler, workers });
        pair += 1;
      }
    }
  }
  return cells;
}

const median = (values) => {
  const sorted = values.filter((value) => value !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One row per transport × handler × workers: medians over the rounds, and the ratio. */
function summarize(cells, options) {
  const rows = [];
  for (const handler of options.handlers) {
    for (const workers of options.workers) {
      const byTransport = {};
      for (const transport of TRANSPORTS) {
        const own = cells.filter(
          (c) => c.transport === transport && c.handler === handler && c.workers === workers,
        );
        const ok = own.filter((c) => !c.error && c.checks?.every((check) => check.ok));
        byTransport[transport] = {
          transport,
          handler: handler === 'slow' ? `${options.handlerMs} ms` : 'no-op',
          workers,
          rounds: own.length,
          passed: ok.length,
          eventsPerSec: median(ok.map((c) => c.eventsPerSec)),
          drainSec: median(ok.map((c) => c.drainSec)),
          workersCpuMsPerEvent: median(ok.map((c) => c.cpu.workersMsPerEvent)),
          postgresCpuMsPerEvent: median(ok.map((c) => c.cpu.postgresMsPerEvent)),
          redisCpuMsPerEvent: median(ok.map((c) => c.cpu.redisMsPerEvent)),
          otherCores: median(ok.map((c) => c.cpu.otherCores)),
        };
      }
      const inProcess = byTransport['in-process'].eventsPerSec;
      const broker = byTransport.bullmq.eventsPerSec;
      byTransport.bullmq.ratio = inProcess && broker !== null ? round(broker / inProcess, 2) : null;
      rows.push(byTransport['in-process'], byTransport.bullmq);
    }
  }
  return rows;
}

function markdown(rows, report) {
  const lines = [
    '| Transport | Handler | Workers | Events/s | Time to drain | BullMQ / in-process | CPU ms/event: workers | PostgreSQL | Redis | Other load, cores | Checks |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const ratio =
      row.transport === 'in-process' ? '(ref)' : row.ratio === null ? '–' : `${fmt(row.ratio, 2)}×`;
    const checks =
      row.passed === row.rounds ? `✓ ${row.passed}/${row.rounds}` : `✗ ${row.passed}/${row.rounds}`;
    lines.push(
      `| ${row.transport === 'bullmq' ? 'BullMQ' : 'in-process'} | ${row.handler} | ${row.workers} | ` +
        `${fmt(row.eventsPerSec)} | ${row.drainSec === null ? '–' : `${fmt(row.drainSec, 1)} s`} | ${ratio} | ` +
        `${fmt(row.workersCpuMsPerEvent, 3)} | ${fmt(row.postgresCpuMsPerEvent, 3)} | ` +
        `${fmt(row.redisCpuMsPerEvent, 3)} | ${fmt(row.otherCores, 2)} | ${checks} |`,
    );
  }
  const { settings, machine } = report;
  return (
    `## Draining ${fmt(settings.events)} events over worker processes ` +
    `(${report.startedAt.slice(0, 16).replace('T', ' ')} UTC)\n\n` +
    `Machine: ${machine.nproc} CPUs (${machine.cpuModel}), Node ${machine.node}, PostgreSQL ` +
    `${machine.postgres}, Redis ${machine.redis}. dispatch.concurrency ${settings.concurrency} ` +
    `per process, pool ${settings.poolSize}; ${settings.rounds} round(s), medians.\n\n` +
    `${lines.join('\n')}\n`
  );
}

// ---------------------------------------------------------------------------------------------

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    log(error.message);
    process.exit(2);
  }
  if (options.build) ensurePackageBuilt(log);
  const adminUrl = await postgresAdminUrl();
  const redisUrl = benchRedisUrl();
  const [{ version: postgres }] = (
    await adminQuery(adminUrl, "SELECT current_setting('server_version') AS version")
  ).rows;
  const report = {
    mode: options.smoke ? 'smoke' : 'full',
    command: `node bench/workers.js ${process.argv.slice(2).join(' ')}`.trim(),
    startedAt: new Date().toISOString(),
    machine: {
      nproc: os.cpus().length,
      cpuModel: os.cpus()[0]?.model.trim() ?? null,
      node: process.version,
      postgres,
      redis: await redisVersion(redisUrl),
      loadAverageAtStart: os.loadavg().map((value) => round(value, 2)),
    },
    settings: {
      events: options.events,
      workers: options.workers,
      handlers: options.handlers,
      handlerMs: options.handlerMs,
      concurrency: options.concurrency,
      poolSize: options.concurrency + 4,
      rounds: options.rounds,
      limitSec: options.limitSec,
    },
  };
  const runDir = mkdtempSync(join(os.tmpdir(), 'bench-workers-'));
  const cells = [];
  log(`Workers benchmark (${report.mode}); worker logs in ${runDir}`);
  for (const cell of plan(options)) {
    const label = `${cell.transport}, ${cell.handler === 'slow' ? `${options.handlerMs} ms` : 'no-op'}, ${cell.workers} worker(s), round ${cell.round}`;
    log(`▶ ${label}`);
    const result = await runCell(cell, { options, adminUrl, redisUrl, runDir });
    cells.push(result);
    const failed = result.error ?? result.checks.find((check) => !check.ok)?.detail;
    log(
      failed
        ? `  ✗ ${failed}`
        : `  ${fmt(result.eventsPerSec)} events/s, drained in ${fmt(result.drainSec, 1)} s ` +
            `(fill ${fmt(result.fill.perSec)}/s, boot ${fmt(result.bootSec, 1)} s; CPU ms/event ` +
            `workers ${fmt(result.cpu.workersMsPerEvent, 3)}, PostgreSQL ` +
            `${fmt(result.cpu.postgresMsPerEvent, 3)}, Redis ${fmt(result.cpu.redisMsPerEvent, 3)}; ` +
            `other load ${fmt(result.cpu.otherCores, 2)} cores)` +
            (result.workerWarnings.count ? `; ${result.workerWarnings.count} warning line(s)` : ''),
    );
  }
  report.finishedAt = new Date().toISOString();
  report.machine.loadAverageAtEnd = os.loadavg().map((value) => round(value, 2));
  report.summary = summarize(cells, options);
  report.cells = cells;
  const table = markdown(report.summary, report);
  process.stdout.write(`\n${table}\n`);
  const out = resolve(ROOT, options.out);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  log(`Results: ${relative(ROOT, out)}`);
  const ok = cells.every((cell) => !cell.error && cell.checks.every((check) => check.ok));
  if (ok) {
    rmSync(runDir, { recursive: true, force: true });
  } else {
    log(`✗ a cell failed its checks; worker logs in ${runDir}`);
    process.exitCode = 1;
  }
}

main().catch((error) => {
  log(error.stack || error.message);
  process.exit(1);
});
