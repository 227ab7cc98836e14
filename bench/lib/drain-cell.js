'use strict';
/**
 * One cell of the workers benchmark (`bench/workers.js`): a fresh database filled through the
 * package's ingress, W worker processes (`drain-worker.js`), the timed drain, its CPU, and the
 * checks that every event ran once.
 */
const { fork } = require('node:child_process');
const { closeSync, openSync, readFileSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { Pool } = require('pg');
const { signedDelivery } = require('./events');
const { processCpuSeconds, cpuByPidOf, machineCpuSeconds, postgresCpuDelta } = require('./cpu');
const { dropRedisPrefix } = require('./redis');
const { round } = require('./stats');
const { ROOT, adminQuery, sleep } = require('./targets');
const { express, openInbox, routerOptions } = require('./drain-app');

const log = (message) => process.stderr.write(`${message}\n`);

/** The clean-ups of the cells running now, for an interrupted run. */
const running = new Set();

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
    // NOTE: the engine behind the router, so the fill skips HTTP: the drain is what is timed.
    const { engineOf } = require(join(ROOT, 'dist', 'express', 'webhooks-router'));
    const engine = engineOf(router);
    try {
      const now = Math.floor(Date.now() / 1000);
      let next = 0;
      // NOTE: deliveries side by side, as a provider's retries arrive; ingress commits them in groups.
      const sender = async () => {
        while (next < count) {
          const { body, signature } = signedDelivery('wk', next, now);
          next += 1;
          const answer = await engine.ingest({
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
  const child = fork(join(__dirname, 'drain-worker.js'), [], {
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
  let cleaning;
  const cleanUp = () => {
    cleaning ??= (async () => {
      await Promise.allSettled(workers.map((worker) => worker.stop()));
      await pool.end().catch(() => undefined);
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error) =>
        log(`  could not drop database ${name}: ${error.message}`),
      );
      await dropRedisPrefix(redisUrl, prefix).catch((error) =>
        log(`  could not remove the Redis prefix ${prefix}: ${error.message}`),
      );
    })();
    return cleaning;
  };
  running.add(cleanUp);
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
    await cleanUp();
    result.workerWarnings = warningsIn(logFiles);
  }
  running.delete(cleanUp);
  result.loadAverageAfter = os.loadavg().map((value) => round(value, 2));
  return result;
}

/** Stops the workers of the cell running now and drops its database and Redis keys. */
function stopRunningCells() {
  return Promise.allSettled([...running].map((cleanUp) => cleanUp()));
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

module.exports = { runCell, stopRunningCells };
