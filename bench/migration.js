'use strict';
/**
 * How long the upgrade to the work rows (`SplitEventWork1764700000000`) takes on a large inbox:
 * `npm run bench:migration [-- ROWS]`, default 1,000,000. For PostgreSQL (the same server as
 * `npm run bench`, or BENCH_DATABASE_URL) and for a SQLite file, it makes the tables of 0.1 with
 * the package's own migrations, fills them with ROWS events of about 1 KB in every status (in
 * every hundred: 90 processed with two ledger rows, 4 ignored, 2 pending, 1 processing with a
 * lease, 2 retrying with a ledger row, 1 dead), runs the migration, times it, and checks that
 * every event and ledger row is still there and every waiting, running, retrying or dead event
 * has its work row. Needs a built `dist/`.
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
function fillSql(kind, rows) {
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
  const later = pg
    ? `now() + interval '1 hour'`
    : `strftime('%Y-%m-%d %H:%M:%f', 'now', '+1 hour')`;
  const status = statusCase('i');
  return `
    INSERT INTO webhook_events (id, endpoint, provider, event_id, type, native_type, payment_ref,
      merchant_ref, amount, currency, payment_status, occurred_at, received_at, raw_body,
      body_sha256, headers, status, attempts, next_attempt_at, locked_by, locked_until,
      last_error, processed_at, delivery_count, outcome)
    SELECT ${uuid}, 'stripe', 'stripe', 'evt_upgrade_' || i, 'payment.succeeded',
      'payment_intent.succeeded', 'pi_upgrade_' || i, 'order-' || i, 1999, 'EUR', 'succeeded',
      ${at}, ${at}, '${BODY}', '${'e'.repeat(64)}',
      '{"content-type":"application/json","user-agent":"Stripe/1.0"}', ${status},
      CASE ${status} WHEN 'pending' THEN 0 WHEN 'retrying' THEN 2 WHEN 'dead' THEN 5 WHEN 'ignored' THEN 0 ELSE 1 END,
      CASE WHEN ${status} IN ('pending', 'processing', 'retrying') THEN ${at} END,
      CASE WHEN ${status} = 'processing' THEN 'worker-1' END,
      CASE WHEN ${status} = 'processing' THEN ${later} END,
      CASE WHEN ${status} IN ('retrying', 'dead') THEN 'card network down' END,
      CASE WHEN ${status} IN ('processed', 'ignored') THEN ${at} END,
      1, CASE WHEN ${status} = 'processed' THEN 'applied' END
    ${series}`;
}

function ledgerSql(kind) {
  const uuid =
    kind === 'postgres'
      ? 'gen_random_uuid()::text'
      : "lower(hex(randomblob(4)) || '-' || hex(randomblob(2)) || '-4' || substr(hex(randomblob(2)), 2) || '-8' || substr(hex(randomblob(2)), 2) || '-' || hex(randomblob(6)))";
  const one = (key) =>
    `SELECT ${uuid}, id, '${key}', 1, received_at, 'applied' FROM webhook_events WHERE status = 'processed'`;
  return (
    'INSERT INTO webhook_handler_runs (id, event_id, handler_key, attempt, finished_at, outcome) ' +
    `${one('Orders.onPaid')} UNION ALL ${one('Mail.onPaid')} UNION ALL ` +
    `SELECT ${uuid}, id, 'Orders.onPaid', 1, received_at, NULL FROM webhook_events WHERE status = 'retrying'`
  );
}

async function count(source, sql) {
  const [row] = await source.query(sql);
  return Number(Object.values(row)[0]);
}

async function measure(kind, options, rows) {
  const { DataSource } = require(join(ROOT, 'node_modules', 'typeorm'));
  const { webhooksMigrations } = require(join(ROOT, 'dist', 'store', 'migrations'));
  const before = webhooksMigrations.filter((m) => m.name < 'SplitEventWork1764700000000');
  const old = await new DataSource({
    ...options,
    migrations: before,
    migrationsRun: true,
  }).initialize();
  const filled = Date.now();
  await old.query(fillSql(kind, rows));
  await old.query(ledgerSql(kind));
  if (kind === 'postgres') await old.query('VACUUM ANALYZE');
  const fillMs = Date.now() - filled;
  const events = await count(old, 'SELECT count(*) FROM webhook_events');
  const ledger = await count(old, 'SELECT count(*) FROM webhook_handler_runs');
  const waiting = await count(
    old,
    "SELECT count(*) FROM webhook_events WHERE status IN ('pending', 'processing', 'retrying', 'dead')",
  );
  await old.destroy();

  const source = await new DataSource({ ...options, migrations: webhooksMigrations }).initialize();
  const started = process.hrtime.bigint();
  await source.runMigrations({ transaction: 'all' });
  const migrationMs = Number(process.hrtime.bigint() - started) / 1e6;
  const after = {
    events: await count(source, 'SELECT count(*) FROM webhook_events'),
    ledger: await count(source, 'SELECT count(*) FROM webhook_handler_runs'),
    work: await count(source, 'SELECT count(*) FROM webhook_work'),
    running: await count(
      source,
      "SELECT count(*) FROM webhook_work WHERE status = 'processing' AND locked_by = 'worker-1'",
    ),
  };
  await source.destroy();
  const kept = after.events === events && after.ledger === ledger && after.work === waiting;
  console.log(
    `${kind.padEnd(8)} ${rows.toLocaleString('en')} events, ${ledger.toLocaleString('en')} ledger rows (filled in ${(fillMs / 1000).toFixed(1)} s): ` +
      `migration ${(migrationMs / 1000).toFixed(2)} s; after it ${after.events.toLocaleString('en')} events, ` +
      `${after.ledger.toLocaleString('en')} ledger rows, ${after.work.toLocaleString('en')} work rows ` +
      `(${after.running.toLocaleString('en')} still leased) — ${kept ? 'every row kept' : 'ROWS DIFFER'}`,
  );
  return kept;
}

async function main() {
  const rows = Number(process.argv[2] ?? 1_000_000);
  if (!Number.isInteger(rows) || rows < 100)
    throw new Error(`ROWS must be a whole number of at least 100, not "${process.argv[2]}"`);
  const adminUrl = await postgresAdminUrl();
  const name = `bench_upgrade_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'pw-upgrade-'));
  let ok = true;
  try {
    ok = (await measure('postgres', { type: 'postgres', url: url.toString() }, rows)) && ok;
    ok =
      (await measure(
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
