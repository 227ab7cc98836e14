'use strict';
/**
 * How long an upgrade of the schema takes on a large inbox:
 * `npm run bench:migration [-- ROWS] [--migration copies|history|tenants|work|recovery]`, ROWS
 * default 1,000,000.
 *
 * - `copies`: the upgrade from 1.0, `AddEventCopies1765100000000` (the nullable key an event's
 *   copies share at paired endpoints, and its partial unique index), on an inbox of 1.0 whose
 *   every hundred events hold two event notifications: one naming a snapshot event stored before
 *   it and one of a v2 resource. Afterwards it checks that every event, work row and ledger row
 *   is still there and that no event has a key (the migration fills none).
 * - `history` (the default): the upgrade from 0.3, `AddEventHistory1764900000000` (the events'
 *   history and the pauses of dispatch), on an inbox of 0.3. Afterwards it checks that every
 *   event, work row and ledger row is still there and every dead or retrying event has its one
 *   history row.
 * - `recovery`: the upgrade from 1.0, `AddRecoveryJobs1765000000000` (jobs of three kinds, a
 *   job's page cursor, the history's new kinds), on an inbox of 1.0 whose history has one
 *   attempt row per event (SQLite copies the history table, so its size is what it times) and
 *   three replays (running with a lease and a cursor, done, canceled). Afterwards it checks
 *   that every event, work row, ledger row, history row and replay is still there and every
 *   replay is of kind `replay`.
 * - `tenants`: the upgrade from 0.2, `AddEventTenants1764800000000` (the tenant
 *   column and the dedup key on endpoint, tenant and event id), on an inbox of 0.2: events,
 *   their work rows and the ledger as 0.2 keeps them. Afterwards it checks that every event,
 *   work row and ledger row is still there, the running events still leased, and every event's
 *   tenant is `''`.
 * - `work`: the upgrade from 0.1, `SplitEventWork1764700000000` (the work rows), on an inbox of
 *   0.1. Afterwards it checks that every event and ledger row is still there and every waiting,
 *   running, retrying or dead event has its work row.
 *
 * For PostgreSQL (the same server as `npm run bench`, or BENCH_DATABASE_URL) and for a SQLite
 * file, it makes the tables with the package's own migrations up to the one timed, fills them
 * with ROWS events of about 1 KB in every status (in every hundred: 90 processed with two ledger
 * rows, 4 ignored, 2 pending, 1 processing with a lease, 2 retrying with a ledger row, 1 dead),
 * runs the migration and times it. Needs a built `dist/`.
 */
const { mkdtempSync, rmSync } = require('node:fs');
const { tmpdir } = require('node:os');
const { join } = require('node:path');
const { randomBytes } = require('node:crypto');
const { ROOT, postgresAdminUrl, adminQuery } = require('./lib/targets');

/** Per hundred events: how many of each status (the rest of the hundred is processed). */
const SHARE = { ignored: 4, pending: 2, processing: 1, retrying: 2, dead: 1 };

/** `CASE` over `i % 100` giving each status its share. */
function statusCase(i) {
  let from = 0;
  const arms = Object.entries(SHARE).map(([status, share]) => {
    from += share;
    return `WHEN ${i} % 100 < ${from} THEN '${status}'`;
  });
  return `CASE ${arms.join(' ')} ELSE 'processed' END`;
}

const BODY = JSON.stringify({
  object: 'event',
  type: 'payment_intent.succeeded',
  data: {
    object: { object: 'payment_intent', amount: 1999, currency: 'eur', padding: 'x'.repeat(760) },
  },
});

