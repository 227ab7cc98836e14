/** What an alert is about. */
export type WebhookAlertKind =
  'dead_letter' | 'signature_failures' | 'endpoint_silent' | 'payment_event_storm';

/** What every alert carries. */
interface WebhookAlertBase {
  readonly kind: WebhookAlertKind;
  /** Endpoint name. */
  readonly endpoint: string;
  /** Provider kind. */
  readonly provider: string;
  /** When the alert was raised. */
  readonly at: Date;
  /**
   * One line for a human, safe to log: card numbers and CVV fields masked, control characters
   * escaped.
   */
  readonly message: string;
}

/** An event moved to the dead-letter state: its handlers will not run again until replayed. */
export interface DeadLetterAlert extends WebhookAlertBase {
  readonly kind: 'dead_letter';
  /** Inbox id, for `WebhookAdmin.show()` and `redeliver()`. */
  readonly id: string;
  /** Provider event id. */
  readonly eventId: string;
  readonly type: string;
  readonly paymentRef: string | null;
  /** Attempts made. */
  readonly attempt: number;
  /** The last error, masked and escaped as the message is. */
  readonly error: string;
}

/**
 * A run of deliveries refused for a bad signature on one endpoint, with no acknowledged
 * delivery between them: most likely a rotated secret, or someone probing the endpoint.
 * Raised once per run; an acknowledged delivery on the endpoint ends the run.
 */
export interface SignatureFailuresAlert extends WebhookAlertBase {
  readonly kind: 'signature_failures';
  /** Refusals in the run when the alert was raised. */
  readonly failures: number;
  /** The window the refusals fell within, in ms. */
  readonly windowMs: number;
  /** When the first counted refusal arrived. */
  readonly firstAt: Date;
}

/**
 * No acknowledged delivery on an endpoint for longer than its `expectDeliveryWithin`.
 * Raised once per silence; the next delivery ends it.
 */
export interface EndpointSilentAlert extends WebhookAlertBase {
  readonly kind: 'endpoint_silent';
  /** The last acknowledged delivery known, or null when none is stored. */
  readonly lastDeliveryAt: Date | null;
  /** How long the endpoint has been silent, in ms (from the process start when none is known). */
  readonly silentForMs: number;
  readonly expectDeliveryWithinMs: number;
}

/** One payment has more stored events than `paymentEventThreshold`. Raised once per payment. */
export interface PaymentEventStormAlert extends WebhookAlertBase {
  readonly kind: 'payment_event_storm';
  /** The provider's payment id. */
  readonly paymentRef: string;
  /** Events stored for the payment on this endpoint. */
  readonly events: number;
  readonly threshold: number;
}

/** Something an operator should look at. Narrow on `kind`. */
export type WebhookAlert =
  DeadLetterAlert | SignatureFailuresAlert | EndpointSilentAlert | PaymentEventStormAlert;

/** Receives alerts; may be asynchronous. Errors are logged and dropped. */
export type WebhookAlertListener = (alert: WebhookAlert) => void | Promise<void>;
