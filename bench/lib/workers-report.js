'use strict';
/** The workers benchmark's summary (medians over rounds, ratios) and its markdown table. */
const { round } = require('./stats');

/** The transports, in the order a pair runs them when in-process goes first. */
const TRANSPORTS = ['in-process', 'bullmq'];

const fmt = (value, digits = 0) =>
  value === null || value === undefined || Number.isNaN(value)
    ? '–'
    : Number(value).toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });

const median = (values) => {
  const sorted = values.filter((value) => value !== null).sort((a, b) => a - b);
  if (sorted.length === 0) return null;
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One row per transport × handler × workers: medians over the rounds, and the ratio. */
function summarize(cells, options) {
  const rows = [];
  for (const handler of options.handlers) {
    for (const workers of options.workers) {
      const byTransport = {};
      for (const transport of TRANSPORTS) {
        const own = cells.filter(
          (c) => c.transport === transport && c.handler === handler && c.workers === workers,
        );
        const ok = own.filter((c) => !c.error && c.checks?.every((check) => check.ok));
        byTransport[transport] = {
          transport,
          handler: handler === 'slow' ? `${options.handlerMs} ms` : 'no-op',
          workers,
          rounds: own.length,
          passed: ok.length,
          eventsPerSec: median(ok.map((c) => c.eventsPerSec)),
          drainSec: median(ok.map((c) => c.drainSec)),
          workersCpuMsPerEvent: median(ok.map((c) => c.cpu.workersMsPerEvent)),
          postgresCpuMsPerEvent: median(ok.map((c) => c.cpu.postgresMsPerEvent)),
          redisCpuMsPerEvent: median(ok.map((c) => c.cpu.redisMsPerEvent)),
          otherCores: median(ok.map((c) => c.cpu.otherCores)),
        };
      }
      const inProcess = byTransport['in-process'].eventsPerSec;
      const broker = byTransport.bullmq.eventsPerSec;
      byTransport.bullmq.ratio = inProcess && broker !== null ? round(broker / inProcess, 2) : null;
      rows.push(byTransport['in-process'], byTransport.bullmq);
    }
  }
  return rows;
}

function markdown(rows, report) {
  const lines = [
    '| Transport | Handler | Workers | Events/s | Time to drain | BullMQ / in-process | CPU ms/event: workers | PostgreSQL | Redis | Other load, cores | Checks |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const row of rows) {
    const ratio =
      row.transport === 'in-process' ? '(ref)' : row.ratio === null ? '–' : `${fmt(row.ratio, 2)}×`;
    const checks =
      row.passed === row.rounds ? `✓ ${row.passed}/${row.rounds}` : `✗ ${row.passed}/${row.rounds}`;
    lines.push(
      `| ${row.transport === 'bullmq' ? 'BullMQ' : 'in-process'} | ${row.handler} | ${row.workers} | ` +
        `${fmt(row.eventsPerSec)} | ${row.drainSec === null ? '–' : `${fmt(row.drainSec, 1)} s`} | ${ratio} | ` +
        `${fmt(row.workersCpuMsPerEvent, 3)} | ${fmt(row.postgresCpuMsPerEvent, 3)} | ` +
        `${fmt(row.redisCpuMsPerEvent, 3)} | ${fmt(row.otherCores, 2)} | ${checks} |`,
    );
  }
  const { settings, machine } = report;
  return (
    `## Draining ${fmt(settings.events)} events over worker processes ` +
    `(${report.startedAt.slice(0, 16).replace('T', ' ')} UTC)\n\n` +
    `Machine: ${machine.nproc} CPUs (${machine.cpuModel}), Node ${machine.node}, PostgreSQL ` +
    `${machine.postgres}, Redis ${machine.redis}. dispatch.concurrency ${settings.concurrency} ` +
    `per process, pool ${settings.poolSize}; ${settings.rounds} round(s), medians.\n\n` +
    `${lines.join('\n')}\n`
  );
}

module.exports = { TRANSPORTS, fmt, summarize, markdown };
