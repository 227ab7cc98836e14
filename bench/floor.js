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
 * With `--parts`, it measures instead what parts of the answer path cost alone: the ingress-only
 * sample on Express as it ships, then without its delivery journal, without its metrics, and
 * without both (the Nest route that does nothing beside them), `--rounds` times in turn (default
 * 3); a part's cost is the median app CPU per request with it less the median without it.
 *
 * Options: --duration S (default 15), --connections N (default 50), --out FILE, --no-build (do
 * not rebuild dist/ and bench/dist/ when their sources are newer), --parts, --rounds N.
 */
const { mkdtempSync, mkdirSync, rmSync, writeFileSync } = require('node:fs');
const os = require('node:os');
const { dirname, join } = require('node:path');
const { deliverySequence } = require('./lib/events');
const { runWrk, writeDeliveryFile } = require('./lib/load');
const { startCpuMeter } = require('./lib/cpu');
const { round } = require('./lib/stats');
const { positiveWhole } = require('./lib/args');
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

/** A target of {@link FLOOR_TARGETS} by its id. */
function floorTarget(id) {
  return FLOOR_TARGETS.find((spec) => spec.id === id);
}

/**
 * The ingress-only sample on Express with the parts `without` names turned off (none: as it
 * ships), for `--parts`.
 */
function sampleWithout(id, without, off) {
  const sample = floorTarget('ingress-express');
  return {
    ...sample,
    id,
    label: without ? `${without} off` : 'as shipped (journal line, metrics)',
    env: { ...sample.env, ...Object.fromEntries(off.map((name) => [name, 'false'])) },
    without,
  };
}

/** The ingress-only sample on Express, as it ships and without each part `--parts` measures. */
const PART_TARGETS = [
  sampleWithout('parts-shipped', undefined, []),
  sampleWithout('parts-no-journal', 'journal', ['BENCH_JOURNAL']),
  sampleWithout('parts-no-metrics', 'metrics', ['BENCH_METRICS']),
  sampleWithout('parts-neither', 'journal and metrics', ['BENCH_JOURNAL', 'BENCH_METRICS']),
  { ...floorTarget('floor-express'), without: 'the package (verify, store, answer)' },
];

function parseArgs(argv) {
  const options = {
    durationSec: 15,
    connections: 50,
    out: undefined,
    build: true,
    parts: false,
    rounds: undefined,
  };
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const number = () => positiveWhole(arg, argv[(i += 1)]);
    if (arg === '--duration') options.durationSec = number();
    else if (arg === '--connections') options.connections = number();
    else if (arg === '--rounds') options.rounds = number();
    else if (arg === '--parts') options.parts = true;
    else if (arg === '--out') {
      if (i + 1 >= argv.length) throw new Error('--out needs a file');
      options.out = argv[(i += 1)];
    } else if (arg === '--no-build') options.build = false;
    else throw new Error(`unknown option ${arg} (see the comment at the top of bench/floor.js)`);
  }
  if (options.rounds !== undefined && !options.parts) {
    throw new Error('--rounds applies to --parts only');
  }
  options.rounds ??= options.parts ? 3 : 1;
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

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * The `--parts` table: per variant the median acks/s and app CPU per request over the rounds
 * (with their range), and what the part it leaves out costs: the median with it, less this.
 */
function partsTable(results) {
  const of = (id) => results.filter((r) => r.id === id && !r.error);
  const cpu = (id) => median(of(id).map((r) => r.appCpuMsPerAck));
  const shipped = of('parts-shipped').length > 0 ? cpu('parts-shipped') : undefined;
  const lines = [
    '| Variant | Acks/s | App CPU ms/req (range) | Part left out | Its cost, ms/req | Share of shipped |',
    '|---|---:|---:|---|---:|---:|',
  ];
  for (const spec of PART_TARGETS) {
    const runs = of(spec.id);
    if (runs.length === 0) {
      lines.push(`| ${spec.label} | failed | | | | |`);
      continue;
    }
    const own = cpu(spec.id);
    const range = runs.map((r) => r.appCpuMsPerAck);
    const cost = spec.without && shipped !== undefined ? shipped - own : undefined;
    lines.push(
      `| ${spec.label} | ${Math.round(median(runs.map((r) => r.acksPerSec))).toLocaleString('en-US')} | ` +
        `${own.toFixed(3)} (${Math.min(...range).toFixed(3)}-${Math.max(...range).toFixed(3)}) | ` +
        `${spec.without ?? '–'} | ${cost === undefined ? '–' : cost.toFixed(3)} | ` +
        `${cost === undefined ? '–' : `${Math.round((cost / shipped) * 100)} %`} |`,
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
  // NOTE: with --parts the variants run in turn, in the other order every second round, so a
  // drift of the machine's speed over the run falls on each of them alike.
  const order = [];
  for (let round = 0; round < options.rounds; round += 1) {
    const specs = options.parts ? PART_TARGETS : FLOOR_TARGETS;
    order.push(
      ...(round % 2 === 0 ? specs : [...specs].reverse()).map((spec) => ({ spec, round })),
    );
  }
  try {
    for (const { spec, round } of order) {
      console.log(`▶ ${spec.label}${options.rounds > 1 ? ` (round ${round + 1})` : ''}`);
      try {
        const result = { ...(await measure(spec, options, adminUrl, runDir)), round };
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
  const when = started.toISOString().slice(0, 16).replace('T', ' ');
  const markdown = options.parts
    ? `## What the parts of the answer path cost (${when} UTC)\n\n` +
      `Machine: ${report.machine}. Load: ${report.load}, each target after a 3 s warm-up, ` +
      `${options.rounds} rounds in turn; medians.\n\n${partsTable(results)}\n`
    : `## What bounds a receiver on Nest (${when} UTC)\n\n` +
      `Machine: ${report.machine}. Load: ${report.load}, each target after a 3 s warm-up.\n\n` +
      `${table(results)}\n`;
  const out =
    options.out ?? join(ROOT, 'bench', 'results', options.parts ? 'parts.json' : 'floor.json');
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
