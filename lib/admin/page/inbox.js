// @ts-check
// The inbox page of nestjs-payment-webhooks: plain browser JavaScript over the admin routes.
// Every text from the inbox goes into the page as text (textContent, text nodes), never as HTML;
// every change is a same-origin fetch POST with Content-Type: application/json.
'use strict';

(() => {
  /** The admin routes' path: the page is `{admin}/inbox`. */
  const BASE = location.pathname.replace(/\/inbox\/?$/, '');
  const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const SVG = 'http://www.w3.org/2000/svg';
  const REFRESH_MS = 10_000;
  const SERIES = ['accepted', 'duplicate', 'ignored', 'refused', 'failed'];
  const byId = (id) => document.getElementById(id);

  // ---- requests -------------------------------------------------------------------------

  /** GET `path` under the admin routes, or POST `body` as JSON; the answer's JSON. */
  async function api(path, body) {
    /** @type {RequestInit & { headers: Record<string, string> }} */
    const init = { credentials: 'same-origin', headers: { accept: 'application/json' } };
    if (body !== undefined) {
      init.method = 'POST';
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(`${BASE}/${path}`, init);
    const text = await response.text();
    let value = null;
    try {
      value = text === '' ? null : JSON.parse(text);
    } catch {
      value = null;
    }
    if (!response.ok) {
      const why = value && typeof value.message === 'string' ? value.message : response.statusText;
      throw new Error(`${response.status}: ${why}`);
    }
    return value;
  }

  function query(values) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(values)) {
      if (value !== undefined && value !== null && value !== '') params.set(key, value);
    }
    return params.toString();
  }

  // ---- building the page ----------------------------------------------------------------

  /** An element with a class and children; strings become text nodes. */
  function el(tag, className, ...children) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    node.append(...children.filter((child) => child !== null && child !== undefined));
    return node;
  }

  function button(label, onClick, className) {
    const node = el('button', className, label);
    node.type = 'button';
    node.addEventListener('click', onClick);
    return node;
  }

  function row(cells) {
    return el('tr', '', ...cells.map((cell) => (cell instanceof Node ? cell : el('td', '', cell))));
  }

  function say(message, isError) {
    const status = byId('status');
    status.textContent = message;
    status.classList.toggle('error', Boolean(isError));
  }

  /** Runs `work`, its error said on the status line. */
  async function guarded(work) {
    try {
      return await work();
    } catch (error) {
      say(error instanceof Error ? error.message : String(error), true);
      return undefined;
    }
  }

  function time(iso) {
    if (!iso) return '';
    const date = new Date(iso);
    const pad = (n) => String(n).padStart(2, '0');
    return (
      `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ` +
      `${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`
    );
  }

  function ago(iso) {
    const seconds = Math.max(0, Math.round((Date.now() - new Date(iso).getTime()) / 1000));
    if (seconds < 90) return `${seconds} s ago`;
    if (seconds < 5400) return `${Math.round(seconds / 60)} min ago`;
    if (seconds < 172800) return `${Math.round(seconds / 3600)} h ago`;
    return `${Math.round(seconds / 86400)} d ago`;
  }

  function timeCell(iso) {
    const cell = el('td', '', iso ? ago(iso) : '');
    cell.title = time(iso);
    return cell;
  }

  function firstLine(text) {
    return text ? String(text).split('\n')[0] : '';
  }

  function plural(count, word) {
    return `${count} ${word}${count === 1 ? '' : 's'}`;
  }

  // ---- the confirmation -----------------------------------------------------------------

  /**
   * Asks before a change: resolves to the reason typed (or '' when none is asked for), or to
   * null when canceled.
   * @param {{ title: string, text: string, sample?: string[], action: string,
   *   reason?: 'required' | 'optional' }} question
   * @returns {Promise<string | null>}
   */
  function confirmAction({ title, text, sample, action, reason }) {
    const dialog = /** @type {HTMLDialogElement} */ (byId('confirm'));
    const input = /** @type {HTMLInputElement} */ (byId('confirm-reason'));
    const ok = /** @type {HTMLButtonElement} */ (byId('confirm-ok'));
    byId('confirm-title').textContent = title;
    byId('confirm-text').textContent = text;
    byId('confirm-sample').replaceChildren(...(sample ?? []).map((id) => el('li', '', id)));
    byId('confirm-reason-label').hidden = !reason;
    input.value = '';
    ok.textContent = action;
    const check = () => (ok.disabled = reason === 'required' && input.value.trim() === '');
    check();
    input.oninput = check;
    return new Promise((resolve) => {
      const finish = (value) => {
        dialog.onclose = null;
        if (dialog.open) dialog.close();
        resolve(value);
      };
      ok.onclick = () => finish(reason ? input.value.trim() : '');
      byId('confirm-cancel').onclick = () => finish(null);
      dialog.onclose = () => finish(null);
      dialog.showModal();
      (reason ? input : ok).focus();
    });
  }

  // ---- failure groups -------------------------------------------------------------------

  /** The event filter of one failure group, dead and retrying alike. */
  function groupFilter(group) {
    return {
      endpoint: group.endpoint,
      handler: group.handlerKey ?? undefined,
      fingerprint: group.fingerprint,
      status: 'dead,retrying',
    };
  }

  /** A group's error: the first line of its latest one, which begins with its class. */
  function errorOf(group) {
    return firstLine(group.sampleError) || group.errorClass || 'Error';
  }

  function describeGroup(group) {
    return (
      `Endpoint ${group.endpoint}, handler ${group.handlerKey ?? '(before the handlers)'}: ` +
      errorOf(group)
    );
  }

  async function replayGroup(group) {
    const filter = query(groupFilter(group));
    const dry = await api(`replay?${filter}&dryRun=true`, {});
    const answer = await confirmAction({
      title: `Replay ${plural(dry.wouldReplay, 'event')}?`,
      text:
        `${describeGroup(group)}. A replayed event runs only the handlers not already in ` +
        'its ledger. The first of them:',
      sample: dry.sample,
      action: `Replay ${plural(dry.wouldReplay, 'event')}`,
    });
    if (answer === null) return;
    const job = await api(`replays?${filter}`, {});
    await followReplay(job);
  }

  /** Follows a replay in the background until it is done, then shows what changed. */
  async function followReplay(job) {
    let current = job;
    while (current.status === 'running') {
      const failed = current.error
        ? ` (its last batch failed and is tried again: ${current.error})`
        : '';
      say(`Replaying: ${current.replayed} of ${plural(current.total, 'event')} put back${failed}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
      current = await api(`replays/${encodeURIComponent(current.id)}`);
    }
    say(`Replay ${current.status}: ${plural(current.replayed, 'event')} put back`);
    await refreshAll();
    // NOTE: the handlers run once the events are back; look again when they have had a moment.
    setTimeout(() => void refreshAll(), 2000);
  }

  async function discardGroup(group) {
    const filter = query(groupFilter(group));
    const dry = await api(`discard?${filter}`, { reason: 'dry run', dryRun: true });
    const reason = await confirmAction({
      title: `Discard ${plural(dry.wouldDiscard, 'event')}?`,
      text:
        `${describeGroup(group)}. They are settled as ignored without running; the reason ` +
        'is kept in their history.',
      action: `Discard ${plural(dry.wouldDiscard, 'event')}`,
      reason: 'required',
    });
    if (reason === null) return;
    const done = await api(`discard?${filter}`, { reason });
    say(`Discarded ${plural(done.discarded, 'event')}`);
    await refreshAll();
  }

  async function pauseScope(scope) {
    const what = `handler ${scope.handler || '(every)'} on endpoint ${scope.endpoint || '(every)'}`;
    const reason = await confirmAction({
      title: `Pause ${what}?`,
      text:
        'Deliveries are still verified, stored and answered; the handlers held do not run, ' +
        'and spend no attempt, until resumed. Every instance sees it within a second.',
      action: 'Pause',
      reason: 'optional',
    });
    if (reason === null) return;
    const done = await api('pause', { ...scope, reason: reason || undefined });
    say(done.paused ? `Paused ${what}` : `${what} was paused already`);
    await refreshAll();
  }

  function groupRow(group) {
    const error = el('td', 'error-cell', errorOf(group));
    error.title = group.sampleError ?? '';
    const actions = el(
      'td',
      'actions',
      button('Replay', () => void guarded(() => replayGroup(group))),
      button('Discard', () => void guarded(() => discardGroup(group))),
      button(
        'Pause',
        () =>
          void guarded(() =>
            pauseScope({ endpoint: group.endpoint, handler: group.handlerKey ?? undefined }),
          ),
      ),
    );
    return row([
      String(group.count),
      String(group.dead),
      group.endpoint,
      group.handlerKey ?? '(before the handlers)',
      error,
      timeCell(group.firstSeen),
      timeCell(group.lastSeen),
      actions,
    ]);
  }

  async function loadGroups() {
    const groups = await api('groups?limit=100');
    byId('groups-body').replaceChildren(...groups.map(groupRow));
    byId('groups-empty').hidden = groups.length > 0;
  }

  // ---- pauses ---------------------------------------------------------------------------

  async function resume(pause) {
    const answer = await confirmAction({
      title: `Resume handler ${pause.handler} on endpoint ${pause.endpoint}?`,
      text: 'The events it held run now.',
      action: 'Resume',
    });
    if (answer === null) return;
    const done = await api('resume', { endpoint: pause.endpoint, handler: pause.handler });
    say(`Resumed: ${plural(done.resumed, 'held event')} due now`);
    await refreshAll();
  }

  async function loadPauses() {
    const pauses = await api('pauses');
    byId('pauses-body').replaceChildren(
      ...pauses.map((pause) =>
        row([
          pause.endpoint === '*' ? '(every)' : pause.endpoint,
          pause.handler === '*' ? '(every)' : pause.handler,
          timeCell(pause.pausedAt),
          pause.pausedBy ?? '',
          pause.reason ?? '',
          el(
            'td',
            'actions',
            button('Resume', () => void guarded(() => resume(pause))),
          ),
        ]),
      ),
    );
    byId('pauses-empty').hidden = pauses.length > 0;
  }

  // ---- events and their timeline ----------------------------------------------------------

  /**
   * Whether the event waits on a pause of dispatch: the store parks it at the far future
   * (PARKED_UNTIL in lib/store/webhook-event-status.ts), as the CLI reads it too.
   */
  function isParked(event) {
    return typeof event.nextAttemptAt === 'string' && event.nextAttemptAt.startsWith('9999-12-31');
  }

  /** The event's status as the CLI prints it: `pending (paused)` for one held by a pause. */
  function statusText(event) {
    return isParked(event) ? `${event.status} (paused)` : event.status;
  }

  function eventRow(event) {
    const tr = row([
      timeCell(event.receivedAt),
      event.endpoint + (event.tenant ? ` (${event.tenant})` : ''),
      event.type,
      el('td', '', el('span', `badge status-${event.status}`, statusText(event))),
      String(event.attempts),
      event.eventId,
      firstLine(event.lastError),
    ]);
    tr.className = 'clickable';
    tr.tabIndex = 0;
    tr.dataset.id = event.id;
    const open = () => void guarded(() => showEvent(event.id));
    tr.addEventListener('click', open);
    tr.addEventListener('keydown', (key) => key.key === 'Enter' && open());
    return tr;
  }

  function renderEvents(events) {
    byId('events-body').replaceChildren(...events.map(eventRow));
    byId('events-empty').hidden = events.length > 0;
  }

  async function loadEvents() {
    const form = new FormData(/** @type {HTMLFormElement} */ (byId('filter-form')));
    const values = Object.fromEntries(
      [...form.entries()].map(([key, v]) => [key, String(v).trim()]),
    );
    renderEvents(await api(`events?${query({ ...values, limit: 100 })}`));
  }

  async function search(text) {
    if (UUID.test(text)) {
      await showEvent(text);
      return;
    }
    const events = await api(`events?${query({ eventId: text, limit: 100 })}`);
    renderEvents(events);
    if (events.length === 1) await showEvent(events[0].id);
    else say(events.length === 0 ? `No event ${text}` : `${events.length} events ${text}`);
  }

  function fact(list, name, value) {
    if (value === null || value === undefined || value === '') return;
    list.append(el('dt', '', name), el('dd', '', String(value)));
  }

  function renderFacts(event) {
    const list = byId('event-facts');
    list.replaceChildren();
    fact(list, 'Inbox id', event.id);
    fact(list, 'Provider event id', event.eventId);
    fact(list, 'Endpoint', event.endpoint + (event.tenant ? `, tenant ${event.tenant}` : ''));
    fact(list, 'Type', `${event.type} (${event.provider} ${event.nativeType})`);
    fact(list, 'Status', statusText(event));
    fact(list, 'Attempts', event.attempts);
    fact(list, 'Payment', event.paymentRef);
    fact(list, 'Order', event.merchantRef);
    if (event.amount !== null) {
      fact(list, 'Amount', `${event.amount} ${event.currency ?? ''} (minor units)`);
    }
    fact(list, 'Outcome', event.outcome);
    fact(list, 'Received', time(event.receivedAt));
    fact(
      list,
      'Next attempt',
      isParked(event) ? 'when dispatch is resumed' : time(event.nextAttemptAt),
    );
  }

  /** One timeline entry per delivery, failed attempt, handler run, replay and settlement. */
  function timelineOf(event, handlerRuns, history) {
    const entries = [
      {
        at: event.receivedAt,
        kind: 'delivery',
        title: `Received; delivered ${plural(event.deliveryCount, 'time')} by the provider`,
      },
      ...history.map((entry) => historyEntry(entry)),
      ...handlerRuns.map((run) => ({
        at: run.finishedAt,
        kind: 'run',
        title:
          `Handler ${run.handlerKey} succeeded on attempt ${run.attempt}` +
          (run.outcome ? ` (${run.outcome})` : ''),
      })),
    ];
    if (event.processedAt)
      entries.push({ at: event.processedAt, kind: 'settle', title: 'Processed' });
    return entries.sort((a, b) => new Date(a.at).getTime() - new Date(b.at).getTime());
  }

  function historyEntry(entry) {
    const by = entry.actor ? ` by ${entry.actor}` : '';
    if (entry.kind === 'attempt') {
      return {
        at: entry.at,
        kind: 'attempt',
        title:
          `Attempt ${entry.attempt} failed in ${entry.handlerKey ?? 'the event, before its handlers'}: ` +
          `${entry.outcome}`,
        error: entry.error,
        meta: [
          entry.worker && `worker ${entry.worker}`,
          entry.fingerprint && `group ${entry.fingerprint}`,
        ]
          .filter(Boolean)
          .join(', '),
      };
    }
    if (entry.kind === 'replay') {
      return {
        at: entry.at,
        kind: 'replay',
        title: `Replayed${by}, from ${entry.outcome}`,
        meta: entry.detail ?? '',
      };
    }
    return {
      at: entry.at,
      kind: 'settle',
      title: `Settled by hand as ${entry.outcome}${by}`,
      meta: entry.detail ?? '',
    };
  }

  function timelineItem(entry) {
    const item = el(
      'li',
      `entry entry-${entry.kind}`,
      el('time', '', time(entry.at)),
      el('strong', '', entry.title),
    );
    if (entry.error) item.append(el('pre', 'error-text', entry.error));
    if (entry.meta) item.append(el('p', 'meta', entry.meta));
    return item;
  }

  async function showEvent(id) {
    // NOTE: without include=body: the body and headers are fetched when "Show body" is clicked.
    const { event, handlerRuns, history } = await api(`events/${encodeURIComponent(id)}`);
    const section = byId('event');
    section.dataset.id = event.id;
    byId('event-title').textContent = `Event ${event.eventId}`;
    renderFacts(event);
    byId('timeline').replaceChildren(...timelineOf(event, handlerRuns, history).map(timelineItem));
    byId('payload').hidden = true;
    byId('show-body').textContent = 'Show body';
    section.hidden = false;
    section.scrollIntoView({ block: 'start' });
  }

  async function toggleBody() {
    const payload = byId('payload');
    if (!payload.hidden) {
      payload.hidden = true;
      byId('show-body').textContent = 'Show body';
      return;
    }
    const id = encodeURIComponent(byId('event').dataset.id);
    const { event } = await api(`events/${id}?include=body`);
    byId('payload-headers').replaceChildren(
      ...Object.entries(event.headers ?? {}).map(([name, value]) => row([name, value])),
    );
    byId('payload-note').textContent = event.rawBodyTruncated
      ? `The first ${event.rawBody.length} of ${event.rawBodyLength} characters`
      : `${event.rawBodyLength} characters`;
    byId('payload-body').textContent = event.rawBody;
    payload.hidden = false;
    byId('show-body').textContent = 'Hide body';
  }

  // ---- charts -----------------------------------------------------------------------------

  function svg(tag, attributes, ...children) {
    const node = document.createElementNS(SVG, tag);
    for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
    node.append(...children);
    return node;
  }

  function titled(node, text) {
    node.append(svg('title', {}, text));
    return node;
  }

  /** Which bar of the deliveries chart a decision counts in. */
  function seriesOf(decision) {
    if (decision === 'accepted' || decision === 'duplicate') return decision;
    if (decision === 'ignored' || decision === 'skipped') return 'ignored';
    if (decision === 'store_failed') return 'failed';
    return 'refused';
  }

  /** A chart's frame: its scale, gridlines and labels; `plot(x, y)` gives its coordinates. */
  function frame(top, unit, count) {
    const width = 640;
    const height = 200;
    const left = 48;
    const bottom = 22;
    const max = top > 0 ? niceMax(top) : 1;
    const root = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'plot' });
    const x = (index) => left + ((width - left - 4) * index) / count;
    const y = (value) => 4 + (height - bottom - 4) * (1 - value / max);
    for (const value of [0, max / 2, max]) {
      root.append(
        svg('line', { x1: left, x2: width - 4, y1: y(value), y2: y(value), class: 'grid' }),
        svg('text', { x: left - 6, y: y(value) + 4, class: 'axis end' }, `${round(value)}${unit}`),
      );
    }
    // NOTE: "now" sits at the right edge: anchored at its end, it stays inside the chart.
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

  function niceMax(value) {
    const power = 10 ** Math.floor(Math.log10(value));
    const step = [1, 2, 5, 10].find((factor) => factor * power >= value);
    return step * power;
  }

  function round(value) {
    return value >= 10 ? String(Math.round(value)) : String(Math.round(value * 10) / 10);
  }

  function minuteLabel(minute) {
    return time(minute.start).slice(11, 16);
  }

  function deliveriesChart(minutes) {
    const stacks = minutes.map((minute) => {
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

  function latencyChart(minutes) {
    const top = Math.max(0, ...minutes.map((minute) => minute.handlerMs?.p95 ?? 0));
    const chart = frame(top, ' ms', minutes.length);
    for (const name of ['p50', 'p95']) {
      const pick = (minute) => minute.handlerMs?.[name];
      let points = [];
      const flush = () => {
        if (points.length > 1) {
          chart.root.append(svg('polyline', { points: points.join(' '), class: `line ${name}` }));
        }
        points = [];
      };
      minutes.forEach((minute, index) => {
        const value = pick(minute);
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

  function legend(id, names) {
    byId(id).replaceChildren(
      ...names.map((name) => el('span', 'key', el('span', `swatch series-${name}`), name)),
    );
  }

  async function loadActivity() {
    const activity = await api('activity');
    byId('deliveries-chart').replaceChildren(deliveriesChart(activity.minutes));
    byId('latency-chart').replaceChildren(latencyChart(activity.minutes));
    byId('activity-scope').textContent =
      'What this process answered and ran (per process: other instances, and BullMQ workers ' +
      `elsewhere, count their own), recorded since ${time(activity.recordingSince)}.`;
  }

  // ---- wiring -----------------------------------------------------------------------------

  let refreshing = null;

  function refreshAll() {
    refreshing ??= Promise.all([
      guarded(loadActivity),
      guarded(loadGroups),
      guarded(loadPauses),
      guarded(loadEvents),
    ]).finally(() => (refreshing = null));
    return refreshing;
  }

  function onSubmit(id, work) {
    byId(id).addEventListener('submit', (submit) => {
      submit.preventDefault();
      void guarded(() => work(new FormData(/** @type {HTMLFormElement} */ (submit.target))));
    });
  }

  onSubmit('filter-form', () => loadEvents());
  onSubmit('search-form', (form) => search(String(form.get('search')).trim()));
  onSubmit('pause-form', (form) =>
    pauseScope({
      endpoint: String(form.get('endpoint')).trim() || undefined,
      handler: String(form.get('handler')).trim() || undefined,
    }),
  );
  byId('filter-form').addEventListener('reset', () => setTimeout(() => void guarded(loadEvents)));
  byId('refresh').addEventListener('click', () => void refreshAll());
  byId('event-close').addEventListener('click', () => (byId('event').hidden = true));
  byId('show-body').addEventListener('click', () => void guarded(toggleBody));
  legend('deliveries-legend', SERIES);
  legend('latency-legend', ['p50', 'p95']);
  void refreshAll();
  setInterval(() => {
    void guarded(loadActivity);
    void guarded(loadGroups);
    void guarded(loadPauses);
  }, REFRESH_MS);
})();
