import type { WebhookEventStatus } from './webhook-event-status';

/**
 * One stored event as the inbox hands it out: to the worker when it claims the event, to the
 * admin queries with its payload. The TypeORM entity has this shape; another store returns
 * plain objects of it.
 */
export interface InboxEvent {
  /** Inbox id (UUID). */
  id: string;

  /** Endpoint name the delivery arrived on. */
  endpoint: string;

  /**
   * The tenant of the endpoint the delivery arrived for, part of the dedup key: the same
   * provider event id is a distinct event for each tenant. `''` for an endpoint without tenants.
   */
  tenant: string;

  /** Provider kind (`stripe`, `qvard`, …). */
  provider: string;

  /** Dedup key (with the endpoint and tenant): provider event id or a derived key. */
  eventId: string;

  /** Normalized type, or `'<kind>:<native>'`. */
  type: string;

  /** The provider's own type. */
  nativeType: string;

  /** The provider's payment id. */
  paymentRef: string | null;

  /** The application's order id, when the provider carries it. */
  merchantRef: string | null;

  /** Amount in minor units, when known. */
  amount: number | null;

  /** ISO 4217 currency code, when known. */
  currency: string | null;

  /** The provider's payment status, when it sends one. */
  paymentStatus: string | null;

  /** When the provider says the event happened. */
  occurredAt: Date | null;

  /** When the first delivery was stored. */
  receivedAt: Date;

  /**
   * The body exactly as received: its UTF-8 text, or `base64:` and the base64 of its bytes when
   * they are not UTF-8 text PostgreSQL can hold (NUL bytes, invalid UTF-8) or begin with `base64:`.
   */
  rawBody: string;

  /** SHA-256 of the raw body, to notice a re-delivery whose body differs. */
  bodySha256: string;

  /** Request headers without signatures, secrets or credentials. */
  headers: Record<string, string>;

  /**
   * Where the event stood after its last settlement (`pending` until the first). A running
   * event is `processing` on its work row (`WebhookWorkEntity`), which also holds the
   * live attempts, due time and lease while the event is still to run, running, retrying or
   * dead; a claimed event's entity carries its work row's status and attempts.
   */
  status: WebhookEventStatus;

  /** Processing attempts started, as of the last settlement (see `status`). */
  attempts: number;

  /** When the event is next due (pending or retrying), as of the last settlement. */
  nextAttemptAt: Date | null;

  /** Last handler error. */
  lastError: string | null;

  /** When every handler had succeeded. */
  processedAt: Date | null;

  /** How many times the provider delivered this event. */
  deliveryCount: number;

  /**
   * What handling concluded, as handlers reported it (`applied`, `stale`, `not_allowed`, …),
   * or `provider_disagrees` when the provider's API contradicted the notification.
   */
  outcome: string | null;

  /** The status the provider's API returned, when the endpoint verifies with the provider. */
  providerStatus: string | null;
}

/** One finished handler run in the ledger. */
export interface HandlerRunRecord {
  /** Inbox id of the event. */
  eventId: string;

  /** Stable handler key: `ClassName.methodName`. */
  handlerKey: string;

  /** The attempt on which the handler succeeded. */
  attempt: number;

  /** When the handler's transaction committed. */
  finishedAt: Date;

  /** The outcome the handler reported through `ctx.recordOutcome()`, if any. */
  outcome: string | null;
}

/** A live work row's lease, as lists and single views show it beside the event. */
export interface WorkLease {
  /** Worker holding the lease. */
  readonly lockedBy: string | null;
  /** When the lease ends. */
  readonly lockedUntil: Date | null;
}
