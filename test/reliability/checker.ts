import { ShopDatabase } from './databases';
import type { FaultCounts } from './faults';
import { EFFECTS_TABLE, ORDER_FAULTS_TABLE, TRANSITIONS_TABLE } from './probes';
import {
  AttemptRecord,
  FaultRecord,
  GaveUpRecord,
  LogRecord,
  MessageRecord,
} from './simulator-log';

/** The figures of one scenario. */
export interface Figures {
  /** Distinct valid events the providers sent. */
  sent: number;
  /** Valid deliveries, copies included (duplicates, concurrent re-deliveries). */
  deliveries: number;
  /** HTTP requests, retries and invalid deliveries included. */
  requests: number;
  /** Distinct valid events some attempt of which the provider counted as delivered. */
  acknowledged: number;
  /** Valid deliveries whose provider ran out of attempts. */
  gaveUp: number;
  /** Events in the inbox. */
  stored: number;
  /** Events processed at the end. */
  processed: number;
  /** Deliveries of an event already stored, absorbed by the unique key (Σ delivery_count − 1). */
  duplicatesAbsorbed: number;
  /** Invalid deliveries sent, and how many were refused with a 4xx. */
  invalidSent: number;
  invalidRefused: number;
  /** 503 answers (store unavailable) and attempts that timed out or found no server. */
  unavailable503: number;
  timeouts: number;
  /** Time to an answer (any status), 99th percentile and slowest, in ms. */
  answerP99Ms: number;
  answerMaxMs: number;
  connectionErrors: number;
  /** HTTP instances killed with SIGKILL and started again. */
  killsSurvived: number;
  /** Worker-only processes (BullMQ) killed with SIGKILL and started again. */
  workerKillsSurvived: number;
  /** PostgreSQL stops and connection cuts survived. */
  outagesSurvived: number;
  connectionCutsSurvived: number;
  /** Redis kills (each restarted empty) and `FLUSHALL`s survived. */
  redisRestartsSurvived: number;
  redisFlushesSurvived: number;
  /**
   * What the BullMQ sweepers put back on the queue: vanished jobs added again, and events of
   * stopped workers handed out as their next attempt (from the processes' logs).
   */
  readded: number;
  reclaimed: number;
  /** Slowest recovery after a PostgreSQL outage: first acknowledged delivery after restart, ms. */
  recoveryMs: number;
  /** Events dead before the fix (the marked subset), and replayed after it. */
  deadBeforeFix: number;
  replayed: number;
  /** Acknowledged events missing from the inbox. */
  lost: number;
  /** Effects applied more than once (extra effect rows, extra fulfilments). */
  duplicatedEffects: number;
  /** Order transitions that went backwards or sideways. */
  backwardTransitions: number;
  /** Stored rows that came from an invalid delivery. */
  invalidStored: number;
}

/** What the checker found: figures, every violation, and notes that are not violations. */
export interface CheckReport {
  readonly figures: Figures;
  readonly violations: string[];
  readonly notes: string[];
}

interface InboxRow {
  id: string;
  endpoint: string;
  event_id: string;
  merchant_ref: string | null;
  status: string;
  locked_by: string | null;
  delivery_count: number | string;
  body_sha256: string;
}

/** The order transitions the shop allows: never backwards. */
const FORWARD = new Set(['pending>paid', 'pending>canceled', 'paid>refunded']);
/** States only reached through `paid`, whose fulfilment ran once. */
const REACHED_PAID = new Set(['paid', 'refunded']);

/**
 * The states an order may end in, given the effects of its stored events: all of them were
 * processed, in an order the dispatcher chose (a cancel processed first keeps the order
 * canceled; a refund processed before the payment is refused).
 */
function possibleStates(effects: ReadonlySet<MessageRecord['effect']> = new Set()): Set<string> {
  const paid = effects.has('success');
  const canceled = effects.has('cancel');
  const refunded = effects.has('refund');
  const states = new Set<string>();
  if (paid) states.add('paid');
  if (paid && refunded) states.add('refunded');
  if (canceled) states.add('canceled');
  if (states.size === 0) states.add('pending');
  return states;
}

/** Most examples quoted per kind of violation. */
const EXAMPLES = 5;

const keyOf = (endpoint: string, eventId: string) => `${endpoint}/${eventId}`;

/**
 * Judges a scenario from the database and the simulator's own log. `beforeFix()` checks the
 * dead-letter state once everything settled; `final()` checks everything after the fix and the
 * replay.
 */
