'use strict';
/**
 * Turns the runner's results into ratios, pass/fail checks (the run's correctness), goal
 * verdicts (the tracker's performance targets; informative, never the exit code) and
 * markdown tables.
 */

const fmt = (value, digits = 0) =>
  value === null || value === undefined || Number.isNaN(value)
    ? '–'
    : Number(value).toLocaleString('en-US', {
        minimumFractionDigits: digits,
        maximumFractionDigits: digits,
      });
const ms = (value) =>
  value === null || value === undefined
    ? '–'
    : value < 10
      ? fmt(value, 2)
      : value < 100
        ? fmt(value, 1)
        : fmt(value, 0);
const ratio = (value) => (value === null || value === undefined ? '–' : `${fmt(value, 2)}×`);

const WRK_SCENARIOS = ['throughput', 'redelivery', 'throughputPrefilled'];

/** A target's row label: its label, and its round when the run had more than one. */
function rowLabel(results, target) {
  return (results.settings?.rounds ?? 1) > 1
    ? `${target.label}, round ${target.round}`
    : target.label;
}

/** A short summary of one scenario result for the progress log. */
function oneLine(result) {
  if (!result || typeof result !== 'object') return String(result);
  if (result.error) return `error: ${result.error}`;
  if (result.scenario === 'drain') {
    return `${fmt(result.eventsPerSec)} events/s over a backlog of ${fmt(result.backlog)}${cpuText(result.cpu, 'event')}`;
  }
  if (result.scenario === 'handled') {
    const how = result.handledInRequest
      ? 'in the request'
      : `load ${fmt(result.loadSec, 1)} s + drain ${result.lowerBound ? '> ' : ''}${fmt(result.drainSec, 1)} s`;
    return (
      `${handledText(result)} handled/s (${how}), ${fmt(result.acksPerSec)} acks/s, ` +
      `rows ${fmt(result.rows)}/2xx ${fmt(result.acked)} ${result.accounting?.ok ? 'ok' : 'MISMATCH'}` +
      cpuText(result.cpu, 'handled event')
    );
  }
  if (result.rows !== undefined && result.acksPerSec === undefined) {
    return `${fmt(result.rows)} rows in ${fmt(result.seconds, 1)} s`;
  }
  const parts = [
    `${fmt(result.acksPerSec)} acks/s`,
    `p50 ${ms(result.latencyMs?.p50)} ms`,
    `p99 ${ms(result.latencyMs?.p99)} ms`,
    `non-2xx ${fmt(result.non2xx)}`,
    `rows ${fmt(result.rows)}/2xx ${fmt(result.acked)} ${result.accounting?.ok ? 'ok' : 'MISMATCH'}`,
  ];
  if (result.handler) {
    const [p50, p99] = lagCells(result);
    parts.push(`lag p50 ${p50} p99 ${p99}`);
  }
  return parts.join(', ') + cpuText(result.cpu, 'ack');
}

/** `, CPU app … ms/<unit>, db … ms/<unit>` when the scenario measured CPU. */
function cpuText(cpu, unit) {
  if (!cpu || cpu.appMsPerUnit === null) return '';
  const db = cpu.dbMsPerUnit === null ? '' : `, db ${fmt(cpu.dbMsPerUnit, 3)}`;
  return `, CPU ms/${unit}: app ${fmt(cpu.appMsPerUnit, 3)}${db}`;
}

/** A CPU-per-unit cell: milliseconds of CPU per acknowledgement or per handled event. */
function cpuCell(cpu, key) {
  return cpu && cpu[key] !== null && cpu[key] !== undefined ? fmt(cpu[key], 3) : '–';
}

/**
 * CPU per unit of work: what each target's process and PostgreSQL spent per acknowledgement
 * under wrk (for the sample app this includes the dispatcher's work in the same window) and per
 * event drained (dispatcher alone).
 */
function cpuTable(results) {
  const rows = results.targets
    .filter((target) => target.scenarios.throughput || target.scenarios.drain)
    .map((target) => {
      const t = target.scenarios.throughput?.error ? undefined : target.scenarios.throughput;
      const d = target.scenarios.drain?.error ? undefined : target.scenarios.drain;
      return [
        rowLabel(results, target),
        cpuCell(t?.cpu, 'appMsPerUnit'),
        cpuCell(t?.cpu, 'dbMsPerUnit'),
        cpuCell(d?.cpu, 'appMsPerUnit'),
        cpuCell(d?.cpu, 'dbMsPerUnit'),
      ];
    });
  return table(
    [
      'Target',
      'Throughput: app CPU ms/ack',
      'PostgreSQL CPU ms/ack',
      'Drain: app CPU ms/event',
      'PostgreSQL CPU ms/event',
    ],
    rows,
  );
}

/** Handled/s of a handled result, with "> " when it is a lower bound. */
function handledText(result) {
  return `${result.lowerBound ? '> ' : ''}${fmt(result.handledPerSec)}`;
}