/** The fill, as SQL over a series `i` of the dialect (PostgreSQL's generate_series, SQLite's CTE). */
function fillSql(kind, rows, { leases, body = `'${BODY}'` }) {
  const pg = kind === 'postgres';
  const series = pg
    ? `FROM generate_series(0, ${rows - 1}) AS s(i)`
    : `FROM (WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i < ${rows - 1}) SELECT i FROM s)`;
  const uuid = pg
    ? 'gen_random_uuid()::text'
    : "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))";
  const at = pg
    ? `now() - interval '30 days' + (i || ' seconds')::interval`
    : `strftime('%Y-%m-%d %H:%M:%f', 'now', '-30 days', '+' || i || ' seconds')`;
  const status = statusCase('i');
  // NOTE: 0.1 keeps the lease on the event; 0.2 on its work row (see workSql()).
  const lease = leases
    ? { columns: ' locked_by, locked_until,', values: ` ${leaseOf(kind, status)},` }
    : { columns: '', values: '' };
  return `
    INSERT INTO webhook_events (id, endpoint, provider, event_id, type, native_type, payment_ref,
      merchant_ref, amount, currency, payment_status, occurred_at, received_at, raw_body,
      body_sha256, headers, status, attempts, next_attempt_at,${lease.columns}
      last_error, processed_at, delivery_count, outcome)
    SELECT ${uuid}, 'stripe', 'stripe', 'evt_upgrade_' || i, 'payment.succeeded',
      'payment_intent.succeeded', 'pi_upgrade_' || i, 'order-' || i, 1999, 'EUR', 'succeeded',
      ${at}, ${at}, ${body}, '${'e'.repeat(64)}',
      '{"content-type":"application/json","user-agent":"Stripe/1.0"}', ${status},
      CASE ${status} WHEN 'pending' THEN 0 WHEN 'retrying' THEN 2 WHEN 'dead' THEN 5 WHEN 'ignored' THEN 0 ELSE 1 END,
      CASE WHEN ${status} IN ('pending', 'processing', 'retrying') THEN ${at} END,${lease.values}
      CASE WHEN ${status} IN ('retrying', 'dead') THEN 'card network down' END,
      CASE WHEN ${status} IN ('processed', 'ignored') THEN ${at} END,
      1, CASE WHEN ${status} = 'processed' THEN 'applied' END
    ${series}`;
}

/**
 * The bodies of 1.0's Stripe events, as SQL over `i`: in every hundred, 98 snapshot events
 * with their own ids, a notification naming one of them (stored before it), and a notification
 * of a v2 resource, which names none.
 */
function copiesBody() {
  const thin = (fields) =>
    `'{"id":"evt_thin_' || i || '","object":"v2.core.event","type":"v1.payment_intent.succeeded"${fields}}'`;
  return (
    `CASE WHEN i % 100 = 99 THEN ${thin(`,"snapshot_event":"evt_upgrade_' || (i - 2) || '"`)} ` +
    `WHEN i % 100 = 98 THEN ${thin('')} ` +
    `ELSE '{"id":"evt_upgrade_' || i || '",${BODY.slice(1)}' END`
  );
}

/** A running event's lease: worker-1's, an hour from now. */
function leaseOf(kind, status) {
  const later =
    kind === 'postgres'
      ? `now() + interval '1 hour'`
      : `strftime('%Y-%m-%d %H:%M:%f', 'now', '+1 hour')`;
  return (
    `CASE WHEN ${status} = 'processing' THEN 'worker-1' END, ` +
    `CASE WHEN ${status} = 'processing' THEN ${later} END`
  );
}

/**
 * 0.2's work rows for events filled with their live status: one per event still to run,
 * running, retrying or dead, a running one leased; the running event's own row then says
 * `pending`, as 0.2 keeps it.
 */
function workSql(kind) {
  return [
    'INSERT INTO webhook_work (event_id, status, attempts, next_attempt_at, locked_by, locked_until) ' +
      `SELECT id, status, attempts, next_attempt_at, ${leaseOf(kind, 'status')} FROM webhook_events ` +
      "WHERE status IN ('pending', 'processing', 'retrying', 'dead')",
    "UPDATE webhook_events SET status = 'pending' WHERE status = 'processing'",
  ];
}

/** Two ledger rows for each processed event, one for each retrying one; 0.1's rows had an id. */
function ledgerSql(kind, { ids }) {
  const uuid =
    kind === 'postgres'
      ? 'gen_random_uuid()::text'
      : "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))";
  const id = ids ? `${uuid}, ` : '';
  const one = (key, status, outcome) =>
    `SELECT ${id}id, '${key}', 1, received_at, ${outcome} FROM webhook_events WHERE status = '${status}'`;
  return (
    `INSERT INTO webhook_handler_runs (${ids ? 'id, ' : ''}event_id, handler_key, attempt, finished_at, outcome) ` +
    `${one('Orders.onPaid', 'processed', "'applied'")} UNION ALL ${one('Mail.onPaid', 'processed', "'applied'")} ` +
    `UNION ALL ${one('Orders.onPaid', 'retrying', 'NULL')}`
  );
}

async function count(source, sql) {
  const [row] = await source.query(sql);
  return Number(Object.values(row)[0]);
}

/** The running events still leased to worker-1, on their work rows. */
const LEASED =
  "SELECT count(*) FROM webhook_work WHERE status = 'processing' AND locked_by = 'worker-1'";

/** The counts of an inbox whose events have work rows (0.2 and later). */
const SPLIT_INBOX = {
  events: 'SELECT count(*) FROM webhook_events',
  ledger: 'SELECT count(*) FROM webhook_handler_runs',
  work: 'SELECT count(*) FROM webhook_work',
  leased: LEASED,
};