export class Checker {
  private readonly messages = new Map<number, MessageRecord>();
  private readonly attempts: AttemptRecord[] = [];
  private readonly gaveUp: GaveUpRecord[] = [];
  private readonly faults: FaultRecord[] = [];

  constructor(
    private readonly database: ShopDatabase,
    records: readonly LogRecord[],
  ) {
    for (const record of records) {
      if (record.type === 'message') this.messages.set(record.message, record);
      else if (record.type === 'attempt') this.attempts.push(record);
      else if (record.type === 'gave-up') this.gaveUp.push(record);
      else this.faults.push(record);
    }
  }

  /**
   * Before the fix: nothing is left to run, and exactly the marked orders' events are dead.
   * Resolves to the violations and the dead events' inbox ids.
   */
  async beforeFix(): Promise<{ violations: string[]; dead: string[] }> {
    const violations: string[] = [];
    const inbox = await this.inbox();
    const open = inbox.filter((row) => !['processed', 'ignored', 'dead'].includes(row.status));
    report(
      violations,
      open,
      (row) =>
        `${keyOf(row.endpoint, row.event_id)} still ${row.status}` +
        (row.locked_by ? ` (held by ${row.locked_by})` : ''),
      'events never settled',
    );
    const marked = new Set(
      (
        await this.database.query<{ order_id: string }>(
          `SELECT order_id FROM ${ORDER_FAULTS_TABLE} WHERE fault = 'marked'`,
        )
      ).map((row) => row.order_id),
    );
    const isMarked = (row: InboxRow) => row.merchant_ref !== null && marked.has(row.merchant_ref);
    const dead = inbox.filter((row) => row.status === 'dead');
    const wrongDead = dead.filter((row) => !isMarked(row));
    report(
      violations,
      wrongDead,
      (row) => keyOf(row.endpoint, row.event_id),
      'events dead that are not in the marked subset',
    );
    const markedAlive = inbox.filter((row) => isMarked(row) && row.status !== 'dead');
    report(
      violations,
      markedAlive,
      (row) => `${keyOf(row.endpoint, row.event_id)} is ${row.status}`,
      'marked events that are not dead before the fix',
    );
    if (marked.size > 0 && dead.length === 0 && inbox.some(isMarked)) {
      violations.push('no event is dead although marked orders have stored events');
    }
    return { violations, dead: dead.map((row) => row.id) };
  }

