import { EntityManager } from 'typeorm';
import { PaymentEventType } from '../core/payment-event-types';
import type { WebhooksLogger } from '../telemetry/webhooks-logger';
import type { ProviderPaymentStatus } from '../providers/payment-status-client.interface';

/** A stored webhook event as handlers see it. */
export interface PaymentEvent<TPayload = unknown> {
  /** Inbox id. */
  readonly id: string;
  /** Endpoint name the delivery arrived on. */
  readonly endpoint: string;
  /** Provider kind (`stripe`, `qvard`, …). */
  readonly provider: string;
  /** Dedup key: the provider's event id, or a derived key. */
  readonly eventId: string;
  /** Normalized type, or `'<kind>:<native>'` when the native type has no normalized meaning. */
  readonly type: PaymentEventType | `${string}:${string}`;
  /** The provider's own type. */
  readonly nativeType: string;
  /** The provider's payment id. */
  readonly paymentRef: string | null;
  /** The application's order id, when the provider carries it. */
  readonly merchantRef: string | null;
  /** Amount in minor units, when known. */
  readonly amount: number | null;
  /** ISO 4217 currency code, when known. */
  readonly currency: string | null;
  /** The provider's payment status, when it sends one. */
  readonly status: string | null;
  /** When the provider says the event happened. */
  readonly occurredAt: Date | null;
  /** When the first delivery was stored. */
  readonly receivedAt: Date;
  /** The parsed body. */
  readonly payload: TPayload;
  /**
   * The connected account the event happened on, for a Stripe Connect platform: a snapshot
   * event's `account`, an event notification's `context`; the same as `ctx.account`. Null for
   * the endpoint's own account, and for providers without accounts.
   */
  readonly account: string | null;
  /**
   * The tenant the delivery came for, at an endpoint made by `tenantEndpoint()` (the
   * `{tenant}` of `…/{endpoint}/{tenant}`); the same as `ctx.tenant`. Null at other endpoints.
   */
  readonly tenant: string | null;
  /** This processing attempt, from 1. */
  readonly attempt: number;
  /**
   * The provider's own answer about this payment, asked before handlers ran, when the
   * endpoint has `verifyWithProvider` on; act on it rather than on the notification's claim.
   * It may be a later state than the event's (`refund.succeeded` for a `payment.succeeded`
   * checked after the refund): the event happened, and the payment has moved on since.
   * Null otherwise.
   */
  readonly verified: ProviderPaymentStatus | null;
}

/** What a handler gets besides the event. */
export interface WebhookContext {
  /**
   * The EntityManager of the transaction that also records this handler's success:
   * write through it and your changes and the "done" mark commit or roll back together.
   */
  readonly manager: EntityManager;
  /** This processing attempt, from 1. */
  readonly attempt: number;
  /**
   * A key stable across attempts of this handler for this event: pass it as the
   * `Idempotency-Key` of calls you make to other systems.
   */
  readonly idempotencyKey: string;
  /** Logger scoped to the handler. */
  readonly logger: WebhooksLogger;
  /**
   * The connected account the event happened on, for a Stripe Connect platform: a snapshot
   * event's `account`, an event notification's `context`. Null for the endpoint's own account,
   * and for providers without accounts. `ctx.fetchStatus()`, `ctx.fetchEvent()` and
   * `ctx.fetchRelatedObject()` ask as this account.
   */
  readonly account: string | null;
  /**
   * The tenant the event came for, at an endpoint made by `tenantEndpoint()`: its status
   * lookups use that tenant's API credentials. Null at other endpoints.
   */
  readonly tenant: string | null;
  /**
   * The trace this attempt belongs to (32 hex digits), to put on your own log lines and calls:
   * the trace id of this attempt's `process` span when an OpenTelemetry SDK records it, else
   * that of the trace context stored with the event (the delivery's span, or the request's own
   * `traceparent`); undefined when there is neither. See the Tracing section of
   * docs/operations.md.
   */
  readonly traceId?: string;
  /**
   * Asks the provider's API for the payment's current status.
   * @throws WebhookConfigurationError when the endpoint has no API credentials (no status
   * client); ProviderStatusError when the provider cannot answer.
   */
  fetchStatus(): Promise<ProviderPaymentStatus>;
  /**
   * The whole event a Stripe event notification (a thin event) names: `GET
   * /v2/core/events/{id}`, with the account's `Stripe-Context` when the notification has a
   * `context`. Fetched once per attempt, however often it is called.
   * @throws WebhookConfigurationError when the endpoint has no API credentials, or its
   * provider's notifications carry their event; ProviderStatusError when the provider cannot
   * answer, or the event is a snapshot event (its whole event is `event.payload`).
   */
  fetchEvent(): Promise<Record<string, unknown>>;
  /**
   * The object a Stripe event notification is about, fetched from its `related_object.url` (as
   * it is now, not as it was when the event happened), with the account's `Stripe-Context`;
   * null when the notification names no object. Fetched once per attempt.
   * @throws as {@link fetchEvent}.
   */
  fetchRelatedObject(): Promise<Record<string, unknown> | null>;
  /**
   * Records what this handler concluded (`applied`, `stale`, `not_allowed`, …, as returned by
   * `applyPaymentEvent()`); kept on the handler's ledger row and summed up on the event.
   */
  recordOutcome(outcome: string): void;
}