/**
 * Adds `ratio` (acks/s ÷ the reference's in the same scenario of the same round) to the
 * closed-loop scenarios, and to the handled scenario `ratioToPeer` and `ratioToReference`
 * (handled/s ÷ theirs in the same round) with `ratio` the first of them there is.
 */
function addRatios(results) {
  for (const target of results.targets) {
    const inRound = (id) =>
      results.targets.find((other) => other.id === id && other.round === target.round);
    const reference = inRound('reference');
    for (const name of WRK_SCENARIOS) {
      const own = target.scenarios[name];
      const base = reference?.scenarios[name];
      if (own?.acksPerSec !== undefined && base?.acksPerSec) {
        own.ratio = Math.round((own.acksPerSec / base.acksPerSec) * 100) / 100;
      }
    }
    const own = target.scenarios.handled;
    if (own?.handledPerSec === undefined) continue;
    const share = (id) => {
      const base = inRound(id)?.scenarios.handled?.handledPerSec;
      return base ? Math.round((own.handledPerSec / base) * 100) / 100 : undefined;
    };
    own.ratioToPeer = share('peer');
    own.ratioToReference = share('reference');
    own.ratio = own.ratioToPeer ?? own.ratioToReference;
  }
}

/**
 * The run's correctness checks: every scenario produced numbers, stored rows match
 * acknowledged answers, and (once the dispatcher caught up) each stored event ran its
 * handler exactly once. A failed check makes the run exit non-zero.
 */
function checks(results, { long }) {
  const list = [];
  const add = (name, ok, detail) => list.push({ name, ok, detail });
  const rounds = results.settings?.rounds ?? 1;
  for (const failure of results.failures) {
    const round = rounds > 1 && failure.round ? ` in round ${failure.round}` : '';
    add(`${failure.target} ran${round}`, false, failure.error);
  }
  if (long) {
    const load = results.long?.load;
    if (load) {
      add(
        `${results.long.id} long: stored = acknowledged`,
        load.accounting.ok,
        load.accounting.detail,
      );
      add(
        `${results.long.id} long: resident size sampled`,
        (results.long.memory?.samples.length ?? 0) > 1,
        `${results.long.memory?.samples.length ?? 0} samples`,
      );
    }
    return list;
  }
  for (const target of results.targets) {
    for (const [name, result] of Object.entries(target.scenarios)) {
      const label = `${target.id}${rounds > 1 ? ` round ${target.round}` : ''} ${name}`;
      if (result.error) {
        add(`${label}: produced numbers`, false, result.error);
        continue;
      }
      if (name === 'drain' || name === 'drainPrefilled') {
        add(
          `${label}: produced numbers`,
          result.eventsPerSec > 0 && result.handled > 0,
          `${fmt(result.eventsPerSec)} events/s, ${fmt(result.handled)} handled`,
        );
      } else if (name === 'handled') {
        add(
          `${label}: produced numbers`,
          result.handledPerSec > 0 && result.acksPerSec > 0,
          `${handledText(result)} handled/s, ${fmt(result.acksPerSec)} acks/s`,
        );
        if (target.dispatcher) {
          const lag = result.handler?.lagMs;
          add(
            `${label}: handler lag measured`,
            (lag?.of ?? 0) > 0 && (lag.p50 !== null || lag.count < lag.of),
            `${fmt(lag?.count)} of ${fmt(lag?.of)} handler starts`,
          );
        }
      } else {
        add(
          `${label}: produced numbers`,
          result.acksPerSec > 0 && result.latencyMs?.p99 !== null,
          `${fmt(result.acksPerSec)} acks/s`,
        );
        if (target.dispatcher && name !== 'slowHandler') {
          // NOTE: a lag percentile is a figure or a lower bound ("> 30 s" when the handler had
          // not started yet); the drain scenario checks that handlers run at all.
          const lag = result.handler?.lagMs;
          add(
            `${label}: handler lag measured`,
            (lag?.of ?? 0) > 0 && (lag.p50 !== null || lag.count < lag.of),
            `${fmt(lag?.count)} of ${fmt(lag?.of)} handler starts`,
          );
        }
      }
      if (result.accounting) {
        add(`${label}: stored = acknowledged`, result.accounting.ok, result.accounting.detail);
      }
      if (result.handlerRunsCheck) {
        add(
          `${label}: one handler run per stored event`,
          result.handlerRunsCheck.ok,
          result.handlerRunsCheck.detail,
        );
      }
    }
    if (target.prefill?.error) {
      add(`${target.id} prefill`, false, target.prefill.error);
    }
  }
  return list;
}

/** A scenario's result of target `id` in its first round, unless it failed. */
function scenario(results, id, name) {
  const result = results.targets.find((target) => target.id === id)?.scenarios[name];
  return result && !result.error ? result : undefined;
}

