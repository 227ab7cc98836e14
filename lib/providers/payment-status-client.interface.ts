import { PaymentEventType } from '../core/payment-event-types';

/** What a status client is asked about: the stored event's references. */
export interface PaymentStatusQuery {
  /** The provider's payment id, when the notification carried it. */
  readonly paymentRef: string | null;
  /** The application's order id, when the notification carried it. */
  readonly merchantRef: string | null;
  /** The event's type (normalized or `'<kind>:<native>'`). */
  readonly type: string;
  /** The provider's own event type or status. */
  readonly nativeType: string;
  /** The parsed notification, for providers whose lookup needs another id from it. */
  readonly payload: unknown;
  /**
   * The account the event happened on (a Stripe connected account), when the notification
   * names one: the lookup is made as that account.
   * @default none: the API key's own account
   */
  readonly account?: string | null;
}

/** The provider's authoritative answer about one payment (or refund). */
export interface ProviderPaymentStatus {
  /** The provider's id of what was looked up. */
  readonly paymentRef: string;
  /** The provider's own status string, e.g. `'succeeded'`, `'CONFIRMED'`, `'2'`. */
  readonly status: string;
  /**
   * The normalized event that status amounts to (`payment.succeeded` for a paid payment), or
   * undefined when the status is not final or has no normalized meaning (`pending`).
   */
  readonly type: PaymentEventType | undefined;
  /** Amount in minor units, when the API returns it. */
  readonly amount?: number;
  /** ISO 4217 currency code, upper-case, when the API returns it. */
  readonly currency?: string;
  /** When the answer was received. */
  readonly checkedAt: Date;
}

/**
 * A client of a provider's API that returns the authoritative status of a payment. Built on
 * Node's fetch with a timeout; never logs credentials.
 */
export interface PaymentStatusClient {
  /** Provider kind, as on the endpoint's provider. */
  readonly kind: string;
  /**
   * Looks the payment up.
   * @throws ProviderStatusError when the provider cannot answer or says it does not know it.
   */
  fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus>;
  /**
   * The whole event a notification names but does not carry (Stripe's event notifications), as
   * the provider's API returns it. A client of a provider whose notifications carry their event
   * has none.
   * @throws ProviderStatusError when the provider cannot answer, or the event is no notification.
   */
  fetchEvent?(query: PaymentStatusQuery): Promise<Record<string, unknown>>;
  /**
   * The object a notification is about (its `related_object`), as the provider's API returns it
   * now; null when the notification names none.
   * @throws ProviderStatusError when the provider cannot answer, or the event is no notification.
   */
  fetchRelatedObject?(query: PaymentStatusQuery): Promise<Record<string, unknown> | null>;
}
