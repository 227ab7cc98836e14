'use strict';
/**
 * CPU time of a target process and of the PostgreSQL server, read from /proc. Throughput moves
 * with whatever else the machine runs; CPU time per acknowledgement or per handled event moves
 * much less, so it is what compares two versions of the package on a shared machine.
 */
const { readFileSync, readdirSync } = require('node:fs');

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/** User + system CPU seconds of one process, or null when it cannot be read. */
function processCpuSeconds(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // NOTE: the command name may hold spaces; the fields after it are counted from its ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** CPU seconds of every running `postgres` process (server and backends), or null off Linux. */
function postgresCpuSeconds() {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  let total = 0;
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      if (name !== 'postgres') continue;
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      total += (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
    } catch {
      // NOTE: the process ended between the listing and the read.
    }
  }
  return total;
}

/**
 * Starts measuring the CPU the target (`pid`) and PostgreSQL spend; `stop(units)` gives the
 * totals in ms and per unit of work. PostgreSQL is counted only for PostgreSQL targets. A backend
 * that exits during the window takes its CPU with it, so the database figure is a lower bound.
 */
function startCpuMeter(pid, { database }) {
  const app0 = processCpuSeconds(pid);
  const db0 = database === 'postgres' ? postgresCpuSeconds() : null;
  return (units) => {
    const app1 = processCpuSeconds(pid);
    const db1 = database === 'postgres' ? postgresCpuSeconds() : null;
    const appMs = app0 === null || app1 === null ? null : (app1 - app0) * 1000;
    const dbMs = db0 === null || db1 === null ? null : (db1 - db0) * 1000;
    const per = (ms) =>
      ms === null || !(units > 0) ? null : Math.round((ms / units) * 1000) / 1000;
    return {
      appMs: appMs === null ? null : Math.round(appMs),
      dbMs: dbMs === null ? null : Math.round(dbMs),
      units,
      appMsPerUnit: per(appMs),
      dbMsPerUnit: per(dbMs),
    };
  };
}

module.exports = { processCpuSeconds, postgresCpuSeconds, startCpuMeter };