/** The tracker's performance targets, judged on this run (informative). */
function goals(results) {
  const list = [];
  const add = (goal, target, measured, met) => list.push({ goal, target, measured, met });
  for (const id of ['pg-express', 'pg-fastify']) {
    if (!results.targets.some((target) => target.id === id)) continue;
    const throughput = scenario(results, id, 'throughput');
    add(
      `${id}: ack throughput vs the hand-written receiver`,
      '≥ 1.00×',
      throughput?.ratio === undefined
        ? '–'
        : `${ratio(throughput.ratio)} (${fmt(throughput.acksPerSec)}/s)`,
      throughput?.ratio === undefined ? null : throughput.ratio >= 1,
    );
    const peer = scenario(results, 'peer', 'throughput');
    if (peer && throughput) {
      const share = throughput.acksPerSec / peer.acksPerSec;
      add(
        `${id}: ack throughput vs the NestJS peer (@golevelup/nestjs-stripe)`,
        '≥ 1.00×',
        `${ratio(share)} (${fmt(throughput.acksPerSec)}/s vs ${fmt(peer.acksPerSec)}/s)`,
        share >= 1,
      );
    }
    const handled = scenario(results, id, 'handled');
    const peerHandled = scenario(results, 'peer', 'handled');
    if (handled && peerHandled) {
      const share = handled.handledPerSec / peerHandled.handledPerSec;
      add(
        `${id}: handled end to end vs the NestJS peer's acks/s (its handler runs in the request)`,
        '≥ 1.00×',
        `${handled.lowerBound ? '> ' : ''}${ratio(share)} (${handledText(handled)}/s vs ${fmt(peerHandled.handledPerSec)}/s)`,
        // NOTE: a lower bound under the goal leaves it open.
        share >= 1 ? true : handled.lowerBound ? null : false,
      );
    }
    const fixed = scenario(results, id, 'fixedRate');
    // NOTE: the Express shop's goal is the tighter one; Fastify's keeps the earlier bound.
    const p99Goal = id === 'pg-express' ? 25 : 50;
    add(
      `${id}: p99 ack latency at ${fmt(results.settings.fixedRatePerSec)} req/s offered`,
      `≤ ${p99Goal} ms`,
      fixed ? `${ms(fixed.latencyMs.p99)} ms` : '–',
      fixed ? fixed.latencyMs.p99 <= p99Goal : null,
    );
    const drain = scenario(results, id, 'drain');
    const drainVs = results.vs?.rows?.find(
      (row) => row.target === id && row.figure === 'Drain handler starts/s',
    );
    if (drainVs) {
      add(
        `${id}: dispatcher drain, no-op handler, vs ${results.vs.short} (median of the rounds)`,
        '≥ 1.75×',
        `${ratio(drainVs.medianRatio)} (${drainVs.rounds
          .map((r) => `${fmt(r.this)} / ${fmt(r.other)}`)
          .join(', ')} events/s)`,
        drainVs.medianRatio === null ? null : drainVs.medianRatio >= 1.75,
      );
    } else {
      add(
        `${id}: dispatcher drain, no-op handler`,
        '≥ 2,000 events/s',
        drain ? `${fmt(drain.eventsPerSec)} events/s` : '–',
        drain ? drain.eventsPerSec >= 2000 : null,
      );
    }
    const slow = scenario(results, id, 'slowHandler');
    if (slow && fixed) {
      add(
        `${id}: p99 ack latency with a ${slow.handlerMs} ms handler`,
        `≤ 1.5 × no-op p99 + 5 ms (${ms(fixed.latencyMs.p99 * 1.5 + 5)} ms)`,
        `${ms(slow.latencyMs.p99)} ms (no-op ${ms(fixed.latencyMs.p99)} ms)`,
        slow.latencyMs.p99 <= fixed.latencyMs.p99 * 1.5 + 5,
      );
    }
    const prefilled = scenario(results, id, 'throughputPrefilled');
    if (prefilled && throughput) {
      const share = prefilled.acksPerSec / throughput.acksPerSec;
      add(
        `${id}: ack throughput with ${fmt(results.settings.prefillRows)} rows in the inbox`,
        '≥ 0.90 × empty inbox',
        `${ratio(share)} (${fmt(prefilled.acksPerSec)}/s)`,
        share >= 0.9,
      );
    }
    const fixedPrefilled = scenario(results, id, 'fixedRatePrefilled');
    if (fixedPrefilled) {
      add(
        `${id}: p99 at ${fmt(results.settings.fixedRatePerSec)} req/s with ${fmt(results.settings.prefillRows)} rows`,
        `≤ ${p99Goal} ms`,
        `${ms(fixedPrefilled.latencyMs.p99)} ms`,
        fixedPrefilled.latencyMs.p99 <= p99Goal,
      );
    }
    const drainPrefilled = scenario(results, id, 'drainPrefilled');
    if (drainPrefilled && drain) {
      const share = drainPrefilled.eventsPerSec / drain.eventsPerSec;
      add(
        `${id}: dispatcher drain with ${fmt(results.settings.prefillRows)} rows in the inbox`,
        '≥ 0.90 × empty inbox',
        `${ratio(share)} (${fmt(drainPrefilled.eventsPerSec)} events/s)`,
        share >= 0.9,
      );
    }
  }
  return list;
}

