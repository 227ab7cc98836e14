/**
 * A delivery exactly as a provider sends it: method, body bytes and headers. Produced by the
 * `sign…Delivery()` functions; `WebhookTestClient` posts it.
 */
export interface SignedDelivery {
  /** Provider kind that would send it. */
  readonly provider: string;
  /** `POST` for most; Sber also calls back with `GET`, the notification in the query string. */
  readonly method: 'POST' | 'GET';
  /** The exact body (for a GET delivery, the query string without `?`). */
  readonly body: string;
  /** Every header the provider sends that matters to verification, content type included. */
  readonly headers: Readonly<Record<string, string>>;
  /**
   * The id the inbox stores the event under (its dedup key), read from this very delivery by
   * the provider's own `normalize()`, as the ingress reads it: Stripe's `evt_…` (a refund's
   * outcome: `re_…:succeeded`), Standard Webhooks' `webhook-id`, Razorpay's
   * `payment.captured:pay_…:<created_at>`, … What `settled(app, delivery.eventId)` takes. For
   * a delivery of several notifications (an Adyen or GoCardless batch), the first one's.
   * Absent when the provider cannot read the body, so that the endpoint would refuse it (a test
   * signing a malformed body on purpose), and where the key depends on what the signer is not
   * told (CloudPayments' `notification`).
   */
  readonly eventId?: string;
  /**
   * The ids of every notification, in order, when the delivery carries more than one (an Adyen
   * or GoCardless batch): each is stored, and settles, as an event of its own.
   */
  readonly eventIds?: readonly string[];
}

/** A payload to sign: the exact body you will send (a string is sent as its UTF-8 bytes). */
export type SignablePayload = string | Uint8Array;

/**
 * A payload for a builder of a whole delivery (`signHmacDelivery()`, …): the exact body text, or
 * an object sent as `JSON.stringify(payload)` writes it.
 */
export type DeliveryPayload = string | object;

/**
 * A delivery whose event id is always known, because its builder writes the id into it: Stripe's
 * event id, the `webhook-id` of Standard Webhooks, Polar and Dodo Payments. `eventId` is still
 * the one the provider stores the event under (a Stripe refund's outcome is keyed by the refund).
 */
export type IdentifiedDelivery = SignedDelivery & { readonly eventId: string };
