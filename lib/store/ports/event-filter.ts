import type { WebhookEventStatus } from './webhook-event-status';

/** Which stored events an admin operation applies to. Every field narrows the set. */
export interface WebhookEventFilter {
  /** Endpoint name. */
  endpoint?: string;
  /** The tenant, exactly (`''`: the events of endpoints without tenants). */
  tenant?: string;
  /** One status or several. */
  status?: WebhookEventStatus | readonly WebhookEventStatus[];
  /** The provider's event id (the dedup key): one event per endpoint and tenant has it. */
  eventId?: string;
  /** Event type, normalized or `'<kind>:<native>'`. */
  type?: string;
  /** The provider's payment id. */
  paymentRef?: string;
  /** The application's order id. */
  merchantRef?: string;
  /** Received at or after. */
  since?: Date;
  /** Received before. */
  until?: Date;
  /** Dead or retrying events whose current failure is this handler's. */
  handler?: string;
  /** Dead or retrying events whose current failure's text contains this (case-insensitive). */
  error?: string;
  /** Dead or retrying events of one failure group, by its fingerprint. */
  fingerprint?: string;
}
