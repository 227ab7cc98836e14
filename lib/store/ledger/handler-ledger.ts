import { EntityManager } from 'typeorm';
import { WebhookHandlerRunEntity } from '../schema/entities/webhook-handler-run.entity';
import { processedChanges, settleHeld } from '../work/event-settlement';
import { fittedTo } from '../schema/fitted-value';
import { parameterList, Statement, StoreConnection } from '../connections/store-connection';
import { inTransaction } from '../connections/transactions';
import { HandlerRunOutcome, HandlerSettlement } from '../ports/inbox-worker.port';

/**
 * The handler ledger: which handlers finished for an event, and each handler run in its own
 * transaction that first claims its ledger row.
 */
export class HandlerLedger {
  constructor(private readonly connection: StoreConnection) {}

  /** Handlers already recorded in the ledger for an event, with the outcome each reported. */
  async finishedHandlers(eventId: string): Promise<Map<string, string | null>> {
    const runs = await this.connection.lock.run(() =>
      this.connection.dataSource.getRepository(WebhookHandlerRunEntity).find({
        select: { handlerKey: true, outcome: true },
        where: { eventId },
      }),
    );
    return new Map(runs.map((run) => [run.handlerKey, run.outcome]));
  }

  /**
   * Runs `work` in a transaction that first writes the ledger row for (event, handler); when
   * the row exists already, `work` does not run. With `settle`, a successful run also marks the
   * event processed in the same transaction.
   */
  runHandler(
    eventId: string,
    handlerKey: string,
    attempt: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
    settle?: HandlerSettlement,
  ): Promise<HandlerRunOutcome> {
    const { connection } = this;
    return connection.lock.run(async () => {
      connection.sqlite?.shareSubscribers();
      return inTransaction(connection.dataSource, async (manager) => {
        // NOTE: the ledger row is written first: a second worker that reaches the same
        // (event, handler) waits on the unique index until this transaction ends, then skips.
        // Its time is read once this run has its turn on the connection (SQLite), not before.
        if (!(await this.claimRun(manager, eventId, handlerKey, attempt))) {
          return 'already_done' as const;
        }
        const outcome = await work(manager);
        const settled = await this.finishRun(manager, eventId, handlerKey, outcome, settle);
        return settled ? ('ran_and_settled' as const) : ('ran' as const);
      });
    });
  }

  /**
   * Writes the ledger row of (event, handler) in `manager`'s transaction; false when the row
   * exists already (the handler ran for the event), after waiting for a transaction that holds it.
   */
  async claimRun(
    manager: EntityManager,
    eventId: string,
    handlerKey: string,
    attempt: number,
  ): Promise<boolean> {
    const { sql, params } = this.ledgerStatement(eventId, handlerKey, attempt);
    const inserted = await this.connection.rows(manager, sql, params);
    return inserted.length > 0;
  }

  /** Keeps the outcome a handler reported on its ledger row, in `manager`'s transaction. */
  async keepOutcome(
    manager: EntityManager,
    eventId: string,
    handlerKey: string,
    outcome: string,
  ): Promise<void> {
    const { params, bind } = parameterList(this.connection.dialect);
    await this.connection.rows(
      manager,
      this.outcomeStatement(eventId, handlerKey, outcome, bind),
      params,
    );
  }

  private ledgerStatement(eventId: string, handlerKey: string, attempt: number): Statement {
    const { params, bind } = parameterList(this.connection.dialect);
    const values = [
      eventId,
      this.fitted('handlerKey', handlerKey),
      attempt,
      this.connection.dialect.date(new Date()),
    ].map(bind);
    const sql =
      'INSERT INTO webhook_handler_runs (event_id, handler_key, attempt, finished_at) ' +
      `VALUES (${values.join(', ')}) ON CONFLICT (event_id, handler_key) DO NOTHING RETURNING event_id`;
    return { sql, params };
  }

  /**
   * Keeps the handler's outcome on its ledger row and, with `settle`, marks the event
   * processed. On PostgreSQL both travel in one statement (see `settleHeld()`); SQLite's
   * in-process statements cost no round trip, so it runs them one by one. True when the event
   * was settled (still held by the worker).
   */
  private async finishRun(
    manager: EntityManager,
    eventId: string,
    handlerKey: string,
    outcome: string | undefined,
    settle: HandlerSettlement | undefined,
  ): Promise<boolean> {
    if (!settle) {
      if (outcome !== undefined) {
        await this.keepOutcome(manager, eventId, handlerKey, outcome);
      }
      return false;
    }
    const { connection } = this;
    const binder = parameterList(connection.dialect);
    const outcomeSql =
      outcome === undefined
        ? undefined
        : this.outcomeStatement(eventId, handlerKey, outcome, binder.bind);
    const changes = processedChanges(new Date(), settle.result(outcome));
    const before = outcomeSql === undefined ? undefined : { sql: outcomeSql, binder };
    return settleHeld(connection, manager, eventId, settle.workerId, changes, before);
  }

  /** The statement that keeps a handler's reported outcome on its ledger row. */
  outcomeStatement(
    eventId: string,
    handlerKey: string,
    outcome: string,
    bind: (value: unknown) => string,
  ): string {
    // NOTE: placeholders in the order they appear (SQLite's are positional).
    return (
      `UPDATE webhook_handler_runs SET outcome = ${bind(this.fitted('outcome', outcome))} ` +
      `WHERE event_id = ${bind(eventId)} AND handler_key = ${bind(this.fitted('handlerKey', handlerKey))}`
    );
  }

  /** A value for a ledger column, fitted to it (see `fitColumn()`). */
  fitted(property: 'handlerKey' | 'outcome', value: string): unknown {
    const ledger = this.connection.dataSource.getMetadata(WebhookHandlerRunEntity);
    return fittedTo(ledger.findColumnWithPropertyName(property)!, value);
  }
}
