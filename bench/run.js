#!/usr/bin/env node
'use strict';
/**
 * The benchmark: `npm run bench [-- options]`. Starts each target in turn (a hand-written
 * reference receiver, the sample app on PostgreSQL with Express and with Fastify, the sample
 * app on SQLite, a receiver on the NestJS peer `@golevelup/nestjs-stripe`), drives it from a
 * separate load-generator process, checks that every acknowledged delivery was stored, and
 * prints the results as tables and JSON.
 * See `node bench/run.js --help`.
 */
const { execFileSync } = require('node:child_process');
const {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
  existsSync,
} = require('node:fs');
const os = require('node:os');
const { join, relative, resolve } = require('node:path');
const { deliverySequence } = require('./lib/events');
const { runWrk, runOpenLoop, writeDeliveryFile, WRK } = require('./lib/load');
const {
  ROOT,
  TARGETS,
  postgresAdminUrl,
  adminQuery,
  startTarget,
  stopAll,
  sleep,
} = require('./lib/targets');
const { round } = require('./lib/stats');
const { summarizeProfile } = require('./lib/profile-summary');
const { startCpuMeter } = require('./lib/cpu');
const { ensureBuilt } = require('./lib/build');
const { resolveRevision, prepareRevision, twinSpecs } = require('./lib/revision');
const report = require('./lib/report');

const SCENARIOS = ['throughput', 'redelivery', 'fixed-rate', 'drain', 'handled', 'slow-handler'];

const HELP = `Usage: npm run bench [-- options]

Modes (default: the full run, about 15 s per scenario, written to bench/results/latest.json):
  --smoke                 a few seconds per scenario, every target; exits 1 when a target
                          produces no numbers or stored rows do not match acknowledged answers
                          (written to bench/results/smoke.json)
  --long                  the 10-minute memory run: one target at a fixed rate, resident size
                          sampled every 10 s (written to bench/results/long.json)
  --prefill N             after the normal scenarios, put N processed rows in each inbox and
                          run throughput, fixed rate and drain again (1,000,000 takes a few
                          minutes)
  --vs REV                also run each package target from git revision REV (a sha, main,
                          HEAD~3), checked out and built in $TMPDIR/payment-webhooks-bench-<sha>
                          (kept, and reused while it is at that commit), right after this
                          checkout's in each round, and compare the two in a side-by-side
                          table; the reference and the peer run once per round

Options:
  --targets LIST          comma-separated subset of: ${Object.keys(TARGETS).join(', ')}
  --duration S            whole seconds per scenario (default 15; smoke 2)
  --connections C         wrk connections (default 50)
  --threads T             wrk threads (default 1)
  --rate R                offered load of the fixed-rate scenarios, requests/s (default 1000)
  --handler-ms M          handler time of the slow-handler scenario (default 200)
  --drain-backlog N       events in the dispatcher-drain scenario (default 10000; smoke 500);
                          timed for at most 60 s (smoke 10 s), the same bound as the handled
                          scenario's wait for the dispatcher after its load
  --dispatch-concurrency N  run the sample app's dispatcher with this concurrency instead of
                          its default (reported with the results)
  --dispatch-batch [JSON] run the sample app's dispatcher with dispatch.batch: true, or the
                          options given as JSON ('{"size":16}'); reported with the results
  --dispatch-inline [JSON|true|false]  run the sample app with dispatch.inline: true, the options
                          given as JSON ('{"boundMs":100}'), or false; reported with the results
  --long-target ID        target of --long (default pg-express)
  --long-minutes M        length of --long (default 10)
  --scenarios LIST        comma-separated subset of: ${SCENARIOS.join(', ')} (default: all);
                          handled: the throughput load with the dispatcher on, then the time
                          until every stored event is settled (handled/s over load + drain)
  --rounds N              run the whole sequence of targets N times, so with --vs the two
                          revisions alternate (default 1; with --vs 3)
  --pin                   pin targets to CPU 0 and load generators to CPU 1 (taskset)
  --profile               CPU-profile the sample app during the throughput, fixed-rate and
                          drain scenarios (bench/results/profiles/*.cpuprofile, summary in
                          the JSON); the profiler costs a few per cent, so do not quote
                          those runs' figures
  --out FILE              where to write the JSON (a .md table is written next to it; with
                          --vs the default is bench/results/vs.json)
  --no-build              do not rebuild dist/ and bench/dist/ when sources are newer (the
                          peer target is still installed and built when it is out of date)
`;

/** Ids of the targets that run the package's code (the ones `--vs` runs twice). */
function packageTargetIds() {
  return Object.values(TARGETS)
    .filter((spec) => spec.runsPackage)
    .map((spec) => spec.id);
}

/** Throws when `--vs` or `--rounds` cannot apply to the other options. */
function checkComparison(options) {
  if (options.long && (options.vs !== undefined || options.rounds !== undefined)) {
    throw new Error('--vs and --rounds do not apply to --long');
  }
  if (options.vs !== undefined && !options.targets.some((id) => TARGETS[id].runsPackage)) {
    throw new Error(`--vs needs one of the package targets: ${packageTargetIds().join(', ')}`);
  }
}

