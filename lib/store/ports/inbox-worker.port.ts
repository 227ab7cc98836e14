import type { WebhookStore } from '../webhook-store.port';

/** The worker side of the inbox: claims, leases, the handler ledger and settlement. */
export type InboxWorker = Pick<
  WebhookStore,
  | 'claim'
  | 'extendLease'
  | 'finishedHandlers'
  | 'runHandler'
  | 'markProcessed'
  | 'markIgnored'
  | 'scheduleRetry'
  | 'markDead'
  | 'release'
  | 'expiredLeases'
  | 'handOver'
  | 'takeOver'
  | 'watch'
>;

/** Injection token for the {@link InboxWorker}. */
export const InboxWorker = Symbol('InboxWorker');