/**
 * The memory target of the long run: resident size is flat when its median over the last minute
 * is within 10 % (or 20 MiB) of its median over the second minute (the first is the ramp-up:
 * JIT, pools, buffers); medians keep one slow moment from deciding. The heap left after full
 * collections (its median in each half of the run, after the first minute) must not rise by
 * more than 10 % (or 5 MiB), which it does when something leaks.
 */
function longGoals(results) {
  const memory = results.long?.memory;
  if (!memory) return [];
  const { medianSecondMinute, medianLastMinute, max, slopePerMinuteAfterOneMinute } = memory.rssMiB;
  const allowed = Math.max(medianSecondMinute * 0.1, 20);
  const { firstHalf, secondHalf } = memory.heapAfterFullGcMiB;
  const goals = [
    {
      goal: `${results.long.id}: resident size flat over ${results.settings.longMinutes} min (median of minute 2 → of the last minute)`,
      target: `growth ≤ max(10 %, 20 MiB) = ${fmt(allowed, 1)} MiB`,
      measured: `${fmt(medianSecondMinute, 1)} → ${fmt(medianLastMinute, 1)} MiB (max ${fmt(max, 1)}; trend ${fmt(slopePerMinuteAfterOneMinute, 2)} MiB/min)`,
      met: medianLastMinute - medianSecondMinute <= allowed,
    },
  ];
  if (firstHalf !== null && secondHalf !== null) {
    goals.push({
      goal: `${results.long.id}: heap after full collections (median), first half → second half`,
      target: `growth ≤ max(10 %, 5 MiB) = ${fmt(Math.max(firstHalf * 0.1, 5), 1)} MiB`,
      measured: `${fmt(firstHalf, 1)} → ${fmt(secondHalf, 1)} MiB`,
      met: secondHalf - firstHalf <= Math.max(firstHalf * 0.1, 5),
    });
  }
  return goals;
}

/** The highest p99 of the load's 10 s windows, with when it was. */
function worstWindow(load) {
  const windows = (load.latencyWindowsMs ?? []).filter((w) => w.p99 !== null);
  if (!windows.length) return '–';
  const worst = windows.reduce((a, b) => (b.p99 > a.p99 ? b : a));
  return `${ms(worst.p99)} (at ${fmt(worst.fromSec)} s)`;
}

function table(headers, rows) {
  const lines = [
    `| ${headers.join(' | ')} |`,
    `|${headers.map((h, i) => (i === 0 ? '---' : '---:')).join('|')}|`,
  ];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  return lines.join('\n');
}

function storedCell(result) {
  if (!result.accounting) return '–';
  if (!result.accounting.ok) return `✗ ${result.accounting.detail}`;
  if (result.expectedRows) {
    const cut = result.sent - result.acked - result.non2xx;
    const cycled = result.wrapped ? ', file cycled' : '';
    return cut > 0
      ? `✓ (${fmt(cut)} cut off at stop${cycled})`
      : `✓${cycled ? ` (${cycled.slice(2)})` : ''}`;
  }
  return '✓ exact';
}

/**
 * Lag p50 and p99 cells. A percentile that falls among events whose handler had not started
 * when the runner stopped waiting is shown as "> <wait> s": those events waited at least that
 * (as "not started" when the runner did not wait a whole second).
 */
function lagCells(result) {
  const handler = result.handler;
  if (!handler || !handler.lagMs) return ['–', '–'];
  const { lagMs } = handler;
  const cell = (value) =>
    value === null
      ? lagMs.of === 0
        ? '–'
        : handler.waitedSec >= 1
          ? `> ${fmt(handler.waitedSec, 0)} s`
          : 'not started'
      : ms(value);
  const suffix = lagMs.count < lagMs.of ? ` (${fmt(lagMs.count)} of ${fmt(lagMs.of)} started)` : '';
  return [cell(lagMs.p50), `${cell(lagMs.p99)}${suffix}`];
}

/** A table row for a scenario that failed: its label, the error's first line, blank cells. */
function errorRow(label, error, blanks, more = 0) {
  return [label, `error: ${error.split('\n')[0]}`, ...Array(blanks + more).fill('')];
}

function throughputTable(results, name) {
  const rows = results.targets
    .filter((target) => target.scenarios[name])
    .map((target) => {
      const r = target.scenarios[name];
      if (r.error) return errorRow(rowLabel(results, target), r.error, 10);
      return [
        rowLabel(results, target),
        fmt(r.acksPerSec),
        target.id === 'reference' ? '1.00× (ref)' : ratio(r.ratio),
        ms(r.latencyMs.p50),
        ms(r.latencyMs.p99),
        ms(r.latencyMs.max),
        fmt(r.non2xx + r.socketErrors),
        fmt(r.acked),
        fmt(r.rows),
        storedCell(r),
        ...lagCells(r),
      ];
    });
  return table(
    [
      'Target',
      'Acks/s',
      'Ratio',
      'p50 ms',
      'p99 ms',
      'max ms',
      'Non-2xx',
      '2xx',
      'Rows',
      'Stored vs acked',
      'Lag p50 ms',
      'Lag p99 ms',
    ],
    rows,
  );
}