function parseArgs(argv) {
  const options = {
    smoke: false,
    long: false,
    prefill: 0,
    targets: Object.keys(TARGETS),
    duration: undefined,
    connections: 50,
    threads: 1,
    rate: 1000,
    handlerMs: 200,
    drainBacklog: undefined,
    dispatchConcurrency: 0,
    dispatchBatch: undefined,
    dispatchInline: undefined,
    longTarget: 'pg-express',
    longMinutes: 10,
    scenarios: SCENARIOS,
    pin: false,
    profile: false,
    out: undefined,
    build: true,
    vs: undefined,
    rounds: undefined,
  };
  const positiveNumber = (name, value) => {
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0) {
      throw new Error(`${name} needs a positive number, got "${value}"`);
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
    switch (arg) {
      case '--help':
      case '-h':
        process.stdout.write(HELP);
        process.exit(0);
        break;
      case '--smoke':
        options.smoke = true;
        break;
      case '--long':
        options.long = true;
        break;
      case '--prefill':
        options.prefill = Math.floor(positiveNumber(arg, value()));
        break;
      case '--targets':
        options.targets = value()
          .split(',')
          .map((id) => id.trim())
          .filter(Boolean);
        for (const id of options.targets) {
          if (!TARGETS[id])
            throw new Error(`Unknown target "${id}"; known: ${Object.keys(TARGETS).join(', ')}`);
        }
        break;
      case '--duration':
        options.duration = Math.ceil(positiveNumber(arg, value()));
        break;
      case '--connections':
        options.connections = Math.floor(positiveNumber(arg, value()));
        break;
      case '--threads':
        options.threads = Math.floor(positiveNumber(arg, value()));
        break;
      case '--rate':
        options.rate = positiveNumber(arg, value());
        break;
      case '--handler-ms':
        options.handlerMs = Math.floor(positiveNumber(arg, value()));
        break;
      case '--drain-backlog':
        options.drainBacklog = Math.floor(positiveNumber(arg, value()));
        break;
      case '--dispatch-concurrency':
        options.dispatchConcurrency = Math.floor(positiveNumber(arg, value()));
        break;
      case '--dispatch-batch':
        options.dispatchBatch = argv[i + 1]?.startsWith('{')
          ? JSON.stringify(JSON.parse(value()))
          : 'true';
        break;
      case '--dispatch-inline':
        options.dispatchInline = argv[i + 1]?.startsWith('{')
          ? JSON.stringify(JSON.parse(value()))
          : argv[i + 1] === 'false' || argv[i + 1] === 'true'
            ? value()
            : 'true';
        break;
      case '--long-target':
        options.longTarget = value();
        if (!TARGETS[options.longTarget]) throw new Error(`Unknown target "${options.longTarget}"`);
        break;
      case '--long-minutes':
        options.longMinutes = positiveNumber(arg, value());
        break;
      case '--scenarios':
        options.scenarios = value()
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean);
        for (const name of options.scenarios) {
          if (!SCENARIOS.includes(name))
            throw new Error(`Unknown scenario "${name}"; known: ${SCENARIOS.join(', ')}`);
        }
        break;
      case '--pin':
        options.pin = true;
        break;
      case '--profile':
        options.profile = true;
        break;
      case '--out':
        options.out = value();
        break;
      case '--no-build':
        options.build = false;
        break;
      case '--vs':
        options.vs = value().trim();
        if (!options.vs) throw new Error('--vs needs a git revision');
        break;
      case '--rounds': {
        const rounds = positiveNumber(arg, value());
        if (!Number.isInteger(rounds))
          throw new Error(`--rounds needs a whole number, got "${rounds}"`);
        options.rounds = rounds;
        break;
      }
      default:
        throw new Error(`Unknown option "${arg}"; see --help`);
    }
  }
  if (options.threads > options.connections) {
    throw new Error('--threads cannot exceed --connections');
  }
  checkComparison(options);
  options.rounds ??= options.vs === undefined ? 1 : 3;
  options.duration ??= options.smoke ? 2 : 15;
  options.drainBacklog ??= options.smoke ? 500 : 10_000;
  options.warmup = options.smoke ? 1 : 3;
  // NOTE: how long the dispatcher gets to catch up after each scenario before the rest of its
  // backlog is marked processed (so the next scenario does not measure this one's backlog).
  options.drainWaitSec = options.smoke ? 2 : 30;
  options.drainLimitSec = options.smoke ? 10 : 60;
  options.out ??= join(
    'bench',
    'results',
    options.smoke
      ? 'smoke.json'
      : options.long
        ? 'long.json'
        : options.vs !== undefined
          ? 'vs.json'
          : 'latest.json',
  );
  return options;
}

// ---------------------------------------------------------------------------------------------
// Machine

function commandOutput(command, args) {
  try {
    return execFileSync(command, args, {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    }).trim();
  } catch (error) {
    return String(error.stdout || error.stderr || '').trim() || null;
  }
}

async function describeMachine(adminUrl) {
  const cpu = os.cpus();
  let postgres = null;
  if (adminUrl) {
    const { rows } = await adminQuery(
      adminUrl,
      "SELECT current_setting('server_version') AS version, current_setting('synchronous_commit') AS sync, " +
        "current_setting('shared_buffers') AS shared_buffers, current_setting('fsync') AS fsync, " +
        "current_setting('autovacuum') AS autovacuum",
    );
    postgres = {
      version: rows[0].version,
      synchronousCommit: rows[0].sync,
      fsync: rows[0].fsync,
      sharedBuffers: rows[0].shared_buffers,
      autovacuum: rows[0].autovacuum,
    };
  }
  let sqlite = null;
  try {
    const Database = require('better-sqlite3');
    const db = new Database(':memory:');
    sqlite = db.prepare('SELECT sqlite_version() AS v').get().v;
    db.close();
  } catch {
    // NOTE: reported as null; the SQLite target will fail with the real reason.
  }
  return {
    nproc: Number(commandOutput('nproc', [])) || cpu.length,
    cpuModel: cpu[0]?.model ?? null,
    memoryGiB: round(os.totalmem() / 2 ** 30, 1),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    postgres,
    sqlite,
    wrk: (commandOutput(WRK, ['-v']) ?? '').split('\n')[0].split(' Copyright')[0].trim(),
    loadAverageAtStart: os.loadavg().map((value) => round(value, 2)),
  };
}

// ---------------------------------------------------------------------------------------------
// Scenarios

let runDir;

function log(message) {
  process.stderr.write(`${message}\n`);
}

const prefixOf = (tag) => `evt_${tag}_`;

/** Waits until the stored row count for `prefix` stops changing (in-flight writes landed). */
async function settledRows(target, prefix) {
  let last = -1;
  const deadline = Date.now() + 10_000;
  for (;;) {
    const rows = await target.probe.countRows(prefix);
    if (rows === last || Date.now() > deadline) return rows;
    last = rows;
    await sleep(300);
  }
}

/**
 * Waits until the dispatcher has run every stored event (or `limitSec` passes), then reads the
 * bench handler's receipt-to-start lag over the scenario's `events` stored events; those not
 * started by then count as longer than any measured lag. Whatever is still pending is then
 * marked processed, so the next scenario does not run behind this one's backlog. Resolves to
 * null for targets without a dispatcher.
 */
