import type { NewWebhookEvent, RecordResult } from '../webhook-store.interface';

/** The ingress side of the inbox: stores verified deliveries, once each. */
export interface InboxWriter {
  /** One atomic insert-or-detect-duplicate on UNIQUE(endpoint, event_id). */
  record(event: NewWebhookEvent): Promise<RecordResult>;
  /** Records the events of one batched delivery in one transaction: all of them or none. */
  recordAll(events: readonly NewWebhookEvent[]): Promise<RecordResult[]>;
  /**
   * Why deliveries cannot be stored now, as one clause naming the cause and the fix, or
   * undefined when they can. Never throws.
   */
  checkWrites?(): Promise<string | undefined>;
}

/** Injection token for the {@link InboxWriter}. */
export const InboxWriter = Symbol('InboxWriter');