  /**
   * After the fix and the replay: every invariant, and the figures. `handlerPids`, when given,
   * are the only processes allowed to have applied effects (a BullMQ scenario's workers).
   */
  async final(
    deadBeforeFix: readonly string[],
    replayed: number,
    faults: FaultCounts,
    handlerPids?: ReadonlySet<number>,
  ): Promise<CheckReport> {
    const violations: string[] = [];
    const inbox = await this.inbox();
    const stored = new Map(inbox.map((row) => [keyOf(row.endpoint, row.event_id), row]));
    const valid = [...this.messages.values()].filter((message) => message.valid);
    const invalid = [...this.messages.values()].filter((message) => !message.valid);
    const acceptedMessages = new Set(this.attempts.filter((a) => a.accepted).map((a) => a.message));
    const endpointOf = (message: MessageRecord) => message.provider;
    const sent = new Set(valid.map((m) => keyOf(endpointOf(m), m.eventId)));
    const acknowledged = new Set(
      valid
        .filter((m) => acceptedMessages.has(m.message))
        .map((m) => keyOf(endpointOf(m), m.eventId)),
    );

    // Lost: acknowledged, not in the inbox.
    const lost = [...acknowledged].filter((key) => !stored.has(key));
    report(violations, lost, (key) => key, 'acknowledged events missing from the inbox (LOST)');

    // Settled: after the fix and the replay every stored event is processed.
    const unsettled = inbox.filter((row) => row.status !== 'processed');
    report(
      violations,
      unsettled,
      (row) => `${keyOf(row.endpoint, row.event_id)} is ${row.status}`,
      'events not processed after the fix and the replay',
    );

    // Effects: one probe row per event, exactly.
    const effects = await this.database.query<{
      inbox_id: string;
      n: number | string;
      pids: string;
    }>(
      `SELECT inbox_id, count(*) AS n, ${this.pidList()} AS pids FROM ${EFFECTS_TABLE} GROUP BY inbox_id`,
    );
    const effectCount = new Map(effects.map((row) => [row.inbox_id, Number(row.n)]));
    const inboxIds = new Set(inbox.map((row) => row.id));
    let duplicatedEffects = 0;
    const repeated = effects.filter((row) => Number(row.n) > 1);
    repeated.forEach((row) => (duplicatedEffects += Number(row.n) - 1));
    report(
      violations,
      repeated,
      (row) => `${row.inbox_id} ×${row.n}`,
      'handler effects applied more than once',
    );
    const missing = inbox.filter(
      (row) => row.status === 'processed' && effectCount.get(row.id) === undefined,
    );
    report(
      violations,
      missing,
      (row) => keyOf(row.endpoint, row.event_id),
      'processed events whose handler effect is missing',
    );
    const strays = effects.filter((row) => !inboxIds.has(row.inbox_id));
    report(
      violations,
      strays,
      (row) => row.inbox_id,
      'handler effects for events not in the inbox',
    );
    if (handlerPids) {
      const elsewhere = effects.filter((row) =>
        row.pids.split(',').some((pid) => !handlerPids.has(Number(pid))),
      );
      report(
        violations,
        elsewhere,
        (row) => `${row.inbox_id} by pid ${row.pids}`,
        'handler effects applied outside the worker processes',
      );
    }

    // Replay: the dead events ran exactly once after the fix.
    const replayedWrong = deadBeforeFix.filter((id) => effectCount.get(id) !== 1);
    report(
      violations,
      replayedWrong,
      (id) => `${id} ×${effectCount.get(id) ?? 0}`,
      'replayed events not processed exactly once',
    );
    if (replayed !== deadBeforeFix.length) {
      violations.push(
        `the replay put back ${replayed} event(s), but ${deadBeforeFix.length} were dead`,
      );
    }

    // Orders: fulfilment at most once, state never backwards, state matching the stored events.
    const orderFindings = await this.checkOrders(inbox, violations);
    duplicatedEffects += orderFindings.extraFulfilments;

    // Invalid deliveries: never stored, never answered 2xx or 5xx.
    const invalidIds = new Set(invalid.map((m) => keyOf(endpointOf(m), m.eventId)));
    const invalidBodies = new Set(invalid.map((m) => m.bodySha256));
    const invalidRows = inbox.filter(
      (row) =>
        invalidIds.has(keyOf(row.endpoint, row.event_id)) || invalidBodies.has(row.body_sha256),
    );
    report(
      violations,
      invalidRows,
      (row) => keyOf(row.endpoint, row.event_id),
      'rows stored from invalid deliveries',
    );
    const invalidMessages = new Set(invalid.map((m) => m.message));
    const invalidAnswers = this.attempts.filter(
      (a) => invalidMessages.has(a.message) && a.status !== null,
    );
    const badInvalid = invalidAnswers.filter((a) => a.status! < 400 || a.status! >= 500);
    report(
      violations,
      badInvalid,
      (a) => `${this.messages.get(a.message)!.label} answered ${a.status}`,
      'invalid deliveries answered with something other than 4xx',
    );

    // Valid deliveries: the exact success answer, or 503 while the store is down; nothing else.
    const validIds = new Set(valid.map((m) => m.message));
    const odd = this.attempts.filter(
      (a) => validIds.has(a.message) && a.status !== null && !a.accepted && a.status !== 503,
    );
    report(
      violations,
      odd,
      (a) =>
        `${this.messages.get(a.message)!.label} answered ${a.status} ${JSON.stringify(a.body ?? '')}`,
      'valid deliveries answered with neither the success answer nor 503',
    );

    const recoveryMs = this.checkOutages(validIds, violations);
    this.checkBrokerOutages(validIds, violations);
    const latencies = this.attempts
      .filter((a) => a.status !== null)
      .map((a) => a.endedAt - a.startedAt)
      .sort((a, b) => a - b);
    const timeouts = this.attempts.filter((a) => a.error === 'timeout').length;
    const notes: string[] = [];
    if (timeouts > 0) {
      notes.push(
        `${timeouts} attempt(s) timed out at the provider (answers: p99 ${percentile(latencies, 0.99)} ms, ` +
          `slowest ${latencies[latencies.length - 1] ?? 0} ms); the providers retried them`,
      );
    }

    const figures: Figures = {
      sent: sent.size,
      deliveries: valid.length,
      requests: this.attempts.length,
      acknowledged: acknowledged.size,
      gaveUp: this.gaveUp.filter((g) => validIds.has(g.message)).length,
      stored: inbox.length,
      processed: inbox.filter((row) => row.status === 'processed').length,
      duplicatesAbsorbed: inbox.reduce((sum, row) => sum + Number(row.delivery_count) - 1, 0),
      invalidSent: invalid.length,
      invalidRefused: new Set(
        invalidAnswers.filter((a) => a.status! >= 400 && a.status! < 500).map((a) => a.message),
      ).size,
      unavailable503: this.attempts.filter((a) => a.status === 503).length,
      timeouts,
      answerP99Ms: percentile(latencies, 0.99),
      answerMaxMs: latencies[latencies.length - 1] ?? 0,
      connectionErrors: this.attempts.filter((a) => a.status === null && a.error !== 'timeout')
        .length,
      killsSurvived: faults.kill,
      workerKillsSurvived: faults['worker-kill'],
      outagesSurvived: this.faults.filter((f) => f.kind === 'pg-stop').length,
      connectionCutsSurvived: this.faults.filter((f) => f.kind === 'pg-cut').length,
      redisRestartsSurvived: this.faults.filter((f) => f.kind === 'redis-restart').length,
      redisFlushesSurvived: this.faults.filter((f) => f.kind === 'redis-flush').length,
      readded: 0,
      reclaimed: 0,
      recoveryMs,
      deadBeforeFix: deadBeforeFix.length,
      replayed,
      lost: lost.length,
      duplicatedEffects,
      backwardTransitions: orderFindings.backward,
      invalidStored: invalidRows.length,
    };
    return { figures, violations, notes };
  }