async function handlerFigures(target, events, limitSec, { skip = true } = {}) {
  if (!target.spec.dispatcher) return null;
  const started = Date.now();
  let backlog = await target.probe.backlog();
  while (backlog > 0 && Date.now() - started < limitSec * 1000) {
    await sleep(250);
    backlog = await target.probe.backlog();
  }
  const waitedSec = round((Date.now() - started) / 1000, 1);
  const stats = await target.bench('GET', `stats?events=${events}`);
  const figures = { handled: stats.started, lagMs: stats.lagMs, backlogLeft: backlog, waitedSec };
  if (skip && backlog > 0) {
    try {
      figures.skipped = await target.probe.skipBacklog();
    } catch (error) {
      // NOTE: SQLite may stay write-locked by the app; the next scenario then starts behind.
      figures.skipError = error.message;
    }
  }
  return figures;
}

/** Starts a CPU profile of a sample-app target when `--profile` asks; returns its stopper. */
async function startProfile(target, name) {
  if (!options.profile || !target.spec.dispatcher) return async () => undefined;
  await target.bench('POST', 'profile/start');
  return async () => {
    const profile = await target.bench('POST', 'profile/stop');
    const dir = join(ROOT, 'bench', 'results', 'profiles');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, `${target.spec.id}-${name}.cpuprofile`);
    writeFileSync(file, JSON.stringify(profile));
    return { file: relative(ROOT, file), ...summarizeProfile(profile, target.spec.root ?? ROOT) };
  };
}

/** Clears the bench handler's statistics and has it measure only events whose id starts with `prefix`. */
async function resetHandler(target, prefix) {
  if (target.spec.dispatcher) await target.bench('POST', `reset/${prefix}`);
}

function rssMiB(target) {
  const rss = target.sampleRss();
  return rss === null ? null : round(rss / 2 ** 20, 1);
}

/** Deliveries each wrk thread sent, from its counter: thread t sends lines t, t+T, … cycling. */
function sentIds(lines, threads, perThreadSent) {
  const ids = new Set();
  for (let t = 0; t < threads; t += 1) {
    const own = [];
    for (let i = t; i < lines.length; i += threads) own.push(lines[i].id);
    const count = Math.min(perThreadSent[t], own.length);
    for (let k = 0; k < count; k += 1) ids.add(own[k]);
  }
  return ids;
}

/**
 * What wrk's per-thread counts say about a closed-loop run over `lines`: requests sent,
 * acknowledged and answered otherwise, the distinct events sent, the distinct events certainly
 * acknowledged (`lower`), and whether a thread ran past its share of the file (cycled).
 */
function wrkCounts(wrk, lines) {
  const sent = wrk.threads.reduce((sum, t) => sum + t.sent, 0);
  const acked = wrk.threads.reduce((sum, t) => sum + t.ok, 0);
  const non2xx = wrk.threads.reduce((sum, t) => sum + t.non2xx, 0);
  const statuses = {};
  for (const t of wrk.threads) {
    for (const [code, count] of Object.entries(t.statuses))
      statuses[code] = (statuses[code] ?? 0) + count;
  }
  const distinctSent = sentIds(
    lines,
    options.threads,
    wrk.threads.map((t) => t.sent),
  ).size;
  const wrapped = wrk.threads.some(
    (t, i) => t.sent > Math.ceil((lines.length - i) / options.threads),
  );
  return {
    sent,
    acked,
    non2xx,
    statuses,
    socketErrors: wrk.errors.connect + wrk.errors.read + wrk.errors.write + wrk.errors.timeout,
    distinctSent,
    lower: distinctSent - (sent - acked),
    wrapped,
  };
}

/** The closed-loop accounting check: stored rows between `lower` and `distinctSent`. */
function closedLoopAccounting(rows, { lower, distinctSent }) {
  return {
    ok: rows >= lower && rows <= distinctSent,
    detail:
      rows < lower
        ? `${lower - rows} acknowledged event(s) not stored`
        : rows > distinctSent
          ? `${rows - distinctSent} stored event(s) never sent`
          : `stored ${rows}; acknowledged ≥ ${lower} distinct, sent ${distinctSent} distinct`,
  };
}

/** wrk's latency percentiles in ms. */
function wrkLatencyMs(wrk) {
  const us = (value) => round(value / 1000, 2);
  return {
    p50: us(wrk.latencyUs.p50),
    p90: us(wrk.latencyUs.p90),
    p99: us(wrk.latencyUs.p99),
    p999: us(wrk.latencyUs.p999),
    max: us(wrk.latencyUs.max),
  };
}

/**
 * The one-handler-run-per-event check, once the dispatcher has caught up (`handler.backlogLeft`
 * 0); undefined while events were still waiting.
 */
function handlerRunsCheck(handler, rows) {
  if (!handler || handler.backlogLeft !== 0) return undefined;
  return {
    ok: handler.handled === rows,
    detail: `${handler.handled} handler runs for ${rows} stored events`,
  };
}

/**
 * Closed-loop throughput with wrk. Stored rows must lie between the distinct events that were
 * certainly acknowledged and the distinct events sent: an acknowledged event is always stored,
 * and nothing unsent is. The two bounds differ only by requests cut off when wrk stopped or
 * answered with an error.
 */
