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
const { mkdirSync, mkdtempSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { join, relative, resolve } = require('node:path');
const { ensurePackageBuilt } = require('./lib/build');
const { benchRedisUrl, redisVersion } = require('./lib/redis');
const { round } = require('./lib/stats');
const { ROOT, postgresAdminUrl, adminQuery } = require('./lib/targets');
const { runCell, stopRunningCells } = require('./lib/drain-cell');
const { TRANSPORTS, fmt, summarize, markdown } = require('./lib/workers-report');

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
  if (options.smoke) options.limitSec = Math.min(options.limitSec, 60);
  options.out ??= join(
    'bench',
    'results',
    options.smoke ? 'workers-smoke.json' : `workers-${new Date().toISOString().slice(0, 10)}.json`,
  );
  return options;
}

const log = (message) => process.stderr.write(`${message}\n`);

// ---------------------------------------------------------------------------------------------
// Plan

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

// ---------------------------------------------------------------------------------------------

async function main() {
  let options;
  try {
    options = parseArgs(process.argv.slice(2));
  } catch (error) {
    log(error.message);
    process.exit(2);
  }
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`\n${signal}: stopping the workers and dropping the cell's database ...`);
      void stopRunningCells().then(() => process.exit(130));
    });
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
