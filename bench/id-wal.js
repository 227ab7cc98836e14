'use strict';
/**
 * What the kind of primary key costs a large inbox: `npm run bench:ids [-- ROWS]`. In a fresh
 * database, a table keyed like `webhook_events` (varchar(36) primary key, 1 KB rows) is filled
 * with ROWS random (version 4) ids, default 1,000,000. Then 200,000 rows are added in
 * 1,000-row statements, once with random ids and once with the time-ordered ids the store
 * gives inbox rows (version 7), each after a CHECKPOINT, and the WAL written and the time taken
 * are printed. Needs the same PostgreSQL as `npm run bench` (or BENCH_DATABASE_URL) and a
 * built `dist/`.
 */
const { randomUUID, randomBytes } = require('node:crypto');
const { join } = require('node:path');
const { Client } = require('pg');
const { ROOT, postgresAdminUrl, adminQuery } = require('./lib/targets');

const ADDED = 200_000;
const BATCH = 1_000;

async function main() {
  const rows = Number(process.argv[2] ?? 1_000_000);
  if (!Number.isInteger(rows) || rows < 0)
    throw new Error(`ROWS must be a whole number, not "${process.argv[2]}"`);
  const { timeOrderedId } = require(join(ROOT, 'dist', 'core', 'time-ordered-id.js'));
  const adminUrl = await postgresAdminUrl();
  const name = `bench_ids_${randomBytes(4).toString('hex')}`;
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const client = new Client({ connectionString: url.toString() });
  try {
    await client.connect();
    const body = 'x'.repeat(1024);
    await client.query('CREATE TABLE inbox (id varchar(36) PRIMARY KEY, raw_body text NOT NULL)');
    await client.query(
      'INSERT INTO inbox SELECT gen_random_uuid()::text, $1 FROM generate_series(1, $2)',
      [body, rows],
    );
    await client.query('VACUUM ANALYZE inbox');
    console.log(`${rows.toLocaleString('en-US')} rows with random ids in the table`);
    // NOTE: the time-ordered ids go second, into the larger table: any bias is against them.
    for (const [kind, nextId] of [
      ['random (v4)', () => randomUUID()],
      ['time-ordered (v7)', () => timeOrderedId()],
    ]) {
      await client.query('CHECKPOINT');
      const [{ lsn: before }] = (await client.query('SELECT pg_current_wal_lsn() AS lsn')).rows;
      const started = process.hrtime.bigint();
      for (let done = 0; done < ADDED; done += BATCH) {
        const ids = Array.from({ length: BATCH }, nextId);
        await client.query('INSERT INTO inbox SELECT unnest($1::text[]), $2', [ids, body]);
      }
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      const [{ bytes }] = (
        await client.query('SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes', [before])
      ).rows;
      console.log(
        `${ADDED.toLocaleString('en-US')} rows with ${kind} ids: WAL ${(Number(bytes) / 2 ** 20).toFixed(1)} MiB, ${(ms / 1000).toFixed(2)} s`,
      );
    }
  } finally {
    await client.end();
    await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

main().catch((error) => {
  console.error(error.message);
  process.exit(1);
});