async function wrkScenario(
  target,
  { scenario, tag, duplicateRatio, lineCount, durationSec, waitSec = options.drainWaitSec },
) {
  const { lines, redeliveries } = deliverySequence({
    tag,
    count: lineCount,
    duplicateRatio,
    seed: 7,
  });
  const file = join(runDir, `${target.spec.id}-${tag}.tsv`);
  await writeDeliveryFile(lines, file);
  await resetHandler(target, prefixOf(tag));
  const stopProfile =
    scenario === 'throughput' ? await startProfile(target, scenario) : async () => undefined;
  const stopCpu = startCpuMeter(target.child.pid, target.spec);
  const wrk = await closedLoop(target, file, durationSec);
  const cpu = stopCpu(wrk.threads.reduce((sum, t) => sum + t.ok, 0));
  const profile = await stopProfile();
  rmSync(file, { force: true });
  const settled = await settledRows(target, prefixOf(tag));
  const rssAfterLoad = rssMiB(target);
  const counts = wrkCounts(wrk, lines);
  const handler = await handlerFigures(target, settled, waitSec);
  // NOTE: counted again once the dispatcher caught up: on a busy SQLite target, requests still
  // queued for the connection when wrk stopped are stored after the first count looked settled.
  const rows = await target.probe.countRows(prefixOf(tag));
  const seconds = wrk.durationUs / 1e6;
  const result = {
    scenario,
    tool: `wrk -t${options.threads} -c${options.connections} -d${durationSec}s`,
    durationSec: round(seconds, 2),
    acksPerSec: round(counts.acked / seconds, 0),
    cpu,
    latencyMs: wrkLatencyMs(wrk),
    sent: counts.sent,
    acked: counts.acked,
    non2xx: counts.non2xx,
    statuses: counts.statuses,
    socketErrors: counts.socketErrors,
    redeliveryShare: duplicateRatio,
    fileLines: lines.length,
    fileRedeliveries: redeliveries,
    wrapped: counts.wrapped,
    distinctSent: counts.distinctSent,
    rows,
    expectedRows: [counts.lower, counts.distinctSent],
    accounting: closedLoopAccounting(rows, counts),
    handler,
    rssMiB: rssAfterLoad,
    ...(profile ? { profile } : {}),
  };
  const runs = handlerRunsCheck(handler, rows);
  if (runs) result.handlerRunsCheck = runs;
  return result;
}

/**
 * Open-loop load at a fixed rate; the generator knows which event got which answer, so the
 * check is exact: every acknowledged event id must be among the stored rows.
 */
async function fixedRateScenario(
  target,
  {
    scenario,
    tag,
    rate,
    durationSec,
    dispatcher = 'wait',
    warmupSec = options.smoke ? 0.5 : 2,
    measure = prefixOf(tag),
  },
) {
  await resetHandler(target, measure);
  const ackedIdsFile = join(runDir, `${target.spec.id}-${tag}.acked`);
  const stopProfile =
    scenario === 'fixed-rate' ? await startProfile(target, scenario) : async () => undefined;
  const load = await runOpenLoop({
    url: target.url,
    path: target.spec.path,
    rate,
    durationSec,
    tag,
    ackedIdsFile,
    warmupSec,
    pinCpu: options.pin ? '1' : undefined,
  });
  // NOTE: read the moment the load stops: the events stored but not yet handled then.
  const backlogAtStop = target.spec.dispatcher ? await target.probe.backlog() : null;
  const profile = await stopProfile();
  await settledRows(target, prefixOf(tag));
  const rssAfterLoad = rssMiB(target);
  const stored = new Set(await target.probe.eventIds(prefixOf(tag)));
  const ackedIds = readFileSync(ackedIdsFile, 'utf8').split('\n').filter(Boolean);
  rmSync(ackedIdsFile, { force: true });
  const missing = ackedIds.filter((id) => !stored.has(id));
  // NOTE: 'wait' lets the dispatcher catch up, 'read' takes the figures as they are, and 'keep'
  // leaves the backlog alone (the drain scenario builds one on purpose).
  const handler =
    dispatcher === 'keep'
      ? null
      : await handlerFigures(
          target,
          stored.size,
          dispatcher === 'wait' ? options.drainWaitSec : 0,
          {
            skip: dispatcher === 'wait',
          },
        );
  const result = {
    scenario,
    tool: `open loop, ${rate} req/s for ${durationSec}s after ${warmupSec}s unmeasured`,
    durationSec: round(load.elapsedSec, 2),
    offeredPerSec: rate,
    acksPerSec: round(load.ackRate, 0),
    latencyMs: {
      p50: load.latencyMs.p50,
      p90: load.latencyMs.p90,
      p99: load.latencyMs.p99,
      p999: load.latencyMs.p999,
      max: load.latencyMs.max,
    },
    sent: load.sent,
    acked: load.acked,
    non2xx: load.non2xx,
    statuses: load.statuses,
    socketErrors: load.errors,
    socketErrorCodes: load.errorCodes,
    maxInFlight: load.maxInFlight,
    ...(durationSec >= 60 ? { latencyWindowsMs: load.latencyWindowsMs } : {}),
    rows: stored.size,
    backlogAtStop,
    accounting: {
      ok: missing.length === 0 && stored.size <= load.sent && stored.size >= load.acked,
      detail:
        missing.length > 0
          ? `${missing.length} acknowledged event(s) not stored, e.g. ${missing.slice(0, 3).join(', ')}`
          : `all ${load.acked} acknowledged events stored; ${stored.size} rows for ${load.sent} sent`,
    },
    handler,
    rssMiB: rssAfterLoad,
    ...(profile ? { profile } : {}),
  };
  const runs = handlerRunsCheck(handler, stored.size);
  if (runs) result.handlerRunsCheck = runs;
  return result;
}

/** wrk's closed loop on `target` for `durationSec`, cycling through the deliveries in `file`. */
function closedLoop(target, file, durationSec) {
  return runWrk({
    url: target.url,
    path: target.spec.path,
    file,
    threads: options.threads,
    connections: options.connections,
    durationSec,
    pinCpu: options.pin ? '1' : undefined,
  });
}

/**
 * Dispatcher drain: builds a backlog with the dispatcher stopped, starts it, and times how
 * fast the (no-op) handler starts run through the backlog.
 */
