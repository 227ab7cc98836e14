import type { EntityManager } from 'typeorm';
import type { ProcessedResult } from './event-outcomes.port';

/**
 * How a handler run inside `runHandler()` ended: `ran_and_settled` when its transaction also
 * marked the event processed (see {@link HandlerSettlement}).
 */
export type HandlerRunOutcome = 'ran' | 'already_done' | 'ran_and_settled';

/**
 * Asks `runHandler()` to mark the event processed in the handler's own transaction once the
 * handler succeeded: the last handler of an event commits its effects, its ledger row and the
 * event's new status at once, saving a round trip and a commit per event.
 */
export interface HandlerSettlement {
  /** The lease holder; nothing is settled when another worker holds the event by then. */
  readonly workerId: string;
  /** The event's result, given the outcome this handler reported (if any). */
  result(outcome: string | undefined): ProcessedResult;
}

/** The handler ledger: which handlers finished for an event, and a handler's run in its row's transaction. */
export interface RunLedger {
  /** Handlers already recorded in the ledger for an event, with the outcome each reported. */
  finishedHandlers(eventId: string): Promise<Map<string, string | null>>;
  /**
   * Runs `work` in a transaction that first writes the ledger row for (event, handler);
   * when the row exists already, `work` does not run. The outcome `work` resolves to, if
   * any, is kept on the ledger row. With `settle`, a successful run also marks the event
   * processed in the same transaction.
   */
  runHandler(
    eventId: string,
    handlerKey: string,
    attempt: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
    settle?: HandlerSettlement,
  ): Promise<HandlerRunOutcome>;
}
