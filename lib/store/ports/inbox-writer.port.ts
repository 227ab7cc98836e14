import type {
  NewTransmission,
  NewWebhookEvent,
  RecordResult,
  RecordedTransmission,
} from '../webhook-store.port';

/** The ingress side of the inbox: stores verified deliveries, once each. */
export interface InboxWriter {
  /** One atomic insert-or-detect-duplicate on UNIQUE(endpoint, event_id). */
  record(event: NewWebhookEvent): Promise<RecordResult>;
  /** Records the events of one batched delivery in one transaction: all of them or none. */
  recordAll(events: readonly NewWebhookEvent[]): Promise<RecordResult[]>;
  /**
   * Remembers the body digest a signed transmission came with (one atomic insert-or-read on
   * the endpoint and transmission id) and says whether a transmission already seen came with
   * the same body. Run before the delivery's events are recorded.
   */
  recordTransmission(transmission: NewTransmission): Promise<RecordedTransmission>;
  /**
   * Why deliveries cannot be stored now, as one clause naming the cause and the fix, or
   * undefined when they can. Never throws.
   */
  checkWrites?(): Promise<string | undefined>;
}

/** Injection token for the {@link InboxWriter}. */
export const InboxWriter = Symbol('InboxWriter');