async function drainScenario(target, { backlog, tag = 'd' }) {
  await target.bench('POST', 'dispatcher/stop');
  const fillRate = 3000;
  // NOTE: PostgreSQL's WAL per stored and per drained event: what the inbox writes for each.
  const fillWal = target.probe.walMeter ? await target.probe.walMeter() : null;
  const fill = await fixedRateScenario(target, {
    scenario: 'drain-fill',
    tag,
    rate: fillRate,
    durationSec: backlog / fillRate,
    dispatcher: 'keep',
    warmupSec: 0,
  });
  const pending = await target.probe.backlog();
  const fillWalBytes = fillWal ? await fillWal() : null;
  await resetHandler(target, prefixOf(tag));
  const drainWal = target.probe.walMeter ? await target.probe.walMeter() : null;
  const stopProfile = await startProfile(target, 'drain');
  const stopCpu = startCpuMeter(target.child.pid, target.spec);
  const startedAt = Date.now();
  await target.bench('POST', 'dispatcher/start');
  const limit = startedAt + options.drainLimitSec * 1000;
  let left = pending;
  let emptyAt = null;
  // NOTE: counting the backlog is a scan of the inbox that would take PostgreSQL time from the
  // dispatcher being measured, so it is counted only once every event has started.
  while (Date.now() < limit) {
    const { started } = await target.bench('GET', 'stats');
    if (started >= fill.rows) {
      left = await target.probe.backlog();
      if (left === 0) {
        emptyAt = Date.now();
        break;
      }
    }
    await sleep(100);
  }
  const cpu = stopCpu(pending - left);
  const drainWalBytes = drainWal ? await drainWal() : null;
  const profile = await stopProfile();
  const stats = await target.bench('GET', `stats?events=${fill.rows}`);
  const skipped = left > 0 ? await target.probe.skipBacklog().catch((error) => error.message) : 0;
  const spanSec = stats.started > 1 ? (stats.lastStartAt - stats.firstStartAt) / 1000 : null;
  return {
    scenario: 'drain',
    backlog: pending,
    fill: { acked: fill.acked, rows: fill.rows, accounting: fill.accounting },
    handled: stats.started,
    eventsPerSec: spanSec ? round((stats.started - 1) / spanSec, 0) : null,
    wallSec: emptyAt ? round((emptyAt - startedAt) / 1000, 2) : null,
    wallEventsPerSec: emptyAt ? round(pending / ((emptyAt - startedAt) / 1000), 0) : null,
    backlogLeft: left,
    cpu,
    wal:
      fillWalBytes === null
        ? null
        : {
            bytesPerStoredEvent: fill.rows > 0 ? round(fillWalBytes / fill.rows, 0) : null,
            bytesPerDrainedEvent:
              pending - left > 0 ? round(drainWalBytes / (pending - left), 0) : null,
          },
    skipped,
    limitSec: options.drainLimitSec,
    accounting: fill.accounting,
    ...(profile ? { profile } : {}),
    handlerRunsCheck:
      left === 0
        ? {
            ok: stats.started === fill.rows,
            detail: `${stats.started} handler runs for ${fill.rows} stored events`,
          }
        : undefined,
  };
}

/** How long the stored rows must stay as they were for a settled backlog to count as settled. */
const SETTLE_CONFIRM_MS = 500;

/**
 * Waits, after the load, until the dispatcher has settled every stored event of `prefix`, or
 * `limitSec` passes. The handler's starts are read from the app's memory every 100 ms; the
 * stored rows are counted once as many handlers have started as events were certainly
 * acknowledged, and the backlog (a scan of the inbox, as in the drain scenario) only once a
 * handler has started for every stored row. Settled: no event pending, processing or retrying,
 * and the stored rows the same SETTLE_CONFIRM_MS later (a request still queued when wrk stopped
 * may be stored after the first count; the drain then goes on). `readCpu(units)` is read at the
 * moment the backlog was first seen settled. Resolves to the rows, the handler starts, the
 * backlog left, when it emptied and the CPU then (both null when it did not within the limit).
 */
async function waitSettled(target, prefix, { lower, from, limitSec, readCpu }) {
  const limit = from + limitSec * 1000;
  let rows = null;
  let left = null;
  let started = 0;
  let candidate = null;
  for (;;) {
    ({ started } = await target.bench('GET', 'stats'));
    if (started >= lower && (rows === null || started >= rows)) {
      rows = await target.probe.countRows(prefix);
      left = started >= rows ? await target.probe.backlog() : null;
      if (left !== 0) {
        candidate = null;
      } else if (candidate?.rows !== rows) {
        candidate = { rows, at: Date.now(), cpu: readCpu(rows) };
      } else if (Date.now() - candidate.at >= SETTLE_CONFIRM_MS) {
        return { rows, started, left, settledAt: candidate.at, cpu: candidate.cpu };
      }
    }
    if (Date.now() >= limit) break;
    await sleep(candidate ? SETTLE_CONFIRM_MS : 100);
  }
  rows = await target.probe.countRows(prefix);
  left = await target.probe.backlog();
  return { rows, started, left, settledAt: null, cpu: null };
}

/**
 * Handled end to end: the throughput scenario's closed loop (unique events, wrk) with the
 * dispatcher on, then the time until the dispatcher has settled every stored event of the
 * scenario (its handler has run, the event is no longer pending, processing or retrying),
 * waited for at most the drain scenario's limit. Handled/s is the stored events over load +
 * drain seconds; CPU is counted over both. When events are still waiting at the limit, only
 * the settled ones are counted and the figure is a lower bound (`lowerBound`). A target without
 * an inbox runs its handler inside the request: its handled/s is its acks/s, its drain 0.
 */
