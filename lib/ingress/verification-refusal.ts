import { WebhookPayloadError, WebhookVerificationError } from '../core/webhook-errors';
import type { DeliveryDecision } from '../telemetry/webhook-telemetry';
import { WebhookRefusal } from './webhook-refusal';

/** How a delivery a provider refused is journaled and answered. */
export interface VerificationRefusal {
  readonly decision: DeliveryDecision;
  readonly refusal: WebhookRefusal;
}

/**
 * What a provider's `verify()` or `normalize()` threw, as a refusal: 400 (or the provider's own
 * status) for a signature or its timestamp, 400 for a payload, 503 when the provider's API could
 * not confirm the delivery now, 503 with `Retry-After` past the endpoint's budget of API calls.
 * Undefined for anything else, which is a bug.
 * @param signatureStatus the provider's `signatureRefusalStatus`.
 */
export function verificationRefusal(
  error: unknown,
  signatureStatus = 400,
): VerificationRefusal | undefined {
  if (error instanceof WebhookPayloadError) {
    return { decision: 'invalid', refusal: WebhookRefusal.payload(error.message) };
  }
  if (!(error instanceof WebhookVerificationError)) {
    return undefined;
  }
  switch (error.reason) {
    case 'unconfirmed':
      return {
        decision: 'unconfirmed',
        refusal: WebhookRefusal.providerUnavailable(error.message),
      };
    case 'api_budget_spent':
      return {
        decision: 'api_budget_spent',
        refusal: WebhookRefusal.apiBudgetSpent(error.message, error.retryAfterMs),
      };
    case 'timestamp_out_of_window':
      return {
        decision: 'rejected_timestamp',
        refusal: WebhookRefusal.signature(error.message, signatureStatus),
      };
    default:
      return {
        decision: 'rejected_signature',
        refusal: WebhookRefusal.signature(error.message, signatureStatus),
      };
  }
}
