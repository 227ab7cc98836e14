'use strict';
/**
 * What bounds a webhook receiver built on Nest on this machine: `npm run bench:floor`.
 *
 * One run, side by side, with the load of the main benchmark's throughput scenario (wrk, one
 * thread, 50 connections, unique pre-signed Stripe deliveries) against:
 * - (a) the hand-written reference of `npm run bench` (node:http, HMAC, one INSERT per request);
 * - node:http reading the body and answering 200, with no check and no storage;
 * - the webhook route on Nest with the sample's setup, answering 200 and doing nothing else, on
 *   Express and on Fastify: what any receiver on Nest answers at most;
 * - the sample app as an ingress-only instance (dispatcher off), on Express and on Fastify: the
 *   answer path alone, with nothing running handlers beside it.
 * Per target: acknowledged requests/s, the ratio to (a), latency, and CPU ms per request of the
 * target and of PostgreSQL; for targets that store, rows stored against 2xx answered. The
 * table is printed and written with the JSON to bench/results/floor.{json,md}.
 *
 * Options: --duration S (default 15), --connections N (default 50), --out FILE, --no-build (do
 * not rebuild dist/ and bench/dist/ when their sources are newer).
 */
const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { dirname, join } = require('node:path');
const { deliverySequence } = require('./lib/events');
const { runWrk, writeDeliveryFile } = require('./lib/load');
const { startCpuMeter } = require('./lib/cpu');
const { round } = require('./lib/stats');
const { ensureBuilt } = require('./lib/build');
const { ROOT, TARGETS, postgresAdminUrl, startTarget, stopAll, sleep } = require('./lib/targets');

const APP = 'bench/dist/bench/apps/main.js';
const FLOOR_APP = 'bench/dist/bench/apps/floor/floor.main.js';

const FLOOR_TARGETS = [
  TARGETS.reference,
  {
    id: 'bare-node',
    label: 'node:http, answers without checking or storing',
    database: 'none',
    script: 'bench/targets/bare-receiver.js',
  },
  {
    id: 'floor-express',
    label: 'Nest route, Express, answers without checking or storing',
    database: 'none',
    platform: 'express',
    script: FLOOR_APP,
  },
  {
    id: 'floor-fastify',
    label: 'Nest route, Fastify, answers without checking or storing',
    database: 'none',
    platform: 'fastify',
    script: FLOOR_APP,
  },
  {
    id: 'ingress-express',
    label: 'sample app, PostgreSQL, Express, dispatcher off',
    database: 'postgres',
    platform: 'express',
    script: APP,
    table: 'webhook_events',
    env: { BENCH_DISPATCH_ENABLED: 'false' },
  },
  {
    id: 'ingress-fastify',
    label: 'sample app, PostgreSQL, Fastify, dispatcher off',
    database: 'postgres',
    platform: 'fastify',
    script: APP,
    table: 'webhook_events',
    env: { BENCH_DISPATCH_ENABLED: 'false' },
  },
];

function parseArgs(argv) {
  const options = { durationSec: 15, connections: 50, out: undefined, build: true };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const number = () => {
      const value = Number(argv[i + 1]);
      if (!Number.isInteger(value) || value <= 0) {
        throw new Error(`${arg} needs a positive whole number, got "${argv[i + 1]}"`);
      }
      i += 1;
      return value;
    };
    if (arg === '--duration') options.durationSec = number();
    else if (arg === '--connections') options.connections = number();
    else if (arg === '--out') {
      if (i + 1 >= argv.length) throw new Error('--out needs a file');
      options.out = argv[(i += 1)];
    } else if (arg === '--no-build') options.build = false;
    else throw new Error(`unknown option ${arg} (see the comment at the top of bench/floor.js)`);
  }
  return options;
}

/** One target under the closed-loop load: its figures, or what went wrong. */
async function measure(spec, options, adminUrl, runDir) {
  const target = await startTarget(spec, { adminUrl, runDir, env: spec.env });
  try {
    const tag = `fl${spec.id.replace(/[^a-z]/g, '')}`;
    // NOTE: more lines than any storing target answers in the time, so every delivery is a new
    // event (the hand-written reference has answered 12,144/s on this kind of machine); the
    // warm-up sends events of its own.
    const load = async (name, durationSec) => {
      const count = durationSec * 20_000;
      const { lines } = deliverySequence({ tag: `${tag}${name}`, count, seed: 7 });
      const file = join(runDir, `${spec.id}-${name}.tsv`);
      await writeDeliveryFile(lines, file);
      return { url: target.url, file, threads: 1, connections: options.connections, durationSec };
    };
    await runWrk(await load('w', 3));
    const measured = await load('m', options.durationSec);
    await sleep(1000);
    const stopCpu = startCpuMeter(target.child.pid, spec);
    const wrk = await runWrk(measured);
    const acked = wrk.threads.reduce((sum, t) => sum + t.ok, 0);
    const non2xx = wrk.threads.reduce((sum, t) => sum + t.non2xx, 0);
    const cpu = stopCpu(acked);
    let rows = null;
    if (target.probe) {
      // NOTE: answers cut off when wrk stopped may still be committing.
      await sleep(1000);
      rows = await target.probe.countRows(`evt_${tag}m_`);
    }
    return {
      id: spec.id,
      label: spec.label,
      acksPerSec: round(acked / (wrk.durationUs / 1e6), 0),
      p50Ms: round(wrk.latencyUs.p50 / 1000, 2),
      p99Ms: round(wrk.latencyUs.p99 / 1000, 2),
      non2xx,
      acked,
      rows,
      appCpuMsPerAck: cpu.appMsPerUnit,
      dbCpuMsPerAck: cpu.dbMsPerUnit,
    };
  } finally {
    await target.stop();
  }
}

