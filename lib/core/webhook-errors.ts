/** Why a delivery was refused before anything was parsed or stored. */
export type WebhookRejectionReason =
  | 'missing_signature'
  | 'bad_signature'
  | 'timestamp_out_of_window'
  | 'unconfirmed'
  | 'api_budget_spent'
  | 'invalid_payload';

/**
 * Thrown by a provider when a request does not prove it came from the provider
 * (missing or wrong signature, timestamp outside the window). Answered with 400; with reason
 * `unconfirmed` (an unsigned delivery the provider's API could not confirm now: Mollie's classic
 * webhooks), 503, so the provider sends it again; with reason `api_budget_spent` (confirming it
 * would take a call to the provider's API past the endpoint's `apiCallBudget`), 503 with
 * `Retry-After`.
 */
export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: Exclude<WebhookRejectionReason, 'invalid_payload'>,
    message: string,
    /** For `api_budget_spent`: milliseconds until the provider's API may be called again. */
    readonly retryAfterMs?: number,
  ) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/** Thrown by a provider when a verified body is not the envelope it expects. Answered with 400. */
export class WebhookPayloadError extends Error {
  readonly reason = 'invalid_payload' as const;
  constructor(message: string) {
    super(message);
    this.name = 'WebhookPayloadError';
  }
}

/** Thrown at startup when an endpoint or module option cannot work; the message names the fix. */
export class WebhookConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookConfigurationError';
  }
}

/** Why a provider's status API gave no usable answer. */
export type ProviderStatusFailure =
  | 'not_found'
  | 'unauthorized'
  | 'unavailable'
  | 'timeout'
  | 'invalid_response'
  | 'missing_reference';

/**
 * Thrown by a status client. `unavailable` and `timeout` are worth retrying; `not_found`,
 * `unauthorized`, `invalid_response` and `missing_reference` will not change on their own.
 * The message never contains credentials.
 */
export class ProviderStatusError extends Error {
  constructor(
    readonly failure: ProviderStatusFailure,
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message);
    this.name = 'ProviderStatusError';
  }

  /** True when asking again later may succeed. */
  get retryable(): boolean {
    return this.failure === 'unavailable' || this.failure === 'timeout';
  }
}
