/** What an alert is about. */
export type WebhookAlertKind =
  | 'handler_failing'
  | 'dead_letter'
  | 'handler_recovered'
  | 'dispatch_paused'
  | 'signature_failures'
  | 'endpoint_silent'
  | 'payment_event_storm';

/** What every alert carries. */
export interface WebhookAlertBase {
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
  /** The failure groups the event died in: `events groups --group <fingerprint>`. */
  readonly fingerprints: readonly string[];
}

/**
 * The first failure of a group: a handler on an endpoint failed with a cause (error
 * fingerprint) this process has not seen failing since the handler last succeeded. The event
 * is retried; later failures of the group raise nothing until it recovers.
 */
export interface HandlerFailingAlert extends WebhookAlertBase {
  readonly kind: 'handler_failing';
  /** The handler's key; null when events fail before their handlers run. */
  readonly handler: string | null;
  readonly fingerprint: string;
  readonly errorClass: string;
  /** The event that failed first: its inbox id, and the attempt. */
  readonly id: string;
  readonly attempt: number;
}

/**
 * A handler that had failing groups succeeded again on the endpoint: the cause is gone (the
 * events that went dead meanwhile still wait for a replay).
 */
export interface HandlerRecoveredAlert extends WebhookAlertBase {
  readonly kind: 'handler_recovered';
  readonly handler: string;
  /** The groups that were failing, and since when the first of them was. */
  readonly fingerprints: readonly string[];
  readonly failingSince: Date;
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
 * No acknowledged delivery on an endpoint for longer than its `expectDeliveryWithinMs`.
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
  | HandlerFailingAlert
  | DeadLetterAlert
  | HandlerRecoveredAlert
  | DispatchPausedAlert
  | SignatureFailuresAlert
  | EndpointSilentAlert
  | PaymentEventStormAlert;

/**
 * A handler failed `dispatch.pauseAfterFailures` attempts in a row on an endpoint and was
 * paused: its events wait until it is resumed.
 */
export interface DispatchPausedAlert extends WebhookAlertBase {
  readonly kind: 'dispatch_paused';
  readonly handler: string;
  /** Failed attempts in a row when it was paused. */
  readonly failures: number;
  /** The last failure's error, masked and escaped as the message is. */
  readonly error: string;
}

/** Receives alerts; may be asynchronous. Errors are logged and dropped. */
export type WebhookAlertListener = (alert: WebhookAlert) => void | Promise<void>;
