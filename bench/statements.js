'use strict';
/**
 * What one handled event costs PostgreSQL: `npm run bench:statements`.
 *
 * Starts the sample app on a fresh PostgreSQL database (`pg-express` of `npm run bench`, the
 * sample's own dispatcher settings), sends it N unique signed Stripe deliveries, a few at a
 * time, waits until the dispatcher has settled every one, and reads from PostgreSQL's statistics
 * what the run did to each table: rows inserted, updated (of which HOT, which write no index
 * entry), deleted, and the index entries those wrote (an insert or a non-HOT update writes one
 * per index of its table), and the transactions committed; each divided by N. The startup's own
 * writes are read before the deliveries and taken off.
 *
 * Options: --events N (default 2,000), --concurrency C (default 8), --no-build.
 */
const { positiveWhole } = require('./lib/args');
const { ensureBuilt } = require('./lib/build');
const { signedDelivery, STRIPE_PATH } = require('./lib/events');
const {
  TARGETS,
  postgresAdminUrl,
  startTarget,
  stopAll,
  sleep,
  withDatabase,
} = require('./lib/targets');
const { mkdtempSync, rmSync } = require('node:fs');
const os = require('node:os');
const { join } = require('node:path');
const { Client } = require('pg');

/** How long the statistics may take to show what the app's idle connections did. */
const STATS_FLUSH_MS = 11_000;

function parseArgs(argv) {
  const options = { events: 2_000, concurrency: 8, build: true };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const number = () => positiveWhole(arg, argv[(i += 1)]);
    if (arg === '--events') options.events = number();
    else if (arg === '--concurrency') options.concurrency = number();
    else if (arg === '--no-build') options.build = false;
    else
      throw new Error(`unknown option ${arg} (see the comment at the top of bench/statements.js)`);
  }
  return options;
}

/** Each table's row operations and index count, and the database's commits, as counted so far. */
async function snapshot(client) {
  // NOTE: a backend's counts reach the shared statistics at the end of a transaction at most once
  // a second, and an idle one's within 10 s (PostgreSQL 15): the caller waits that long first.
  const tables = await client.query(
    'SELECT relname AS name, n_tup_ins::int AS ins, n_tup_upd::int AS upd, ' +
      'n_tup_hot_upd::int AS hot, n_tup_del::int AS del, ' +
      '(SELECT count(*)::int FROM pg_index i WHERE i.indrelid = t.relid) AS indexes ' +
      'FROM pg_stat_user_tables t ORDER BY relname',
  );
  const database = await client.query(
    'SELECT xact_commit::int AS commits, xact_rollback::int AS rollbacks FROM pg_stat_database ' +
      'WHERE datname = current_database()',
  );
  return { tables: tables.rows, ...database.rows[0] };
}

function post(url, delivery) {
  return fetch(`${url}${STRIPE_PATH}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'stripe-signature': delivery.signature },
    body: delivery.body,
  });
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.build) ensureBuilt((message) => console.log(message));
  const adminUrl = await postgresAdminUrl();
  const runDir = mkdtempSync(join(os.tmpdir(), 'bench-statements-'));
  const spec = TARGETS['pg-express'];
  const target = await startTarget(spec, { adminUrl, runDir });
  const client = new Client({
    connectionString: withDatabase(adminUrl, target.database.name),
  });
  try {
    await client.connect();
    await sleep(STATS_FLUSH_MS);
    const before = await snapshot(client);
    const tag = `st${Date.now().toString(36)}`;
    const now = Math.floor(Date.now() / 1000);
    let next = 0;
    let refused = 0;
    const sender = async () => {
      while (next < options.events) {
        const response = await post(target.url, signedDelivery(tag, next++, now));
        await response.arrayBuffer();
        if (response.status !== 200) refused += 1;
      }
    };
    await Promise.all(Array.from({ length: options.concurrency }, sender));
    if (refused > 0)
      throw new Error(`${refused} of ${options.events} deliveries were not answered 200`);
    const deadline = Date.now() + 120_000;
    while ((await target.probe.backlog()) > 0) {
      if (Date.now() > deadline)
        throw new Error('the dispatcher did not settle the events within 120 s');
      await sleep(200);
    }
    await sleep(STATS_FLUSH_MS);
    const after = await snapshot(client);
    report(before, after, options.events);
  } finally {
    await client.end().catch(() => undefined);
    await stopAll();
    rmSync(runDir, { recursive: true, force: true });
  }
}

function report(before, after, events) {
  const per = (value) => (value / events).toFixed(2);
  const earlier = new Map(before.tables.map((table) => [table.name, table]));
  const lines = [
    `${events.toLocaleString('en-US')} deliveries to the sample app (pg-express), each a new event, settled by its dispatcher; per event:`,
    '',
    '| Table | Inserted | Updated (HOT) | Deleted | Index entries written |',
    '|---|---:|---:|---:|---:|',
  ];
  const total = { ins: 0, upd: 0, hot: 0, del: 0, entries: 0 };
  for (const table of after.tables) {
    const was = earlier.get(table.name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
    const d = {
      ins: table.ins - was.ins,
      upd: table.upd - was.upd,
      hot: table.hot - was.hot,
      del: table.del - was.del,
    };
    if (d.ins + d.upd + d.del === 0) continue;
    const entries = (d.ins + d.upd - d.hot) * table.indexes;
    for (const key of Object.keys(d)) total[key] += d[key];
    total.entries += entries;
    lines.push(
      `| ${table.name} (${table.indexes} ${table.indexes === 1 ? 'index' : 'indexes'}) | ${per(d.ins)} | ${per(d.upd)} (${per(d.hot)}) | ${per(d.del)} | ${per(entries)} |`,
    );
  }
  lines.push(
    `| all | ${per(total.ins)} | ${per(total.upd)} (${per(total.hot)}) | ${per(total.del)} | ${per(total.entries)} |`,
    '',
    `Transactions committed: ${per(after.commits - before.commits)} per event ` +
      `(rolled back: ${per(after.rollbacks - before.rollbacks)}), the metrics' and health's reads included.`,
  );
  console.log(lines.join('\n'));
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