  private async checkOrders(
    inbox: readonly InboxRow[],
    violations: string[],
  ): Promise<{ extraFulfilments: number; backward: number }> {
    const orders = await this.database.query<{
      id: string;
      state: string;
      fulfilments: number | string;
    }>('SELECT id, state, fulfilments FROM orders');
    const transitions = await this.database.query<{
      order_id: string;
      from_state: string;
      to_state: string;
      fulfilments_before: number | string;
      fulfilments_after: number | string;
    }>(
      `SELECT order_id, from_state, to_state, fulfilments_before, fulfilments_after FROM ${TRANSITIONS_TABLE} ORDER BY id`,
    );
    const effectOf = new Map<string, MessageRecord['effect']>();
    for (const message of this.messages.values()) {
      if (message.valid) effectOf.set(keyOf(message.provider, message.eventId), message.effect);
    }
    const storedEffects = new Map<string, Set<MessageRecord['effect']>>();
    for (const row of inbox) {
      const effect = effectOf.get(keyOf(row.endpoint, row.event_id));
      if (row.merchant_ref !== null && effect !== undefined) {
        const set = storedEffects.get(row.merchant_ref) ?? new Set();
        set.add(effect);
        storedEffects.set(row.merchant_ref, set);
      }
    }
    const extra = orders.filter((order) => Number(order.fulfilments) > 1);
    report(
      violations,
      extra,
      (o) => `${o.id} fulfilled ${o.fulfilments}×`,
      'orders fulfilled more than once',
    );
    const inconsistent = orders.filter(
      (order) =>
        REACHED_PAID.has(order.state) !== (Number(order.fulfilments) === 1) &&
        Number(order.fulfilments) <= 1,
    );
    report(
      violations,
      inconsistent,
      (o) => `${o.id} ${o.state} with ${o.fulfilments} fulfilment(s)`,
      'orders whose fulfilment does not match their state',
    );

    // NOTE: the trigger logs every UPDATE; a handler may set the state and count the fulfilment
    // in two statements of one transaction, so state moves and fulfilment moves are judged apart.
    const backward = transitions.filter(
      (t) =>
        (t.from_state !== t.to_state && !FORWARD.has(`${t.from_state}>${t.to_state}`)) ||
        (Number(t.fulfilments_before) !== Number(t.fulfilments_after) &&
          !(
            Number(t.fulfilments_before) === 0 &&
            Number(t.fulfilments_after) === 1 &&
            t.to_state === 'paid'
          )),
    );
    report(
      violations,
      backward,
      (t) =>
        `${t.order_id} ${t.from_state}→${t.to_state} (fulfilments ${t.fulfilments_before}→${t.fulfilments_after})`,
      'order changes that went backwards or changed a settled order',
    );

    const wrongState = orders.filter(
      (order) => !possibleStates(storedEffects.get(order.id)).has(order.state),
    );
    report(
      violations,
      wrongState,
      (o) =>
        `${o.id} is ${o.state} but its stored events are [${[...(storedEffects.get(o.id) ?? [])].join(', ')}]`,
      'orders whose state does not follow their stored events',
    );
    return {
      extraFulfilments: extra.reduce((sum, o) => sum + Number(o.fulfilments) - 1, 0),
      backward: backward.length,
    };
  }