async function handledScenario(target, { tag = 'h', lineCount, durationSec }) {
  const prefix = prefixOf(tag);
  const { lines } = deliverySequence({ tag, count: lineCount, duplicateRatio: 0, seed: 7 });
  const file = join(runDir, `${target.spec.id}-${tag}.tsv`);
  await writeDeliveryFile(lines, file);
  await resetHandler(target, prefix);
  const stopCpu = startCpuMeter(target.child.pid, target.spec);
  const wrk = await closedLoop(target, file, durationSec);
  const loadEndedAt = Date.now();
  const counts = wrkCounts(wrk, lines);
  const loadSec = wrk.durationUs / 1e6;
  let figures;
  if (target.spec.dispatcher) {
    const wait = await waitSettled(target, prefix, {
      lower: counts.lower,
      from: loadEndedAt,
      limitSec: options.drainLimitSec,
      readCpu: stopCpu,
    });
    // NOTE: an event still waiting counts as unsettled; the backlog is the whole inbox's, so
    // this never counts more than were settled.
    const settled =
      wait.settledAt !== null
        ? wait.rows
        : Math.max(0, Math.min(wait.started, wait.rows - wait.left));
    const drainSec = ((wait.settledAt ?? Date.now()) - loadEndedAt) / 1000;
    const cpu = wait.cpu ?? stopCpu(settled);
    const stats = await target.bench('GET', `stats?events=${wait.rows}`);
    // NOTE: counted again: a row stored after the count that looked settled (a request still
    // queued when wrk stopped, on a busy SQLite target) means not every event was settled then.
    const rows = await target.probe.countRows(prefix);
    figures = {
      rows,
      settled,
      lowerBound: wait.left > 0 || rows !== wait.rows,
      drainSec,
      cpu,
      handler: {
        handled: stats.started,
        lagMs: stats.lagMs,
        backlogLeft: rows === wait.rows ? wait.left : null,
        waitedSec: round(drainSec, 1),
      },
    };
    if (wait.left > 0 || rows !== wait.rows) {
      figures.skipped = await target.probe.skipBacklog().catch((error) => error.message);
    }
  } else {
    const cpu = stopCpu(counts.acked);
    figures = { rows: await settledRows(target, prefix), cpu, drainSec: 0, lowerBound: false };
  }
  rmSync(file, { force: true });
  const { rows, cpu, drainSec, lowerBound } = figures;
  const acksPerSec = round(counts.acked / loadSec, 0);
  const result = {
    scenario: 'handled',
    tool: `wrk -t${options.threads} -c${options.connections} -d${durationSec}s, then the drain (at most ${options.drainLimitSec} s)`,
    handledInRequest: !target.spec.dispatcher,
    handledPerSec: target.spec.dispatcher
      ? round(figures.settled / (loadSec + drainSec), 0)
      : acksPerSec,
    lowerBound,
    handledEvents: target.spec.dispatcher ? figures.settled : counts.acked,
    loadSec: round(loadSec, 2),
    drainSec: round(drainSec, 2),
    drainLimitSec: options.drainLimitSec,
    acksPerSec,
    cpu,
    latencyMs: wrkLatencyMs(wrk),
    sent: counts.sent,
    acked: counts.acked,
    non2xx: counts.non2xx,
    statuses: counts.statuses,
    socketErrors: counts.socketErrors,
    fileLines: lines.length,
    wrapped: counts.wrapped,
    distinctSent: counts.distinctSent,
    rows,
    expectedRows: [counts.lower, counts.distinctSent],
    accounting: closedLoopAccounting(rows, counts),
    handler: figures.handler ?? null,
    ...(figures.skipped !== undefined ? { skipped: figures.skipped } : {}),
    rssMiB: rssMiB(target),
  };
  const runs = handlerRunsCheck(figures.handler, rows);
  if (runs) result.handlerRunsCheck = runs;
  return result;
}

async function prefill(target, count) {
  log(`  prefilling ${count.toLocaleString('en-US')} processed rows ...`);
  const started = Date.now();
  let reported = 0;
  await target.probe.prefill(count, (done) => {
    if (done - reported >= count / 5 || done === count) {
      reported = done;
      log(
        `    ${done.toLocaleString('en-US')} rows (${round((Date.now() - started) / 1000, 0)} s)`,
      );
    }
  });
  return { rows: await target.probe.totalRows(), seconds: round((Date.now() - started) / 1000, 1) };
}

/** Lines for a wrk file: enough that the run should not cycle, judged from the warm-up rate. */
function lineCountFor(rate, durationSec) {
  return Math.max(5000, Math.ceil(rate * durationSec * 2.5));
}

async function benchTarget(spec, adminUrl, roundNumber) {
  const record = {
    id: spec.id,
    label: spec.label,
    ...(spec.twinOf ? { twinOf: spec.twinOf } : {}),
    round: roundNumber,
    dispatcher: spec.dispatcher,
    scenarios: {},
    loadAverage: {},
  };
  record.loadAverage.before = os.loadavg().map((value) => round(value, 2));
  const env = {};
  if (options.dispatchConcurrency > 0)
    env.BENCH_DISPATCH_CONCURRENCY = String(options.dispatchConcurrency);
  if (options.dispatchBatch) env.BENCH_DISPATCH_BATCH = options.dispatchBatch;
  if (options.dispatchInline) env.BENCH_DISPATCH_INLINE = options.dispatchInline;
  log(
    `\n▶ ${spec.label}${options.rounds > 1 ? ` (round ${roundNumber} of ${options.rounds})` : ''}`,
  );
  const target = await startTarget(spec, {
    adminUrl,
    runDir,
    pinCpu: options.pin ? '0' : undefined,
    env,
  });
  record.logFile = target.logFile;
  record.rssAtStartMiB = rssMiB(target);
  const step = async (name, work) => {
    const started = Date.now();
    log(`  ${name} ...`);
    try {
      const result = await work();
      if (target.exited) throw new Error(`the target exited (log ${target.logFile})`);
      log(`  ${name}: ${report.oneLine(result)} (${round((Date.now() - started) / 1000, 1)} s)`);
      return result;
    } catch (error) {
      const failure = { scenario: name, error: error.message };
      log(`  ${name} FAILED: ${error.message}`);
      return failure;
    }
  };
  try {
    const warm = await step('warm-up', () =>
      wrkScenario(target, {
        scenario: 'warm-up',
        tag: 'w',
        duplicateRatio: 0,
        lineCount: lineCountFor(15_000, options.warmup),
        durationSec: options.warmup,
        waitSec: 0,
      }),
    );
    const estimate = Math.max(warm.acksPerSec ?? 0, 4000);
    const S = record.scenarios;
    const wants = (name) => options.scenarios.includes(name);
    if (wants('throughput'))
      S.throughput = await step('throughput', () =>
        wrkScenario(target, {
          scenario: 'throughput',
          tag: 'u',
          duplicateRatio: 0,
          lineCount: lineCountFor(estimate, options.duration),
          durationSec: options.duration,
        }),
      );
    if (wants('redelivery'))
      S.redelivery = await step('redelivery', () =>
        wrkScenario(target, {
          scenario: 'redelivery',
          tag: 'r',
          duplicateRatio: 0.3,
          lineCount: lineCountFor(estimate, options.duration),
          durationSec: options.duration,
        }),
      );
    if (wants('fixed-rate'))
      S.fixedRate = await step('fixed-rate', () =>
        fixedRateScenario(target, {
          scenario: 'fixed-rate',
          tag: 'f',
          rate: options.rate,
          durationSec: options.duration,
        }),
      );
    if (spec.dispatcher && wants('drain')) {
      S.drain = await step('drain', () => drainScenario(target, { backlog: options.drainBacklog }));
    }
    if (wants('handled'))
      S.handled = await step('handled end to end', () =>
        handledScenario(target, {
          lineCount: lineCountFor(estimate, options.duration),
          durationSec: options.duration,
        }),
      );
    if (options.prefill > 0) {
      record.prefill = await step('prefill', () => prefill(target, options.prefill));
      S.throughputPrefilled = await step('throughput (prefilled)', () =>
        wrkScenario(target, {
          scenario: 'throughput-prefilled',
          tag: 'pu',
          duplicateRatio: 0,
          lineCount: lineCountFor(estimate, options.duration),
          durationSec: options.duration,
        }),
      );
      S.fixedRatePrefilled = await step('fixed-rate (prefilled)', () =>
        fixedRateScenario(target, {
          scenario: 'fixed-rate-prefilled',
          tag: 'pf',
          rate: options.rate,
          durationSec: options.duration,
        }),
      );
      if (spec.dispatcher && wants('drain')) {
        S.drainPrefilled = await step('drain (prefilled)', () =>
          drainScenario(target, { backlog: options.drainBacklog, tag: 'pd' }),
        );
      }
    }
    if (spec.dispatcher && wants('slow-handler')) {
      S.slowHandler = await step(`${options.handlerMs} ms handler`, async () => {
        await target.bench('POST', `handler-delay/${options.handlerMs}`);
        const result = await fixedRateScenario(target, {
          scenario: 'slow-handler',
          tag: 's',
          rate: options.rate,
          durationSec: options.duration,
          dispatcher: 'read',
          // NOTE: counts the handler runs of the unmeasured warm-up deliveries (tag "sx") too:
          // they are the first in the dispatcher's queue.
          measure: 'evt_s',
        });
        await target.bench('POST', 'handler-delay/0');
        return { ...result, handlerMs: options.handlerMs };
      });
    }
  } finally {
    const samples = target.rssSamples.map((sample) => sample.rss);
    record.rssPeakMiB = samples.length ? round(Math.max(...samples) / 2 ** 20, 1) : null;
    record.loadAverage.after = os.loadavg().map((value) => round(value, 2));
    log('  stopping ...');
    await target.stop();
  }
  return record;
}

