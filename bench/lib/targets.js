'use strict';
/**
 * Starts each benchmark target as its own child process on a free port, with its own fresh
 * PostgreSQL database (created through `pg`, dropped afterwards) or SQLite file in a temp dir
 * (or none, for a target that stores nothing), and gives the runner what it needs to read back:
 * stored rows, the dispatcher's backlog, the bench handler's statistics and the process's
 * resident size.
 */
const { spawn } = require('node:child_process');
const { closeSync, openSync, readFileSync, mkdtempSync, rmSync } = require('node:fs');
const net = require('node:net');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { Client, Pool } = require('pg');
const { BENCH_STRIPE_SECRET, eventBody } = require('./events');
const { ensurePeerReady } = require('./peer');

const ROOT = join(__dirname, '..', '..');
const GOLEVELUP_PEER = join(ROOT, 'bench', 'peers', 'golevelup-stripe');

/**
 * The targets, in the order they run. `reference` is what ratios are taken against.
 * `dispatcher`: the target is the sample app, with the package's dispatcher and the `/bench/*`
 * routes the runner reads (the drain and slow-handler scenarios, handler lag). `path`: where
 * the target takes Stripe deliveries, when not `/webhooks/stripe`. `prepare(log)`: installs or
 * builds what the target runs, before it starts. `runsPackage`: the target runs this package's
 * code, so it has a twin in a run against another revision (`--vs`). A spec may also carry
 * `root`: the checkout its `script` is taken from and run in (default: this one).
 */
const TARGETS = {
  reference: {
    id: 'reference',
    label: '(a) node:http + pg, hand-written',
    database: 'postgres',
    script: 'bench/targets/reference-receiver.js',
    table: 'reference_events',
    dispatcher: false,
  },
  'pg-express': {
    id: 'pg-express',
    label: '(b) sample app, PostgreSQL, Express',
    database: 'postgres',
    platform: 'express',
    script: 'bench/dist/bench/apps/main.js',
    table: 'webhook_events',
    dispatcher: true,
    runsPackage: true,
  },
  'pg-fastify': {
    id: 'pg-fastify',
    label: '(c) sample app, PostgreSQL, Fastify',
    database: 'postgres',
    platform: 'fastify',
    script: 'bench/dist/bench/apps/main.js',
    table: 'webhook_events',
    dispatcher: true,
    runsPackage: true,
  },
  'sqlite-express': {
    id: 'sqlite-express',
    label: '(d) sample app, SQLite, Express',
    database: 'sqlite',
    platform: 'express',
    script: 'bench/dist/bench/apps/main.js',
    table: 'webhook_events',
    dispatcher: true,
    runsPackage: true,
  },
  peer: {
    id: 'peer',
    label: '(e) @golevelup/nestjs-stripe, in-request INSERT',
    database: 'postgres',
    script: 'bench/peers/golevelup-stripe/dist/main.js',
    table: 'stripe_events',
    path: '/stripe/webhook',
    dispatcher: false,
    prepare: (log) => ensurePeerReady(GOLEVELUP_PEER, log),
  },
};

const ADMIN_CANDIDATES = [
  'postgres://postgres@127.0.0.1:5432/postgres',
  'postgres://root@127.0.0.1:5432/postgres',
];

/**
 * The first PostgreSQL server URL (with rights to create databases) that answers:
 * `BENCH_DATABASE_URL` when set, else the local server as `postgres`, then as `root`.
 * @throws Error naming what was tried.
 */