function fixedRateTable(results, name) {
  const rows = results.targets
    .filter((target) => target.scenarios[name])
    .map((target) => {
      const r = target.scenarios[name];
      if (r.error) return errorRow(rowLabel(results, target), r.error, 11);
      return [
        rowLabel(results, target),
        fmt(r.acksPerSec),
        ms(r.latencyMs.p50),
        ms(r.latencyMs.p99),
        ms(r.latencyMs.p999),
        ms(r.latencyMs.max),
        fmt(r.non2xx + r.socketErrors),
        fmt(r.acked),
        fmt(r.rows),
        storedCell(r),
        ...lagCells(r),
        r.backlogAtStop == null
          ? '–'
          : `${fmt(r.backlogAtStop)} (${fmt(r.backlogAtStop / r.offeredPerSec, 2)} s)`,
      ];
    });
  return table(
    [
      'Target',
      'Acks/s',
      'p50 ms',
      'p99 ms',
      'p99.9 ms',
      'max ms',
      'Non-2xx',
      '2xx',
      'Rows',
      'Stored vs acked',
      'Lag p50 ms',
      'Lag p99 ms',
      'Unhandled at stop (s of arrivals)',
    ],
    rows,
  );
}

/**
 * The figures the side-by-side table compares: per scenario, what is read from its result and
 * whether more (rates) or less (latency, CPU) is better.
 */
/** What a side-by-side figure reads from a scenario result. */
const READ = {
  acks: (r) => r.acksPerSec,
  p99: (r) => r.latencyMs?.p99,
  events: (r) => r.eventsPerSec,
  handled: (r) => r.handledPerSec,
  appCpu: (r) => r.cpu?.appMsPerUnit,
  dbCpu: (r) => r.cpu?.dbMsPerUnit,
  walStored: (r) => r.wal?.bytesPerStoredEvent,
  walDrained: (r) => r.wal?.bytesPerDrainedEvent,
};

const SIDE_BY_SIDE_FIGURES = [
  ['throughput', 'Throughput acks/s', 'higher', READ.acks],
  ['redelivery', 'Re-delivery acks/s', 'higher', READ.acks],
  ['fixedRate', 'Fixed-rate acks/s', 'higher', READ.acks],
  ['fixedRate', 'Fixed-rate p99 ms', 'lower', READ.p99],
  ['drain', 'Drain handler starts/s', 'higher', READ.events],
  ['throughput', 'Throughput: app CPU ms/ack', 'lower', READ.appCpu],
  ['throughput', 'Throughput: PostgreSQL CPU ms/ack', 'lower', READ.dbCpu],
  ['drain', 'Drain: app CPU ms/event', 'lower', READ.appCpu],
  ['drain', 'Drain: PostgreSQL CPU ms/event', 'lower', READ.dbCpu],
  ['drain', 'Drain fill: WAL bytes/stored event', 'lower', READ.walStored],
  ['drain', 'Drain: WAL bytes/drained event', 'lower', READ.walDrained],
  ['handled', 'Handled end to end: handled/s', 'higher', READ.handled],
  ['handled', 'Handled: app CPU ms/handled event', 'lower', READ.appCpu],
  ['handled', 'Handled: PostgreSQL CPU ms/handled event', 'lower', READ.dbCpu],
  ['throughputPrefilled', 'Throughput acks/s, prefilled', 'higher', READ.acks],
  ['fixedRatePrefilled', 'Fixed-rate p99 ms, prefilled', 'lower', READ.p99],
  ['drainPrefilled', 'Drain handler starts/s, prefilled', 'higher', READ.events],
].map(([scenario, figure, better, read]) => ({ scenario, figure, better, read }));

