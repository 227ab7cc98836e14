import type { WebhookStore } from '../webhook-store.interface';

/** Reads and operator changes on the inbox: admin, CLI, metrics, retention, reconciliation. */
export type InboxQueries = Pick<WebhookStore, 'transaction' | 'read'>;

/** Injection token for the {@link InboxQueries}. */
export const InboxQueries = Symbol('InboxQueries');