function table(results) {
  const reference = results.find((r) => r.id === 'reference');
  const fmt = (value, digits = 0) =>
    value === null || value === undefined
      ? '–'
      : value.toLocaleString('en-US', {
          minimumFractionDigits: digits,
          maximumFractionDigits: digits,
        });
  const lines = [
    '| Target | Acks/s | Ratio | p50 ms | p99 ms | Non-2xx | Stored vs acked | App CPU ms/req | PostgreSQL CPU ms/req |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of results) {
    if (r.error) {
      lines.push(`| ${r.label} | failed: ${r.error.split('\n')[0]} | | | | | | | |`);
      continue;
    }
    const ratio =
      r.id === 'reference'
        ? '1.00× (ref)'
        : reference && !reference.error
          ? `${(r.acksPerSec / reference.acksPerSec).toFixed(2)}×`
          : '–';
    const stored =
      r.rows === null
        ? 'stores nothing'
        : r.rows >= r.acked
          ? `✓ (${fmt(r.rows)} rows, ${fmt(r.acked)} 2xx)`
          : `✗ ${fmt(r.rows)} rows for ${fmt(r.acked)} 2xx`;
    lines.push(
      `| ${r.label} | ${fmt(r.acksPerSec)} | ${ratio} | ${fmt(r.p50Ms, 2)} | ${fmt(r.p99Ms, 2)} | ` +
        `${fmt(r.non2xx)} | ${stored} | ${fmt(r.appCpuMsPerAck, 3)} | ${fmt(r.dbCpuMsPerAck, 3)} |`,
    );
  }
  return lines.join('\n');
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.build) ensureBuilt((message) => console.log(message));
  const adminUrl = await postgresAdminUrl();
  const runDir = mkdtempSync(join(os.tmpdir(), 'bench-floor-'));
  const started = new Date();
  const results = [];
  try {
    for (const spec of FLOOR_TARGETS) {
      console.log(`▶ ${spec.label}`);
      try {
        const result = await measure(spec, options, adminUrl, runDir);
        results.push(result);
        console.log(
          `  ${result.acksPerSec.toLocaleString('en-US')} acks/s, p99 ${result.p99Ms} ms, ` +
            `app CPU ${result.appCpuMsPerAck} ms/req` +
            (result.rows === null ? '' : `, rows ${result.rows.toLocaleString('en-US')}`),
        );
      } catch (error) {
        results.push({ id: spec.id, label: spec.label, error: error.message });
        console.log(`  failed: ${error.message}`);
      }
    }
  } finally {
    await stopAll();
    rmSync(runDir, { recursive: true, force: true });
  }
  // NOTE: stored rows must cover every 2xx answer, or something acknowledged was lost.
  const lost = results.filter((r) => !r.error && r.rows !== null && r.rows < r.acked);
  const cpus = os.cpus();
  const report = {
    startedAt: started.toISOString(),
    machine: `${cpus.length} CPUs (${cpus[0]?.model.trim()}), Node ${process.version}`,
    load: `wrk -t1 -c${options.connections} -d${options.durationSec}s, unique signed Stripe deliveries`,
    results,
  };
  const markdown =
    `## What bounds a receiver on Nest (${started.toISOString().slice(0, 16).replace('T', ' ')} UTC)\n\n` +
    `Machine: ${report.machine}. Load: ${report.load}, each target after a 3 s warm-up.\n\n` +
    `${table(results)}\n`;
  const out = options.out ?? join(ROOT, 'bench', 'results', 'floor.json');
  mkdirSync(dirname(out), { recursive: true });
  writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(out.replace(/\.json$/, '.md'), markdown);
  console.log(`\n${markdown}\nResults: ${out} (and .md)`);
  if (results.some((r) => r.error) || lost.length > 0) {
    for (const r of lost) {
      console.error(`${r.label}: ${r.rows} rows stored for ${r.acked} requests answered 2xx`);
    }
    process.exitCode = 1;
  }
}

main().catch(async (error) => {
  console.error(error);
  await stopAll();
  process.exit(1);
});
