import type { EntityManager } from 'typeorm';
import { processedChanges, settleHeld } from '../work/event-settlement';
import { fittedTo } from '../schema/fitted-value';
import { HandlerLedger } from './handler-ledger';
import { parameterList, StoreConnection } from '../connections/store-connection';
import { HandlerSettlement } from '../ports/inbox-worker.port';

/** A handler run of a batch, as its end sees it. */
export interface BatchRun {
  readonly eventId: string;
  readonly handlerKey: string;
}

/** The runs of a batch that did not finish, kept an outcome, or settle their event. */
export interface BatchEnd {
  readonly unrun: readonly BatchRun[];
  readonly outcomes: readonly { readonly run: BatchRun; readonly outcome: string }[];
  readonly settling: readonly {
    readonly run: BatchRun;
    readonly settle: HandlerSettlement;
    readonly outcome: string | undefined;
  }[];
}

/**
 * The end of a batch on PostgreSQL, in one statement: the ledger rows of the runs that did not
 * finish are taken back, the outcomes kept, and the events whose last handler ran settled as
 * processed (only while their worker holds them). Returns the ids of the events it settled.
 */
export async function settleInOneStatement(
  connection: StoreConnection,
  ledger: HandlerLedger,
  manager: EntityManager,
  now: Date,
  { unrun, outcomes, settling }: BatchEnd,
): Promise<ReadonlySet<string>> {
  const { params, bind } = parameterList(connection.dialect);
  const key = (run: BatchRun) => ledger.fitted('handlerKey', run.handlerKey);
  const parts: string[] = [];
  if (unrun.length > 0) {
    const rows = unrun.map((run) => `(${bind(run.eventId)}, ${bind(key(run))})`);
    parts.push(
      'unrun AS (DELETE FROM webhook_handler_runs WHERE (event_id, handler_key) IN ' +
        `(${rows.join(', ')}))`,
    );
  }
  if (outcomes.length > 0) {
    const rows = outcomes.map(
      ({ run, outcome }) =>
        `(${bind(run.eventId)}, ${bind(key(run))}, ${bind(ledger.fitted('outcome', outcome))})`,
    );
    parts.push(
      'outcomes AS (UPDATE webhook_handler_runs AS r SET outcome = o.outcome ' +
        `FROM (VALUES ${rows.join(', ')}) AS o (event_id, handler_key, outcome) ` +
        'WHERE r.event_id = o.event_id AND r.handler_key = o.handler_key)',
    );
  }
  let main = 'SELECT NULL AS id WHERE false';
  if (settling.length > 0) {
    const events = connection.events;
    const column = (property: 'outcome' | 'providerStatus') =>
      events.entity.findColumnWithPropertyName(property)!;
    const rows = settling.map(({ run, settle, outcome }) => {
      const { outcome: joined, providerStatus } = processedChanges(now, settle.result(outcome));
      return `(${[
        run.eventId,
        settle.workerId,
        fittedTo(column('outcome'), joined),
        fittedTo(column('providerStatus'), providerStatus),
      ]
        .map(bind)
        .join(', ')})`;
    });
    parts.push(
      `settling (event_id, worker, outcome, provider_status) AS (VALUES ${rows.join(', ')})`,
      'held AS (DELETE FROM webhook_work AS w USING settling AS s WHERE w.event_id = s.event_id ' +
        "AND w.locked_by = s.worker AND w.status = 'processing' RETURNING w.event_id, w.attempts)",
    );
    const { outcome: _outcome, providerStatus: _providerStatus, ...fixed } = processedChanges(now);
    const assignments = events.assignments(fixed, bind);
    main =
      `UPDATE webhook_events AS e SET ${assignments.join(', ')}, outcome = s.outcome, ` +
      'provider_status = s.provider_status, attempts = held.attempts ' +
      'FROM held JOIN settling AS s ON s.event_id = held.event_id ' +
      'WHERE e.id = held.event_id RETURNING e.id';
  }
  const sql = `WITH ${parts.join(', ')} ${main}`;
  const rows = (await connection.rows(manager, sql, params, { prepare: false })) as {
    id: string;
  }[];
  return new Set(rows.map((row) => row.id));
}

/** The same on SQLite, whose in-process statements cost no round trip: one by one. */
export async function settleStepByStep(
  connection: StoreConnection,
  ledger: HandlerLedger,
  manager: EntityManager,
  now: Date,
  { unrun, outcomes, settling }: BatchEnd,
): Promise<ReadonlySet<string>> {
  const key = (run: BatchRun) => ledger.fitted('handlerKey', run.handlerKey);
  for (const run of unrun) {
    const { params, bind } = parameterList(connection.dialect);
    await connection.rows(
      manager,
      `DELETE FROM webhook_handler_runs WHERE event_id = ${bind(run.eventId)} AND handler_key = ${bind(key(run))}`,
      params,
    );
  }
  for (const { run, outcome } of outcomes) {
    const binder = parameterList(connection.dialect);
    const sql = ledger.outcomeStatement(run.eventId, run.handlerKey, outcome, binder.bind);
    await connection.rows(manager, sql, binder.params);
  }
  const settled = new Set<string>();
  for (const { run, settle, outcome } of settling) {
    const changes = processedChanges(now, settle.result(outcome));
    if (await settleHeld(connection, manager, run.eventId, settle.workerId, changes)) {
      settled.add(run.eventId);
    }
  }
  return settled;
}