// ---------------------------------------------------------------------------------------------
// Long run

/** Least-squares slope of `points` ({ x, y }), per unit of x. */
function slope(points) {
  const n = points.length;
  if (n < 2) return null;
  const mx = points.reduce((sum, p) => sum + p.x, 0) / n;
  const my = points.reduce((sum, p) => sum + p.y, 0) / n;
  const sxx = points.reduce((sum, p) => sum + (p.x - mx) ** 2, 0);
  const sxy = points.reduce((sum, p) => sum + (p.x - mx) * (p.y - my), 0);
  return sxx === 0 ? null : sxy / sxx;
}

/**
 * Resident size and heap over the long run. The first minute is the ramp-up (JIT, pools,
 * buffers); flatness is judged from there on: the RSS trend, and the heap left after full
 * collections (what is still reachable) in the first and second half, which grows when
 * something leaks.
 */
function memorySummary(samples) {
  const rss = samples.filter((s) => s.rssMiB !== null);
  const steady = rss.filter((s) => s.atSec >= 60);
  const afterGc = samples.filter((s) => s.heapAfterFullGcMiB != null && s.atSec >= 60);
  const middle = samples.at(-1).atSec / 2;
  const rssSlope = slope(steady.map((s) => ({ x: s.atSec / 60, y: s.rssMiB })));
  const end = samples.at(-1).atSec;
  const median = (list, key = 'rssMiB') => {
    const sorted = list.map((s) => s[key]).sort((a, b) => a - b);
    return sorted.length ? sorted[Math.floor((sorted.length - 1) / 2)] : null;
  };
  return {
    intervalSec: 10,
    rssMiB: {
      first: rss[0]?.rssMiB ?? null,
      atOneMinute: steady[0]?.rssMiB ?? null,
      last: rss.at(-1)?.rssMiB ?? null,
      max: rss.length ? Math.max(...rss.map((s) => s.rssMiB)) : null,
      slopePerMinuteAfterOneMinute: rssSlope === null ? null : round(rssSlope, 2),
      medianSecondMinute: median(rss.filter((s) => s.atSec >= 60 && s.atSec < 120)),
      medianLastMinute: median(rss.filter((s) => s.atSec >= end - 60)),
    },
    heapAfterFullGcMiB: {
      firstHalf: median(
        afterGc.filter((s) => s.atSec < middle),
        'heapAfterFullGcMiB',
      ),
      secondHalf: median(
        afterGc.filter((s) => s.atSec >= middle),
        'heapAfterFullGcMiB',
      ),
    },
    samples,
  };
}

async function longRun(spec, adminUrl) {
  const minutes = options.longMinutes;
  const durationSec = Math.round(minutes * 60);
  log(`\n▶ ${spec.label}: ${minutes} min at ${options.rate} req/s, resident size every 10 s`);
  const target = await startTarget(spec, {
    adminUrl,
    runDir,
    pinCpu: options.pin ? '0' : undefined,
  });
  const record = { id: spec.id, label: spec.label, logFile: target.logFile };
  try {
    await fixedRateScenario(target, {
      scenario: 'warm-up',
      tag: 'lw',
      rate: options.rate,
      durationSec: 5,
    });
    const samples = [];
    const startedAt = Date.now();
    const sample = async () => {
      const rss = target.sampleRss();
      const memory = spec.dispatcher ? await target.bench('GET', 'memory').catch(() => null) : null;
      const heapUsed = memory?.heapUsed ?? null;
      const afterGc = memory?.heapAfterFullGc ?? null;
      samples.push({
        atSec: round((Date.now() - startedAt) / 1000, 0),
        rssMiB: rss === null ? null : round(rss / 2 ** 20, 1),
        heapUsedMiB: heapUsed === null ? null : round(heapUsed / 2 ** 20, 1),
        heapAfterFullGcMiB: afterGc === null ? null : round(afterGc / 2 ** 20, 1),
      });
    };
    await sample();
    const timer = setInterval(() => void sample(), 10_000);
    let load;
    try {
      load = await fixedRateScenario(target, {
        scenario: 'long',
        tag: 'L',
        rate: options.rate,
        durationSec,
        // NOTE: memory is sampled while the load runs; the lag is read as it stands at the end.
        dispatcher: 'read',
      });
      await sample();
    } finally {
      clearInterval(timer);
    }
    record.load = load;
    record.memory = memorySummary(samples);
  } finally {
    await target.stop();
  }
  return record;
}

