import type { EventOutcomes } from './event-outcomes.port';
import type { RunLedger } from './run-ledger.port';
import type { WorkQueue } from './work-queue.port';

export type { ClaimOptions, ExpiredLease, ReleaseOptions, StoredValues } from './work-queue.port';
export type { HandlerRunOutcome, HandlerSettlement } from './run-ledger.port';
export type { ProcessedResult } from './event-outcomes.port';

/**
 * The worker side of the inbox: its queue of work ({@link WorkQueue}), the handler ledger
 * ({@link RunLedger}) and how an attempt ends ({@link EventOutcomes}). The dispatcher's parts
 * each take the one they use.
 */
export interface InboxWorker extends WorkQueue, RunLedger, EventOutcomes {}

/** Injection token for the {@link InboxWorker}. */
export const InboxWorker = Symbol('InboxWorker');
