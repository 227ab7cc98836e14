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
   * The id the inbox stores the event under (its dedup key), when the builder made it: Stripe's
   * `evt_…`, Standard Webhooks' `webhook-id`. What `settled(app, eventId)` takes.
   */
  readonly eventId?: string;
}

/** A payload to sign: the exact body you will send (a string is sent as its UTF-8 bytes). */
export type SignablePayload = string | Uint8Array;

/**
 * A payload for a builder of a whole delivery (`signHmacDelivery()`, …): the exact body text, or
 * an object sent as `JSON.stringify(payload)` writes it.
 */
export type DeliveryPayload = string | object;

/** A delivery whose builder made the event's id: `settled(app, delivery.eventId)` takes it. */
export type IdentifiedDelivery = SignedDelivery & { readonly eventId: string };