/** One attempt row in the history of each event, as a failed first attempt would leave it. */
function historySql(kind) {
  const uuid =
    kind === 'postgres'
      ? 'gen_random_uuid()::text'
      : "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))";
  return (
    'INSERT INTO webhook_history (id, event_id, kind, at, finished_at, attempt, handler_key, ' +
    'outcome, error_class, error, fingerprint, worker) ' +
    `SELECT ${uuid}, id, 'attempt', received_at, received_at, 1, 'Orders.onPaid', 'retrying', ` +
    "'CardNetworkError', 'card network down', '" +
    'f'.repeat(64) +
    "', 'worker-1' FROM webhook_events"
  );
}

/** 1.0's replays in the background: one running (leased, half way), one done, one canceled. */
function replaysSql(kind) {
  const now = kind === 'postgres' ? 'now()' : "strftime('%Y-%m-%d %H:%M:%f', 'now')";
  const later =
    kind === 'postgres'
      ? `now() + interval '1 hour'`
      : `strftime('%Y-%m-%d %H:%M:%f', 'now', '+1 hour')`;
  const job = (n, status, lease) =>
    `('00000000-0000-4000-8000-00000000000${n}', '{"status":["dead"]}', '${status}', 1000, 500, ` +
    `100, 'ops', ${now}, ${now}, ${status === 'running' ? 'NULL' : now}, ${now}, ` +
    `'00000000-0000-4000-8000-000000000000', ${lease ? `'worker-1', ${later}` : 'NULL, NULL'})`;
  return (
    'INSERT INTO webhook_replays (id, filter, status, total, replayed, rate_per_second, actor, ' +
    'created_at, updated_at, finished_at, cursor_at, cursor_id, locked_by, locked_until) VALUES ' +
    [job(1, 'running', true), job(2, 'done', false), job(3, 'canceled', false)].join(', ')
  );
}

/** Dead and retrying events, by their work rows. */
const FAILED = "SELECT count(*) FROM webhook_work WHERE status IN ('dead', 'retrying')";

/**
 * The upgrades the bench times: the migration, how the inbox before it is filled, and the
 * counts that must be the same after it (`before`: read before the migration; `expected`: what
 * `after` must equal).
 */
const UPGRADES = {
  copies: {
    migration: 'AddEventCopies1765100000000',
    from: '1.0',
    fill: (kind, rows) => [
      fillSql(kind, rows, { leases: false, body: copiesBody() }),
      ledgerSql(kind, { ids: false }),
      ...workSql(kind),
    ],
    before: SPLIT_INBOX,
    after: {
      ...SPLIT_INBOX,
      keyed: 'SELECT count(*) FROM webhook_events WHERE same_event IS NOT NULL',
    },
    expected: (before) => ({ ...before, keyed: 0 }),
    summary: (after) => `${n(after.keyed)} with a key`,
  },
  recovery: {
    migration: 'AddRecoveryJobs1765000000000',
    from: '1.0',
    fill: (kind, rows) => [
      fillSql(kind, rows, { leases: false }),
      ledgerSql(kind, { ids: false }),
      ...workSql(kind),
      historySql(kind),
      replaysSql(kind),
    ],
    before: {
      ...SPLIT_INBOX,
      history: "SELECT count(*) FROM webhook_history WHERE kind = 'attempt'",
      replays: 'SELECT count(*) FROM webhook_replays',
    },
    after: {
      ...SPLIT_INBOX,
      history: "SELECT count(*) FROM webhook_history WHERE kind = 'attempt'",
      replays: "SELECT count(*) FROM webhook_replays WHERE kind = 'replay'",
    },
    expected: (before) => before,
    summary: (after) =>
      `${n(after.history)} history rows, ${n(after.replays)} replays of kind 'replay'`,
  },
  history: {
    migration: 'AddEventHistory1764900000000',
    from: '0.3',
    fill: (kind, rows) => [
      fillSql(kind, rows, { leases: false }),
      ledgerSql(kind, { ids: false }),
      ...workSql(kind),
    ],
    before: { ...SPLIT_INBOX, failed: FAILED },
    after: {
      ...SPLIT_INBOX,
      failed: FAILED,
      history: "SELECT count(*) FROM webhook_history WHERE kind = 'attempt'",
    },
    expected: (before) => ({ ...before, history: before.failed }),
    summary: (after) => `${n(after.history)} failures in the history`,
  },
  tenants: {
    migration: 'AddEventTenants1764800000000',
    from: '0.2',
    fill: (kind, rows) => [
      fillSql(kind, rows, { leases: false }),
      ledgerSql(kind, { ids: false }),
      ...workSql(kind),
    ],
    before: SPLIT_INBOX,
    after: { ...SPLIT_INBOX, tenantless: "SELECT count(*) FROM webhook_events WHERE tenant = ''" },
    expected: (before) => ({ ...before, tenantless: before.events }),
    summary: (after) => `${n(after.tenantless)} of tenant ''`,
  },
  work: {
    migration: 'SplitEventWork1764700000000',
    from: '0.1',
    fill: (kind, rows) => [fillSql(kind, rows, { leases: true }), ledgerSql(kind, { ids: true })],
    before: {
      events: 'SELECT count(*) FROM webhook_events',
      ledger: 'SELECT count(*) FROM webhook_handler_runs',
      work: "SELECT count(*) FROM webhook_events WHERE status IN ('pending', 'processing', 'retrying', 'dead')",
      leased: "SELECT count(*) FROM webhook_events WHERE status = 'processing'",
    },
    after: {
      events: 'SELECT count(*) FROM webhook_events',
      ledger: 'SELECT count(*) FROM webhook_handler_runs',
      work: 'SELECT count(*) FROM webhook_work',
      leased: LEASED,
    },
    expected: (before) => before,
  },
};