  /**
   * While PostgreSQL is stopped no valid delivery may be acknowledged (there is nowhere to
   * commit it); after it is back (and after a connection cut) the app must acknowledge again
   * by itself. Resolves to the slowest recovery in ms.
   */
  private checkOutages(validIds: ReadonlySet<number>, violations: string[]): number {
    let slowest = 0;
    for (const fault of this.faults.filter((f) => f.kind === 'pg-stop' || f.kind === 'pg-cut')) {
      if (fault.kind === 'pg-stop') {
        const during = this.attempts.filter(
          (a) =>
            validIds.has(a.message) &&
            a.startedAt >= fault.startedAt &&
            a.endedAt <= fault.restoringAt,
        );
        const acked = during.filter((a) => a.status !== null && a.status >= 200 && a.status < 300);
        report(
          violations,
          acked,
          (a) => `${this.messages.get(a.message)!.label} got ${a.status}`,
          'deliveries acknowledged while PostgreSQL was stopped',
        );
        const answered = during.filter((a) => a.status !== null);
        if (answered.length > 0 && answered.every((a) => a.status !== 503)) {
          violations.push('no delivery was answered 503 while PostgreSQL was stopped');
        }
      }
      const after = this.attempts
        .filter((a) => a.accepted && a.startedAt >= fault.endedAt)
        .sort((a, b) => a.endedAt - b.endedAt);
      const attemptsAfter = this.attempts.some(
        (a) => validIds.has(a.message) && a.startedAt >= fault.endedAt,
      );
      if (after.length === 0) {
        if (attemptsAfter) {
          violations.push(
            `the app did not acknowledge anything after the ${fault.kind} at ${new Date(fault.startedAt).toISOString()}`,
          );
        }
        continue;
      }
      slowest = Math.max(slowest, after[0].endedAt - fault.endedAt);
    }
    return slowest;
  }

  /**
   * Ingress never needs the broker: while Redis is down (killed, not yet started again) valid
   * deliveries are still stored and acknowledged.
   */
  private checkBrokerOutages(validIds: ReadonlySet<number>, violations: string[]): void {
    for (const fault of this.faults.filter((f) => f.kind === 'redis-restart')) {
      const answered = this.attempts.filter(
        (a) =>
          validIds.has(a.message) &&
          a.status !== null &&
          a.startedAt >= fault.startedAt &&
          a.endedAt <= fault.restoringAt,
      );
      if (answered.length > 0 && !answered.some((a) => a.accepted)) {
        const statuses = [...new Set(answered.map((a) => a.status))].join(', ');
        violations.push(
          `none of ${answered.length} valid deliveries was acknowledged while Redis was down ` +
            `(answers ${statuses}): ingress must not need the broker`,
        );
      }
    }
  }

  /** SQL for the pids of a group's effect rows, comma-separated. */
  private pidList(): string {
    return this.database.dialect === 'postgres'
      ? "string_agg(pid::text, ',')"
      : "group_concat(pid, ',')";
  }

  private async inbox(): Promise<InboxRow[]> {
    return this.database.query<InboxRow>(
      // NOTE: an event's work row, when it has one, holds its live status and lease.
      'SELECT e.id, e.endpoint, e.event_id, e.merchant_ref, COALESCE(w.status, e.status) AS status, ' +
        'w.locked_by, e.delivery_count, e.body_sha256 ' +
        'FROM webhook_events e LEFT JOIN webhook_work w ON w.event_id = e.id',
    );
  }
}

/** The value below which `share` of the sorted `values` lie (0 for none). */
function percentile(values: readonly number[], share: number): number {
  return values.length === 0 ? 0 : values[Math.floor(share * (values.length - 1))];
}

/** Adds one violation line for a non-empty list, quoting a few examples. */
function report<T>(
  violations: string[],
  items: readonly T[],
  describe: (item: T) => string,
  what: string,
): void {
  if (items.length === 0) {
    return;
  }
  const examples = items.slice(0, EXAMPLES).map(describe).join('; ');
  violations.push(`${items.length} ${what}: ${examples}${items.length > EXAMPLES ? '; …' : ''}`);
}