async function postgresAdminUrl() {
  const candidates = process.env.BENCH_DATABASE_URL
    ? [process.env.BENCH_DATABASE_URL]
    : ADMIN_CANDIDATES;
  const failures = [];
  for (const url of candidates) {
    const client = new Client({ connectionString: url, connectionTimeoutMillis: 3000 });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return url;
    } catch (error) {
      failures.push(`${redactUrl(url)}: ${error.message}`);
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(
    `No PostgreSQL server to benchmark on (${failures.join('; ')}). Start one, or set ` +
      'BENCH_DATABASE_URL to a server URL whose user may CREATE DATABASE.',
  );
}

function redactUrl(url) {
  const parsed = new URL(url);
  if (parsed.password) parsed.password = '***';
  return parsed.toString();
}

function withDatabase(url, database) {
  const parsed = new URL(url);
  parsed.pathname = `/${database}`;
  return parsed.toString();
}

/** Runs `sql` on the admin database. */
async function adminQuery(adminUrl, sql) {
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    return await client.query(sql);
  } finally {
    await client.end();
  }
}

/** A port nothing listens on right now. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

function canConnect(port) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resident set size of a process in bytes, from /proc; null when it is gone. */
function rssBytes(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const match = /^VmRSS:\s+(\d+)\s+kB/m.exec(status);
    return match ? Number(match[1]) * 1024 : null;
  } catch {
    return null;
  }
}

function tail(file, lines = 30) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

/**
 * Takes the events the dispatcher has not reached off its queue (status `processed`, outcome
 * `skipped_by_benchmark`), so a scenario starts without the previous one's backlog. Events a
 * worker holds (`processing`) are left to finish. An inbox with work rows (`webhook_work`) has
 * those rows deleted first; an earlier revision's inbox keeps its queue on `webhook_events`.
 */
const SKIP_BACKLOG_SQL =
  "UPDATE webhook_events SET status = 'processed', processed_at = $1, next_attempt_at = NULL, " +
  "outcome = 'skipped_by_benchmark' WHERE status IN ('pending', 'retrying')";
const SKIP_WORK_SQL = "DELETE FROM webhook_work WHERE status IN ('pending', 'retrying')";
const SKIP_BACKLOG_WITH_WORK_SQL = `${SKIP_BACKLOG_SQL} AND NOT EXISTS (SELECT 1 FROM webhook_work w WHERE w.event_id = webhook_events.id)`;

/** Rows and backlog of a target's store, read from outside the process. */
class PostgresProbe {
  constructor(url, table) {
    this.pool = new Pool({ connectionString: url, max: 2 });
    this.table = table;
  }

  async countRows(prefix) {
    const { rows } = await this.pool.query(
      `SELECT count(*)::int AS n FROM ${this.table} WHERE substr(event_id, 1, $1) = $2`,
      [prefix.length, prefix],
    );
    return rows[0].n;
  }

  async eventIds(prefix) {
    const { rows } = await this.pool.query(
      `SELECT event_id FROM ${this.table} WHERE substr(event_id, 1, $1) = $2`,
      [prefix.length, prefix],
    );
    return rows.map((row) => row.event_id);
  }

  /** Events the dispatcher has still to run (or is running). */
  async backlog() {
    const { rows } = await this.pool.query(
      "SELECT count(*)::int AS n FROM webhook_events WHERE status IN ('pending', 'retrying', 'processing')",
    );
    return rows[0].n;
  }

  async totalRows() {
    const { rows } = await this.pool.query(`SELECT count(*)::int AS n FROM ${this.table}`);
    return rows[0].n;
  }

  /**
   * Starts a measure of the WAL the server writes (every database's: only the target under
   * measure writes meanwhile), after a CHECKPOINT so that each measure pays the same full-page
   * images. Resolves to a function that resolves to the bytes written since.
   */
  async walMeter() {
    await this.pool.query('CHECKPOINT');
    const { rows } = await this.pool.query('SELECT pg_current_wal_lsn()::text AS lsn');
    const from = rows[0].lsn;
    return async () => {
      const { rows: after } = await this.pool.query(
        'SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint AS bytes',
        [from],
      );
      return Number(after[0].bytes);
    };
  }

