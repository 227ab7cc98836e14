// @ts-check
// The last hour's charts, drawn as SVG from this process's activity: deliveries per minute by
// decision, and handler latency per minute.
import { activity } from './admin-api.js';
import { byId, el, plural, time } from './dom.js';

/** @typedef {import('./admin-api.js').ActivityMinute} ActivityMinute */

const SVG = 'http://www.w3.org/2000/svg';
/** The deliveries chart's bars, bottom to top. */
export const SERIES = ['accepted', 'duplicate', 'ignored', 'refused', 'failed'];

/**
 * An SVG element; its children are text nodes or elements.
 * @param {string} tag
 * @param {Record<string, string | number>} attributes
 * @param {...(Node | string)} children
 */
function svg(tag, attributes, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  node.append(...children);
  return node;
}

/**
 * Gives `node` the tooltip `text`.
 * @param {Element} node
 * @param {string} text
 */
function titled(node, text) {
  node.append(svg('title', {}, text));
  return node;
}

/**
 * Which bar of the deliveries chart a decision counts in.
 * @param {string} decision
 */
function seriesOf(decision) {
  if (decision === 'accepted' || decision === 'duplicate') return decision;
  if (decision === 'ignored' || decision === 'skipped') return 'ignored';
  if (decision === 'store_failed') return 'failed';
  return 'refused';
}

/**
 * A chart's frame: its scale, gridlines and labels; `x(index)` and `y(value)` give its
 * coordinates, `slot` the width of one minute.
 * @param {number} top the largest value shown
 * @param {string} unit
 * @param {number} count how many minutes
 */
function frame(top, unit, count) {
  const width = 640;
  const height = 200;
  const left = 48;
  const bottom = 22;
  const max = top > 0 ? niceMax(top) : 1;
  const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'plot' });
  /** @param {number} index */
  const x = (index) => left + ((width - left - 4) * index) / count;
  /** @param {number} value */
  const y = (value) => 4 + (height - bottom - 4) * (1 - value / max);
  for (const value of [0, max / 2, max]) {
    root.append(
      svg('line', { x1: left, x2: width - 4, y1: y(value), y2: y(value), class: 'grid' }),
      svg('text', { x: left - 6, y: y(value) + 4, class: 'axis end' }, `${round(value)}${unit}`),
    );
  }
  // NOTE: "now" sits at the right edge: anchored at its end, it stays inside the chart.
  /** @type {[number, string, string][]} */
  const labels = [
    [0, `-${count} min`, 'middle'],
    [count / 2, `-${count / 2} min`, 'middle'],
    [count, 'now', 'end'],
  ];
  for (const [index, label, anchor] of labels) {
    root.append(svg('text', { x: x(index), y: height - 6, class: `axis ${anchor}` }, label));
  }
  return { root, x, y, slot: (width - left - 4) / count };
}

/**
 * The scale's top: 1, 2 or 5 times a power of ten, at least `value`.
 * @param {number} value
 */
function niceMax(value) {
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((factor) => factor * power >= value) ?? 10;
  return step * power;
}

/** @param {number} value */
function round(value) {
  return value >= 10 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
}

/** @param {ActivityMinute} minute */
function minuteLabel(minute) {
  return time(minute.start).slice(11, 16);
}

/** @param {readonly ActivityMinute[]} minutes */
function deliveriesChart(minutes) {
  const stacks = minutes.map((minute) => {
    /** @type {Record<string, number>} */
    const stack = Object.fromEntries(SERIES.map((name) => [name, 0]));
    for (const [decision, count] of Object.entries(minute.deliveries)) {
      stack[seriesOf(decision)] += count;
    }
    return stack;
  });
  const totals = stacks.map((stack) => SERIES.reduce((sum, name) => sum + stack[name], 0));
  const chart = frame(Math.max(...totals), '', minutes.length);
  stacks.forEach((stack, index) => {
    if (totals[index] === 0) return;
    const group = svg('g', {});
    let base = 0;
    for (const name of SERIES) {
      if (stack[name] === 0) continue;
      const top = chart.y(base + stack[name]);
      group.append(
        svg('rect', {
          x: chart.x(index) + 1,
          y: top,
          width: Math.max(1, chart.slot - 2),
          height: chart.y(base) - top,
          class: `bar series-${name}`,
        }),
      );
      base += stack[name];
    }
    const minute = minutes[index];
    const parts = Object.entries(minute.deliveries).map(([d, count]) => `${count} ${d}`);
    const answer = minute.answerMs ? `; answered in p95 ${minute.answerMs.p95} ms` : '';
    chart.root.append(titled(group, `${minuteLabel(minute)}: ${parts.join(', ')}${answer}`));
  });
  return chart.root;
}

/** @param {readonly ActivityMinute[]} minutes */
function latencyChart(minutes) {
  const top = Math.max(0, ...minutes.map((minute) => minute.handlerMs?.p95 ?? 0));
  const chart = frame(top, ' ms', minutes.length);
  for (const name of /** @type {const} */ (['p50', 'p95'])) {
    /** @type {string[]} */
    let points = [];
    const flush = () => {
      if (points.length > 1) {
        chart.root.append(svg('polyline', { points: points.join(' '), class: `line ${name}` }));
      }
      points = [];
    };
    minutes.forEach((minute, index) => {
      const value = minute.handlerMs?.[name];
      if (value === undefined) return flush();
      const cx = chart.x(index) + chart.slot / 2;
      points.push(`${cx},${chart.y(value)}`);
      const dot = svg('circle', { cx, cy: chart.y(value), r: 2.5, class: `dot ${name}` });
      const runs = `${plural(minute.handlerRuns, 'run')}, ${minute.handlerFailures} failed`;
      chart.root.append(titled(dot, `${minuteLabel(minute)}: ${name} ${value} ms (${runs})`));
    });
    flush();
  }
  return chart.root;
}

/**
 * Fills a chart's legend with a swatch per series.
 * @param {string} id
 * @param {readonly string[]} names
 */
export function legend(id, names) {
  byId(id).replaceChildren(
    ...names.map((name) => el('span', 'key', el('span', `swatch series-${name}`), name)),
  );
}

export async function loadActivity() {
  const { minutes, recordingSince } = await activity();
  byId('deliveries-chart').replaceChildren(deliveriesChart(minutes));
  byId('latency-chart').replaceChildren(latencyChart(minutes));
  byId('activity-scope').textContent =
    'What this process answered and ran (per process: other instances, and BullMQ workers ' +
    `elsewhere, count their own), recorded since ${time(recordingSince)}.`;
}