/** The median of `values` (the mean of the middle two for an even count); null when empty. */
function median(values) {
  if (!values.length) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** A finite figure of one scenario result, or null (failed, missing or not measured). */
function figureOf(target, { scenario: name, read }) {
  const result = target?.scenarios[name];
  if (!result || result.error) return null;
  const value = read(result);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/**
 * Whether the result behind a figure was cut short (the handled scenario's events not all
 * settled within its wait): its handled/s is then a lower bound.
 */
function cutShort(target, { scenario: name }) {
  const result = target?.scenarios[name];
  return Boolean(result && !result.error && result.lowerBound);
}

/**
 * This checkout against the other revision (`--vs`): per package target and figure, each
 * round's figure of both, their ratio (this ÷ other) and the median of the rounds' ratios.
 * Figures neither side measured in any round are left out.
 * @param {object} results the run's results, with `settings.rounds` and twins (`twinOf`)
 * @returns {object[]} rows, in the order of the targets and of SIDE_BY_SIDE_FIGURES
 */
function sideBySide(results) {
  const rounds = results.settings?.rounds ?? 1;
  const pairs = [];
  for (const twin of results.targets.filter((target) => target.twinOf && target.round === 1)) {
    const own = results.targets.find((target) => target.id === twin.twinOf);
    if (own) pairs.push({ id: own.id, label: own.label, twinId: twin.id });
  }
  const find = (id, round) =>
    results.targets.find((target) => target.id === id && target.round === round);
  const rows = [];
  for (const pair of pairs) {
    for (const figure of SIDE_BY_SIDE_FIGURES) {
      const perRound = [];
      for (let round = 1; round <= rounds; round += 1) {
        const own = figureOf(find(pair.id, round), figure);
        const other = figureOf(find(pair.twinId, round), figure);
        const ratio = own !== null && other ? Math.round((own / other) * 1000) / 1000 : null;
        const entry = { round, this: own, other, ratio };
        if (cutShort(find(pair.id, round), figure)) entry.thisLowerBound = true;
        if (cutShort(find(pair.twinId, round), figure)) entry.otherLowerBound = true;
        perRound.push(entry);
      }
      if (perRound.every((r) => r.this === null && r.other === null)) continue;
      const ratios = perRound.map((r) => r.ratio).filter((value) => value !== null);
      const middle = median(ratios);
      rows.push({
        target: pair.id,
        label: pair.label,
        twin: pair.twinId,
        scenario: figure.scenario,
        figure: figure.figure,
        better: figure.better,
        rounds: perRound,
        medianRatio: middle === null ? null : Math.round(middle * 1000) / 1000,
      });
    }
  }
  return rows;
}

/**
 * A figure of the side-by-side table, formatted as its column is elsewhere; "> " before a
 * handled/s that is a lower bound (the round's ratio then says "one side cut short").
 */
function sideFigure(row, value, lowerBound = false) {
  if (/CPU/.test(row.figure)) return value === null ? '–' : fmt(value, 3);
  const text = /ms/.test(row.figure) ? ms(value) : fmt(value);
  return lowerBound && value !== null ? `> ${text}` : text;
}

/** The side-by-side table of `results.vs.rows` (see sideBySide()). */
function sideBySideTable(results) {
  const short = results.vs.short;
  const rounds = results.settings?.rounds ?? 1;
  const headers = ['Target', 'Figure'];
  for (let round = 1; round <= rounds; round += 1) {
    headers.push(`Round ${round}: this / ${short} (ratio)`);
  }
  headers.push(`Median ratio this ÷ ${short}`);
  const rows = results.vs.rows.map((row) => [
    row.label,
    `${row.figure} (${row.better} is better)`,
    ...row.rounds.map(
      (r) =>
        `${sideFigure(row, r.this, r.thisLowerBound)} / ${sideFigure(row, r.other, r.otherLowerBound)} (${ratio(r.ratio)}${r.thisLowerBound || r.otherLowerBound ? ', one side cut short' : ''})`,
    ),
    ratio(row.medianRatio),
  ]);
  return table(headers, rows);
}

/** What installing and building a target took before its run (nothing when up to date). */
function setupNotes(results) {
  const notes = [];
  for (const target of results.targets) {
    const { installSec, buildSec } = target.setup ?? {};
    const steps = [
      installSec != null ? `installed (npm ci) in ${fmt(installSec, 1)} s` : null,
      buildSec != null ? `built in ${fmt(buildSec, 1)} s` : null,
    ].filter(Boolean);
    if (steps.length) notes.push(`${target.label}: ${steps.join(', ')}, before its run.`);
  }
  return notes.join(' ');
}

/**
 * The handled-end-to-end table: handled/s over load + drain, its ratios to the peer and to the
 * reference when they ran, the two parts of the window, and CPU per handled event.
 */
function handledTable(results) {
  const rows = results.targets.filter((target) => target.scenarios.handled);
  if (!rows.length) return [];
  const has = (id) => rows.some((target) => target.id === id && !target.scenarios.handled.error);
  const bases = [
    ...(has('peer') ? [['peer', 'ratioToPeer', 'Ratio to the peer']] : []),
    ...(has('reference') ? [['reference', 'ratioToReference', 'Ratio to the reference']] : []),
  ];
  const s = results.settings;
  const body = rows.map((target) => {
    const r = target.scenarios.handled;
    const label = rowLabel(results, target);
    if (r.error) return errorRow(label, r.error, 9, bases.length);
    const ratios = bases.map(([id, key]) =>
      target.id === id
        ? `1.00× (${id === 'peer' ? 'peer' : 'ref'})`
        : r[key] === undefined
          ? '–'
          : `${r.lowerBound ? '> ' : ''}${ratio(r[key])}`,
    );
    const unsettled = r.handler?.backlogLeft ?? null;
    const drain = r.handledInRequest
      ? '0 (in the request)'
      : r.lowerBound
        ? `> ${fmt(r.drainSec, 1)} (${unsettled === null ? 'rows still arriving' : `${fmt(unsettled)} not settled`})`
        : fmt(r.drainSec, 2);
    return [
      label,
      r.handledInRequest ? `${handledText(r)} (= acks/s)` : handledText(r),
      ...ratios,
      fmt(r.loadSec, 2),
      drain,
      fmt(r.acksPerSec),
      fmt(r.rows),
      storedCell(r),
      r.handledInRequest
        ? 'in the request'
        : `${fmt(r.handler?.handled)}${r.handlerRunsCheck?.ok === false ? ' ✗' : ''}`,
      ...lagCells(r).slice(1),
      cpuCell(r.cpu, 'appMsPerUnit'),
      cpuCell(r.cpu, 'dbMsPerUnit'),
    ];
  });
  return [
    '',
    `### Handled end to end: unique events, closed loop (wrk -t${s.wrk.threads} -c${s.wrk.connections}, ${s.durationSec} s), then the drain`,
    '',
    table(
      [
        'Target',
        'Handled/s',
        ...bases.map(([, , header]) => header),
        'Load s',
        'Drain s',
        'Acks/s',
        'Rows',
        'Stored vs acked',
        'Handler runs',
        'Lag p99 ms',
        'App CPU ms/handled',
        'PostgreSQL CPU ms/handled',
      ],
      body,
    ),
    '',
    `Handled/s: stored events ÷ (load + drain seconds), the drain lasting until the dispatcher has settled every stored event (at most ${fmt(s.drainLimitSec)} s; "> " marks a lower bound, counting only the events settled by then). ` +
      'The reference and the peer have no inbox: their handler runs inside the request, so their handled/s is their acks/s under the same load, with no drain. ' +
      'CPU (user + system, from /proc) is over the whole load + drain window.',
  ];
}

/** The drain table of `name` (`drain`, or `drainPrefilled` with `heading` saying so). */
function drainTable(results, name, heading) {
  const drains = results.targets.filter((target) => target.scenarios[name]);
  if (!drains.length) return [];
  return [
    '',
    `### Dispatcher drain, no-op handler (dispatch concurrency: ${results.settings.dispatchConcurrency})${heading}`,
    '',
    table(
      [
        'Target',
        'Backlog',
        'Handler starts/s',
        'Backlog empty after s',
        'Handler runs',
        'WAL bytes/event stored · drained',
      ],
      drains.map((target) => {
        const r = target.scenarios[name];
        if (r.error) return errorRow(rowLabel(results, target), r.error, 4);
        return [
          rowLabel(results, target),
          fmt(r.backlog),
          fmt(r.eventsPerSec),
          r.wallSec === null
            ? `not within the limit (${fmt(r.backlogLeft)} left)`
            : fmt(r.wallSec, 1),
          `${fmt(r.handled)}${r.handlerRunsCheck?.ok === false ? ' ✗' : ''}`,
          r.wal ? `${fmt(r.wal.bytesPerStoredEvent)} · ${fmt(r.wal.bytesPerDrainedEvent)}` : '–',
        ];
      }),
    ),
  ];
}

function markdown(results) {
  const s = results.settings;
  const out = [];
  const m = results.machine;
  out.push(
    `## Benchmark results (${results.mode}, ${results.startedAt.slice(0, 16).replace('T', ' ')} UTC)`,
  );
  out.push('');
  out.push(
    `Machine: ${m.nproc} CPUs (${m.cpuModel}), ${fmt(m.memoryGiB, 1)} GiB, ${m.os}; Node ${m.node}; ` +
      `PostgreSQL ${m.postgres?.version ?? '–'} (synchronous_commit=${m.postgres?.synchronousCommit ?? '–'}, ` +
      `autovacuum=${m.postgres?.autovacuum ?? '–'}); ` +
      `SQLite ${m.sqlite ?? '–'}; ${m.wrk}. Load generators on the same machine` +
      `${s.pinned ? ' (targets pinned to CPU 0, generators to CPU 1)' : ', nothing pinned'}. ` +
      `Load average ${m.loadAverageAtStart.join(' ')} at start, ${m.loadAverageAtEnd.join(' ')} at end.`,
  );
  const setups = setupNotes(results);
  if (setups) {
    out.push('');
    out.push(setups);
  }
  if (results.mode === 'long') {
    const l = results.long;
    const m = l?.memory;
    if (m) {
      out.push('');
      out.push(
        `### Memory over ${fmt(l.load.durationSec / 60, 1)} minutes at ${fmt(s.fixedRatePerSec)} req/s (open loop)`,
      );
      out.push('');
      out.push(
        table(
          [
            'Target',
            'RSS first / at 1 min / last / max MiB',
            'RSS median, minute 2 → last minute MiB',
            'Heap after full GC, median 1st → 2nd half MiB',
            'Acks/s',
            'p99 ms',
            'Worst 10 s p99 ms',
            'max ms',
            'Non-2xx',
            'Stored vs acked',
            'Lag p50 ms',
            'Lag p99 ms',
          ],
          [
            [
              l.label,
              [m.rssMiB.first, m.rssMiB.atOneMinute, m.rssMiB.last, m.rssMiB.max]
                .map((v) => fmt(v, 1))
                .join(' / '),
              `${fmt(m.rssMiB.medianSecondMinute, 1)} → ${fmt(m.rssMiB.medianLastMinute, 1)}`,
              `${fmt(m.heapAfterFullGcMiB.firstHalf, 1)} → ${fmt(m.heapAfterFullGcMiB.secondHalf, 1)}`,
              fmt(l.load.acksPerSec),
              ms(l.load.latencyMs.p99),
              worstWindow(l.load),
              ms(l.load.latencyMs.max),
              fmt(l.load.non2xx + l.load.socketErrors),
              storedCell(l.load),
              ...lagCells(l.load),
            ],
          ],
        ),
      );
    }
  } else {
    out.push('');
    out.push(
      `### Throughput: unique events, closed loop (wrk -t${s.wrk.threads} -c${s.wrk.connections}, ${s.durationSec} s)`,
    );
    out.push('');
    out.push(throughputTable(results, 'throughput'));
    out.push('');
    out.push(`### Throughput with 30 % exact re-deliveries (same wrk settings)`);
    out.push('');
    out.push(throughputTable(results, 'redelivery'));
    out.push('');
    out.push(
      `### Fixed ${fmt(s.fixedRatePerSec)} requests/s offered (open loop, ${s.durationSec} s)`,
    );
    out.push('');
    out.push(fixedRateTable(results, 'fixedRate'));
    out.push(...drainTable(results, 'drain', ''));
    out.push(...handledTable(results));
    if (results.targets.some((target) => target.scenarios.throughput?.cpu)) {
      out.push('');
      out.push('### CPU per unit of work (user + system, from /proc)');
      out.push('');
      out.push(cpuTable(results));
    }
    const slows = results.targets.filter((target) => target.scenarios.slowHandler);
    if (slows.length) {
      out.push('');
      out.push(
        `### ${s.handlerMs} ms handler at ${fmt(s.fixedRatePerSec)} requests/s (ack latency vs the no-op handler)`,
      );
      out.push('');
      out.push(
        table(
          [
            'Target',
            'p50 ms',
            'p99 ms',
            'max ms',
            'No-op p50 ms',
            'No-op p99 ms',
            'Non-2xx',
            'Stored vs acked',
            'Handler runs started',
          ],
          slows.map((target) => {
            const r = target.scenarios.slowHandler;
            if (r.error) return errorRow(rowLabel(results, target), r.error, 7);
            const noop = target.scenarios.fixedRate;
            return [
              rowLabel(results, target),
              ms(r.latencyMs.p50),
              ms(r.latencyMs.p99),
              ms(r.latencyMs.max),
              ms(noop?.latencyMs?.p50),
              ms(noop?.latencyMs?.p99),
              fmt(r.non2xx + r.socketErrors),
              storedCell(r),
              fmt(r.handler?.handled),
            ];
          }),
        ),
      );
    }
    if (s.prefillRows > 0) {
      out.push('');
      out.push(`### With ${fmt(s.prefillRows)} processed rows already in the inbox`);
      out.push('');
      out.push(throughputTable(results, 'throughputPrefilled'));
      out.push('');
      out.push(fixedRateTable(results, 'fixedRatePrefilled'));
      out.push(
        ...drainTable(results, 'drainPrefilled', `, with ${fmt(s.prefillRows)} rows in the inbox`),
      );
    }
  }
  if (results.vs?.rows) {
    const v = results.vs;
    out.push('');
    out.push(`### Side by side: this checkout vs ${v.revision}`);
    out.push('');
    out.push(
      `${v.revision} is ${v.short}, run from ${v.worktree}. Rounds ran this checkout, then ${v.short}, ` +
        `target by target, each with a fresh database; each round's ratio is this ÷ ${v.short}.` +
        (v.lockFileDiffers
          ? ` Its package-lock.json differs from this checkout's; both ran on this checkout's node_modules.`
          : ''),
    );
    out.push('');
    out.push(v.rows.length ? sideBySideTable(results) : 'No figure of either side to compare.');
  }
  if (results.goals.length) {
    out.push('');
    out.push((s.rounds ?? 1) > 1 ? '### Targets (this checkout, round 1)' : '### Targets');
    out.push('');
    out.push(
      table(
        ['Goal', 'Target', 'Measured', 'Met'],
        results.goals.map((g) => [
          g.goal,
          g.target,
          g.measured,
          g.met === null ? '–' : g.met ? 'yes' : 'no',
        ]),
      ),
    );
  }
  const failed = results.checks.filter((check) => !check.ok);
  out.push('');
  out.push(
    failed.length === 0 && results.failures.length === 0
      ? `All ${results.checks.length} checks passed (numbers produced, stored = acknowledged, one handler run per event).`
      : `**${failed.length} of ${results.checks.length} checks failed:**\n\n${failed.map((c) => `- ${c.name}: ${String(c.detail).split('\n')[0]}`).join('\n')}`,
  );
  return out.join('\n');
}

module.exports = { oneLine, addRatios, checks, goals, longGoals, markdown, sideBySide, median };
