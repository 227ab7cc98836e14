import type { InlineEnd, InlineRequest, InlineRun } from './inline-run';

/** An event to store, as the ingress builds it from a verified, normalized delivery. */
export interface NewWebhookEvent {
  endpoint: string;
  /**
   * The endpoint's tenant the delivery arrived for (its secret verified it): part of the dedup
   * key, so the same event id is stored once for each tenant. Absent for an endpoint without
   * tenants, stored as `''`.
   */
  tenant?: string;
  provider: string;
  eventId: string;
  type: string;
  nativeType: string;
  paymentRef: string | null;
  merchantRef: string | null;
  amount: number | null;
  currency: string | null;
  paymentStatus: string | null;
  occurredAt: Date | null;
  receivedAt: Date;
  /**
   * The body as received: its bytes, or its text (stored as UTF-8). Bytes that are not UTF-8
   * text, or hold NUL, are kept exactly all the same (see `WebhookEventEntity.rawBody`).
   */
  rawBody: Buffer | string;
  bodySha256: string;
  headers: Record<string, string>;
  /** `pending` when a handler wants the event, `ignored` when none does. */
  status: 'pending' | 'ignored';
  /**
   * The key every copy of the underlying event shares within the tenant, at two endpoints paired
   * for it (Stripe's `snapshotEndpoint`: the snapshot endpoint's name and
   * `NormalizedNotification.sameEventAs`): a copy of an event stored under the other endpoint or
   * id is a duplicate of it. Null at every endpoint not paired, and when the provider sets none.
   */
  sameEvent?: string | null;
}

/** What `record()` found. */
export interface RecordResult {
  /** Inbox id of the stored row (new or existing). */
  id: string;
  /** True when the row already existed (a re-delivery). */
  duplicate: boolean;
  /** False when a re-delivery's body differs from the stored one. */
  sameBody: boolean;
  /** The row's status after the call. */
  status: string;
  /**
   * True when the row is another copy of the same event (`sameEvent`), stored under another
   * endpoint or id: the delivery is counted on that row as a duplicate.
   */
  copy?: boolean;
}

/** What `recordInline()` stored: `end` is absent for a duplicate, which ran nothing. */
export interface InlineRecordResult extends RecordResult {
  readonly end?: InlineEnd;
}

/** A signed transmission to remember: `recordTransmission()` takes it. */
export interface NewTransmission {
  /** Endpoint name it arrived on. */
  readonly endpoint: string;
  /** The provider's signed transmission id. */
  readonly transmissionId: string;
  /** Hex SHA-256 of the body it came with. */
  readonly bodyDigest: string;
  /** When the delivery arrived. */
  readonly receivedAt: Date;
  /** The endpoint's transmissions received before this may be forgotten: no replay of them passes. */
  readonly forgetBefore: Date;
}

/** What `recordTransmission()` found. */
export interface RecordedTransmission {
  /** False when the transmission id was seen with another body. */
  readonly sameBody: boolean;
}

/** The ingress side of the inbox: stores verified deliveries, once each. */
export interface InboxWriter {
  /** One atomic insert-or-detect-duplicate on UNIQUE(endpoint, tenant, event_id). */
  record(event: NewWebhookEvent): Promise<RecordResult>;
  /**
   * Stores a fresh pending event and, in the same transaction before it commits, hands it to
   * `run`, which runs its handlers within `request.boundMs` (settling on the answer path). A
   * duplicate is counted and runs nothing. Undefined, with nothing written, when it cannot be
   * done now: the caller then records the event with `record()`.
   */
  recordInline?(
    event: NewWebhookEvent,
    request: InlineRequest,
    run: InlineRun,
  ): Promise<InlineRecordResult | undefined>;
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
