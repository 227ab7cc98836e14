import type { InboxEvent } from './inbox-event';
import type { InboxWorker } from './inbox-worker.port';

/**
 * A handler run that did not count inside the delivery's transaction: it held it past the
 * bound (its writes rolled back to its SAVEPOINT, its later statements refused), or it did not
 * start because the bound had passed. `first` ends when the handler's own code does; the event
 * runs again only after it.
 */
export class InlineRunDeferred extends Error {
  override readonly name = 'InlineRunDeferred';

  constructor(
    readonly first: Promise<unknown>,
    message: string,
  ) {
    super(message);
  }
}

/** A fresh event inside the transaction that stores it, before that transaction commits. */
export interface InlineSession {
  /** The event as stored (its values fitted to their columns), at attempt 1. */
  readonly event: InboxEvent;
  /**
   * Whether an earlier event of the same payment at the same endpoint and tenant is still to
   * run, running or retrying. Waits for another delivery of that payment settling on arrival.
   */
  earlierUnsettled(): Promise<boolean>;
  /**
   * `runHandler()` of the worker, inside the delivery's transaction: `work` runs in its own
   * SAVEPOINT with the time left of the bound. Resolves 'ran' (its ledger row is written with
   * the transaction's end); rejects with the handler's error (rolled back to its savepoint), or
   * with {@link InlineRunDeferred}.
   */
  readonly runHandler: InboxWorker['runHandler'];
}

/** How the transaction of a delivery settled on arrival ends. */
export type InlineEnd =
  /** Every handler ran: the event is processed, with no work row. */
  | { readonly kind: 'processed'; readonly outcome: string | null }
  /**
   * Something is left to do: the event is held by `workerId` (attempt 1, a lease of `leaseMs`),
   * which settles it or runs the rest once the transaction committed.
   */
  | { readonly kind: 'held'; readonly workerId: string; readonly leaseMs: number }
  /** Nothing ran: the event is stored pending and due now, as any other delivery's. */
  | { readonly kind: 'queued' };

/** What a delivery settling on arrival asks of the transaction that stores it. */
export interface InlineRequest {
  /** How long its handlers may run, counted from the transaction's start, in ms. */
  readonly boundMs: number;
  /**
   * The keys of the handlers `run` runs, in order: their ledger rows are written with the
   * event, and taken back for those that do not finish.
   */
  readonly handlerKeys: readonly string[];
}

/** Runs a fresh event's handlers in its delivery's transaction and says how that ends. */
export type InlineRun = (session: InlineSession) => Promise<InlineEnd>;