// ---------------------------------------------------------------------------------------------

let options;

/**
 * The targets of one round, in order: each selected target, and right after each package
 * target its twin from the other revision when there is one.
 */
function runSequence(specs, tree) {
  const twins = tree ? twinSpecs(specs, tree) : [];
  return specs.flatMap((spec) => [spec, ...twins.filter((twin) => twin.twinOf === spec.id)]);
}

/** What the results say about the other revision. */
function describeTree(tree) {
  return {
    revision: tree.rev,
    sha: tree.sha,
    short: tree.short,
    worktree: tree.root,
    worktreeReused: tree.reused,
    lockFileDiffers: tree.lockFileDiffers,
    setupSec: tree.setupSec,
  };
}

async function main() {
  let revision;
  try {
    options = parseArgs(process.argv.slice(2));
    if (options.vs !== undefined) revision = resolveRevision(options.vs);
  } catch (error) {
    log(error.message);
    process.exit(2);
  }
  if (!existsSync(WRK)) {
    log(`wrk is not at ${WRK}: install it (Debian/Ubuntu: apt-get install wrk) or set BENCH_WRK.`);
    process.exit(2);
  }
  const started = Date.now();
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      log(`\n${signal}: stopping the targets and dropping their databases ...`);
      void stopAll().then(() => process.exit(130));
    });
  }
  if (options.build) ensureBuilt(log);
  const ids = options.long ? [options.longTarget] : options.targets;
  const specs = ids.map((id) => TARGETS[id]);
  let tree;
  if (revision) {
    try {
      tree = prepareRevision(
        revision,
        specs.filter((spec) => spec.runsPackage),
        log,
      );
    } catch (error) {
      log(error.message);
      process.exit(2);
    }
  }
  const sequence = runSequence(specs, tree);
  const adminUrl = specs.some((spec) => spec.database === 'postgres')
    ? await postgresAdminUrl()
    : undefined;
  runDir = mkdtempSync(join(os.tmpdir(), 'bench-run-'));
  const results = {
    mode: options.smoke ? 'smoke' : options.long ? 'long' : 'full',
    startedAt: new Date(started).toISOString(),
    machine: await describeMachine(adminUrl),
    settings: {
      durationSec: options.duration,
      wrk: { threads: options.threads, connections: options.connections },
      fixedRatePerSec: options.rate,
      handlerMs: options.handlerMs,
      drainBacklog: options.drainBacklog,
      drainLimitSec: options.drainLimitSec,
      dispatcherWaitSec: options.drainWaitSec,
      dispatchConcurrency: options.dispatchConcurrency || 'sample default',
      dispatchBatch: options.dispatchBatch ?? 'sample default',
      dispatchInline: options.dispatchInline ?? 'sample default',
      prefillRows: options.prefill,
      longMinutes: options.long ? options.longMinutes : undefined,
      pinned: options.pin,
      rounds: options.rounds,
    },
    ...(tree ? { vs: describeTree(tree) } : {}),
    targets: [],
    failures: [],
  };
  log(`Benchmark (${results.mode}); logs and load files in ${runDir}`);
  for (let roundNumber = 1; roundNumber <= options.rounds; roundNumber += 1) {
    if (options.rounds > 1) log(`\n=== Round ${roundNumber} of ${options.rounds} ===`);
    for (const spec of sequence) {
      try {
        // NOTE: installing and building happen before the target starts, outside its figures.
        const setup = spec.prepare?.(log);
        if (options.long) {
          results.long = await longRun(spec, adminUrl);
        } else {
          const record = await benchTarget(spec, adminUrl, roundNumber);
          if (setup) record.setup = setup;
          results.targets.push(record);
        }
      } catch (error) {
        log(`✗ ${spec.label}: ${error.message}`);
        results.failures.push({ target: spec.id, round: roundNumber, error: error.message });
      }
    }
  }
  results.finishedAt = new Date().toISOString();
  results.elapsedSec = round((Date.now() - started) / 1000, 0);
  results.machine.loadAverageAtEnd = os.loadavg().map((value) => round(value, 2));
  report.addRatios(results);
  if (results.vs) results.vs.rows = report.sideBySide(results);
  results.checks = report.checks(results, { smoke: options.smoke, long: options.long });
  results.goals = options.long ? report.longGoals(results) : report.goals(results);
  const failed = results.checks.filter((check) => !check.ok);
  const ok = failed.length === 0 && results.failures.length === 0;
  if (ok) {
    // NOTE: logs and load files are kept only when something failed; the JSON then names them.
    for (const target of [...results.targets, results.long].filter(Boolean)) delete target.logFile;
  }
  const markdown = report.markdown(results);
  process.stdout.write(`\n${markdown}\n`);
  const out = resolve(ROOT, options.out);
  mkdirSync(join(out, '..'), { recursive: true });
  writeFileSync(out, `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(`${out.replace(/\.json$/, '')}.md`, `${markdown}\n`);
  log(`Results: ${relative(ROOT, out)} (and .md); ${results.elapsedSec} s in all`);
  if (ok) {
    rmSync(runDir, { recursive: true, force: true });
  } else {
    log(
      `✗ ${failed.length} check(s) failed, ${results.failures.length} target(s) failed; logs in ${runDir}`,
    );
    process.exitCode = 1;
  }
}

main().catch((error) => {
  log(error.stack || error.message);
  process.exit(1);
});