async function counts(source, queries) {
  const found = {};
  for (const [name, sql] of Object.entries(queries)) found[name] = await count(source, sql);
  return found;
}

const n = (value) => value.toLocaleString('en');

async function measure(upgrade, kind, options, rows) {
  const { DataSource } = require(join(ROOT, 'node_modules', 'typeorm'));
  const { webhooksMigrations } = require(join(ROOT, 'dist', 'store', 'schema', 'migrations'));
  const timed = webhooksMigrations.findIndex((m) => m.name === upgrade.migration);
  const old = await new DataSource({
    ...options,
    migrations: webhooksMigrations.slice(0, timed),
    migrationsRun: true,
  }).initialize();
  const filled = Date.now();
  for (const sql of upgrade.fill(kind, rows)) await old.query(sql);
  if (kind === 'postgres') await old.query('VACUUM ANALYZE');
  const fillMs = Date.now() - filled;
  const before = await counts(old, upgrade.before);
  await old.destroy();

  const source = await new DataSource({
    ...options,
    migrations: webhooksMigrations.slice(0, timed + 1),
  }).initialize();
  const started = process.hrtime.bigint();
  const ran = await source.runMigrations({ transaction: 'all' });
  const migrationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const after = await counts(source, upgrade.after);
  await source.destroy();
  const expected = upgrade.expected(before);
  const kept =
    ran.length === 1 && Object.entries(expected).every(([name, value]) => after[name] === value);
  const summary = upgrade.summary ? `, ${upgrade.summary(after)}` : '';
  console.log(
    `${kind.padEnd(8)} ${upgrade.migration} from ${upgrade.from}: ${n(before.events)} events, ${n(before.ledger)} ledger rows ` +
      `(filled in ${(fillMs / 1000).toFixed(1)} s): migration ${(migrationMs / 1000).toFixed(2)} s; ` +
      `after it ${n(after.events)} events, ${n(after.ledger)} ledger rows, ${n(after.work)} work rows ` +
      `(${n(after.leased)} still leased)${summary} — ${kept ? 'every row kept' : `ROWS DIFFER: ${JSON.stringify({ expected, after })}`}`,
  );
  return kept;
}

/** ROWS and `--migration NAME` from the command line. */
function parseArgs(argv) {
  let rows = 1_000_000;
  let name = 'history';
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--migration') {
      name = argv[(i += 1)];
    } else {
      rows = Number(argv[i]);
      if (!Number.isInteger(rows) || rows < 100)
        throw new Error(`ROWS must be a whole number of at least 100, not "${argv[i]}"`);
    }
  }
  if (!UPGRADES[name])
    throw new Error(`--migration takes ${Object.keys(UPGRADES).join(', ')}, not "${name}"`);
  return { rows, upgrade: UPGRADES[name] };
}

async function main() {
  const { rows, upgrade } = parseArgs(process.argv.slice(2));
  const adminUrl = await postgresAdminUrl();
  const name = `bench_upgrade_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'pw-upgrade-'));
  let ok = true;
  try {
    ok =
      (await measure(upgrade, 'postgres', { type: 'postgres', url: url.toString() }, rows)) && ok;
    ok =
      (await measure(
        upgrade,
        'sqlite',
        {
          type: 'better-sqlite3',
          database: join(dir, 'inbox.sqlite'),
          prepareDatabase: (db) => db.pragma('journal_mode = WAL'),
        },
        rows,
      )) && ok;
  } finally {
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    rmSync(dir, { recursive: true, force: true });
  }
  process.exitCode = ok ? 0 : 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 2;
});
