'use strict';
/**
 * CPU time of a target process and of the PostgreSQL server, read from /proc. Throughput moves
 * with whatever else the machine runs; CPU time per acknowledgement or per handled event moves
 * much less, so it is what compares two versions of the package on a shared machine.
 */
const { readFileSync, readdirSync } = require('node:fs');

/** Clock ticks per second of /proc's utime and stime (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * The command name and user + system CPU seconds in one `/proc/<pid>/stat` line.
 * NOTE: the command name may hold spaces; the fields after it are counted from its ')'.
 */
function parseStat(stat) {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return {
    name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')),
    seconds: (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND,
  };
}

/** User + system CPU seconds of one process, or null when it cannot be read. */
function processCpuSeconds(pid) {
  try {
    return parseStat(readFileSync(`/proc/${pid}/stat`, 'utf8')).seconds;
  } catch {
    return null;
  }
}

/** CPU seconds of each running process called `name` by pid, or null off Linux. */
function cpuByPidOf(name) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return null;
  }
  const byPid = new Map();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { name: command, seconds } = parseStat(readFileSync(`/proc/${entry}/stat`, 'utf8'));
      if (command === name) byPid.set(entry, seconds);
    } catch {
      // NOTE: the process ended between the listing and the read.
    }
  }
  return byPid;
}

/** CPU seconds of each running `postgres` process (server and backends) by pid, or null off Linux. */
function postgresCpuByPid() {
  return cpuByPidOf('postgres');
}

/**
 * Busy and total CPU seconds of the whole machine (all cores, from the first line of
 * /proc/stat; idle and I/O wait are not busy), or null off Linux.
 */
function machineCpuSeconds() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    // NOTE: user nice system idle iowait irq softirq steal; guest time is already in user.
    const ticks = fields.slice(1, 9).map(Number);
    const total = ticks.reduce((sum, value) => sum + value, 0);
    return {
      busy: (total - ticks[3] - ticks[4]) / TICKS_PER_SECOND,
      total: total / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}

/**
 * CPU seconds PostgreSQL (or the processes of any `cpuByPidOf()` sample) spent between two
 * samples: what each process running at the end added since the first sample (all of it for a
 * process started since). A process that ended in between is not counted, so the figure is a
 * lower bound, never negative.
 */
function postgresCpuDelta(before, after) {
  if (before === null || after === null) return null;
  let total = 0;
  for (const [pid, seconds] of after) {
    total += Math.max(0, seconds - (before.get(pid) ?? 0));
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
  const db0 = database === 'postgres' ? postgresCpuByPid() : null;
  return (units) => {
    const app1 = processCpuSeconds(pid);
    const db1 = database === 'postgres' ? postgresCpuByPid() : null;
    const appMs = app0 === null || app1 === null ? null : (app1 - app0) * 1000;
    const dbSeconds = postgresCpuDelta(db0, db1);
    const dbMs = dbSeconds === null ? null : dbSeconds * 1000;
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

module.exports = {
  processCpuSeconds,
  cpuByPidOf,
  machineCpuSeconds,
  postgresCpuByPid,
  postgresCpuDelta,
  startCpuMeter,
};