  /** Marks every event still waiting for the dispatcher processed; resolves to how many. */
  async skipBacklog() {
    const client = await this.pool.connect();
    try {
      const { rows } = await client.query("SELECT to_regclass('webhook_work') IS NOT NULL AS work");
      await client.query('BEGIN');
      if (rows[0].work) {
        await client.query(SKIP_WORK_SQL);
      }
      const sql = rows[0].work ? SKIP_BACKLOG_WITH_WORK_SQL : SKIP_BACKLOG_SQL;
      const { rowCount } = await client.query(sql, [new Date()]);
      await client.query('COMMIT');
      return rowCount;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /**
   * Adds `count` already-processed events (about 1 KB each, received over the last 30 days)
   * in batches, then analyzes the table and checkpoints, so the inbox looks like one that has
   * run for a while and the load that follows does not pay for the fill.
   */
  async prefill(count, onProgress) {
    const template = eventBody('evt_prefill_TEMPLATE', 1_700_000_000);
    const batch = 100_000;
    for (let from = 0; from < count; from += batch) {
      const to = Math.min(count, from + batch);
      const body =
        "replace($1::text, 'evt_prefill_TEMPLATE', 'evt_prefill_' || lpad(to_hex(g), 8, '0'))";
      const sql =
        this.table !== 'webhook_events'
          ? `INSERT INTO ${this.table} (event_id, type, body, received_at)
             SELECT 'evt_prefill_' || lpad(to_hex(g), 8, '0'), 'payment_intent.payment_failed', ${body},
                    now() - (g % 2592000) * interval '1 second'
             FROM generate_series($2::int, $3::int - 1) AS g`
          : `INSERT INTO webhook_events (id, endpoint, provider, event_id, type, native_type, payment_ref,
               merchant_ref, amount, currency, payment_status, occurred_at, received_at, raw_body,
               body_sha256, headers, status, attempts, next_attempt_at, processed_at, delivery_count)
             SELECT gen_random_uuid()::text, 'stripe', 'stripe', 'evt_prefill_' || lpad(to_hex(g), 8, '0'),
                    'payment.failed', 'payment_intent.payment_failed', 'pi_prefill_' || g, 'order_prefill_' || g,
                    2000, 'USD', 'requires_payment_method',
                    now() - (g % 2592000) * interval '1 second', now() - (g % 2592000) * interval '1 second',
                    ${body}, md5(g::text) || md5((g + 1)::text), '{"content-type":"application/json"}',
                    'processed', 1, NULL, now() - (g % 2592000) * interval '1 second', 1
             FROM generate_series($2::int, $3::int - 1) AS g`;
      await this.pool.query(sql, [template, from, to]);
      onProgress?.(to);
    }
    await this.pool.query(`VACUUM ANALYZE ${this.table}`);
    await this.pool.query('CHECKPOINT').catch(() => undefined);
  }

  async close() {
    await this.pool.end();
  }
}

class SqliteProbe {
  constructor(file) {
    this.file = file;
    this.db = undefined;
  }

  open() {
    if (!this.db) {
      const Database = require('better-sqlite3');
      this.db = new Database(this.file, { fileMustExist: true });
      this.db.pragma('busy_timeout = 10000');
    }
    return this.db;
  }

  async countRows(prefix) {
    return this.open()
      .prepare('SELECT count(*) AS n FROM webhook_events WHERE substr(event_id, 1, ?) = ?')
      .get(prefix.length, prefix).n;
  }

  async eventIds(prefix) {
    return this.open()
      .prepare('SELECT event_id FROM webhook_events WHERE substr(event_id, 1, ?) = ?')
      .pluck()
      .all(prefix.length, prefix);
  }

  async backlog() {
    return this.open()
      .prepare(
        "SELECT count(*) AS n FROM webhook_events WHERE status IN ('pending', 'retrying', 'processing')",
      )
      .get().n;
  }

  async totalRows() {
    return this.open().prepare('SELECT count(*) AS n FROM webhook_events').get().n;
  }

  async skipBacklog() {
    const now = new Date().toISOString().replace('T', ' ').replace('Z', '');
    const db = this.open();
    const work = db
      .prepare(
        "SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = 'webhook_work'",
      )
      .get().n;
    return db.transaction(() => {
      if (work) {
        db.prepare(SKIP_WORK_SQL).run();
      }
      const sql = work ? SKIP_BACKLOG_WITH_WORK_SQL : SKIP_BACKLOG_SQL;
      return db.prepare(sql.replace('$1', '?')).run(now).changes;
    })();
  }

  /** As PostgresProbe.prefill, in transactions of 50,000 rows. */
  async prefill(count, onProgress) {
    const db = this.open();
    const template = eventBody('evt_prefill_TEMPLATE', 1_700_000_000);
    const insert = db.prepare(
      `INSERT INTO webhook_events (id, endpoint, provider, event_id, type, native_type, payment_ref,
         merchant_ref, amount, currency, payment_status, occurred_at, received_at, raw_body,
         body_sha256, headers, status, attempts, next_attempt_at, processed_at, delivery_count)
       VALUES (?, 'stripe', 'stripe', ?, 'payment.failed', 'payment_intent.payment_failed', ?, ?,
         2000, 'USD', 'requires_payment_method', ?, ?, ?, ?, '{"content-type":"application/json"}',
         'processed', 1, NULL, ?, 1)`,
    );
    const now = Date.now();
    const batch = 50_000;
    for (let from = 0; from < count; from += batch) {
      const to = Math.min(count, from + batch);
      db.transaction(() => {
        for (let g = from; g < to; g += 1) {
          const id = `evt_prefill_${g.toString(16).padStart(8, '0')}`;
          const at = new Date(now - (g % 2_592_000) * 1000)
            .toISOString()
            .replace('T', ' ')
            .replace('Z', '');
          insert.run(
            randomBytes(16).toString('hex'),
            id,
            `pi_prefill_${g}`,
            `order_prefill_${g}`,
            at,
            at,
            template.replace('evt_prefill_TEMPLATE', id),
            randomBytes(32).toString('hex'),
            at,
          );
        }
      })();
      onProgress?.(to);
      await sleep(0);
    }
    db.exec('ANALYZE webhook_events');
    db.pragma('wal_checkpoint(TRUNCATE)');
  }

  async close() {
    this.db?.close();
  }
}

/**
 * A running target. `stop()` ends the process and removes its database.
 */
/** Targets started and not yet stopped, so an interrupted run can stop them. */
const running = new Set();

class RunningTarget {
  constructor(spec, fields) {
    running.add(this);
    this.spec = spec;
    Object.assign(this, fields);
    this.rssSamples = [];
    this.sampler = setInterval(() => this.sampleRss(), 1000);
    this.sampler.unref();
  }

  sampleRss() {
    const rss = rssBytes(this.child.pid);
    if (rss !== null) this.rssSamples.push({ at: Date.now(), rss });
    return rss;
  }

  /** GET/POST a bench-only route of the Nest targets; resolves to the parsed JSON or null. */
  async bench(method, path) {
    const url = `${this.url}/bench/${path}`;
    // NOTE: a busy app can drop a kept-alive socket just as it is reused (ECONNRESET); a read is
    // safe to send again.
    const response = await fetch(url, { method }).catch((error) =>
      method === 'GET' ? fetch(url, { method }) : Promise.reject(error),
    );
    if (!response.ok) {
      throw new Error(
        `${method} /bench/${path} answered ${response.status}: ${await response.text()}`,
      );
    }
    const text = await response.text();
    return text ? JSON.parse(text) : null;
  }

  /** Whether the process has exited. */
  get exited() {
    return this.child.exitCode !== null || this.child.signalCode !== null;
  }

  async stop() {
    running.delete(this);
    clearInterval(this.sampler);
    await this.probe?.close().catch(() => undefined);
    if (!this.exited) {
      const exited = new Promise((resolve) => this.child.once('exit', resolve));
      this.child.kill('SIGTERM');
      const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
      await exited;
      clearTimeout(timer);
    }
    await this.cleanup();
  }
}

/**
 * Starts `spec` on a free port with a fresh database and waits until it accepts connections.
 * @param {object} spec one of TARGETS, or a target of `floor.js` (`database: 'none'` has no probe);
 *   its `script` runs from `spec.root` when set (another checkout), with that as the cwd
 * @param {{ adminUrl?: string, runDir: string, pinCpu?: string, env?: Record<string, string>, nodeArgs?: string[] }} options
 * @throws Error with the end of the target's log when it exits or does not listen within 90 s.
 */
async function startTarget(spec, options) {
  const port = await freePort();
  const env = {
    ...process.env,
    PORT: String(port),
    STRIPE_WEBHOOK_SECRET: BENCH_STRIPE_SECRET,
    NODE_ENV: 'production',
    ...options.env,
  };
  delete env.DATABASE_URL;
  delete env.SQLITE_PATH;
  let probe;
  let cleanup;
  let database;
  if (spec.database === 'postgres') {
    const name = `bench_${spec.id.replace(/[^a-z0-9]/gi, '_')}_${randomBytes(4).toString('hex')}`;
    await adminQuery(options.adminUrl, `CREATE DATABASE ${name}`);
    const url = withDatabase(options.adminUrl, name);
    env.DATABASE_URL = url;
    database = { kind: 'postgres', name };
    probe = new PostgresProbe(url, spec.table);
    cleanup = () =>
      adminQuery(options.adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch((error) =>
        console.error(`  could not drop database ${name}: ${error.message}`),
      );
  } else if (spec.database === 'none') {
    database = { kind: 'none' };
    probe = null;
    cleanup = async () => undefined;
  } else {
    const dir = mkdtempSync(join(tmpdir(), 'bench-sqlite-'));
    const file = join(dir, 'shop.sqlite');
    env.SQLITE_PATH = file;
    database = { kind: 'sqlite', file };
    probe = new SqliteProbe(file);
    cleanup = async () => rmSync(dir, { recursive: true, force: true });
  }
  if (spec.platform) env.HTTP_PLATFORM = spec.platform;
  const logFile = join(options.runDir, `${spec.id}-${Date.now()}.log`);
  // NOTE: the target writes its log straight to a file; relaying it through this process would
  // cost CPU on the same cores the target runs on.
  const log = openSync(logFile, 'a');
  const command = options.pinCpu ? 'taskset' : process.execPath;
  const root = spec.root ?? ROOT;
  const nodeArgs = [...(options.nodeArgs ?? []), join(root, spec.script)];
  const args = options.pinCpu ? ['-c', options.pinCpu, process.execPath, ...nodeArgs] : nodeArgs;
  const child = spawn(command, args, { cwd: root, env, stdio: ['ignore', log, log] });
  closeSync(log);
  const deadline = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      await cleanup();
      throw new Error(`${spec.label} exited during startup (log ${logFile}):\n${tail(logFile)}`);
    }
    if (await canConnect(port)) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      await cleanup();
      throw new Error(
        `${spec.label} did not listen within 90 s (log ${logFile}):\n${tail(logFile)}`,
      );
    }
    await sleep(100);
  }
  return new RunningTarget(spec, {
    url: `http://127.0.0.1:${port}`,
    port,
    child,
    probe,
    database,
    logFile,
    cleanup,
  });
}

/** Stops every target still running (their processes, databases and files). */
function stopAll() {
  return Promise.allSettled([...running].map((target) => target.stop()));
}

module.exports = {
  stopAll,
  ROOT,
  TARGETS,
  postgresAdminUrl,
  adminQuery,
  withDatabase,
  startTarget,
  rssBytes,
  sleep,
};
