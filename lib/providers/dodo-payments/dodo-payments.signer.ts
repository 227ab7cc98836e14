import { withEventIds } from '../delivery-event-ids';
import { DeliveryPayload, IdentifiedDelivery } from '../signed-delivery';
import { signStandardWebhookDelivery } from '../standard-webhooks/standard-webhooks.signer';
import { dodoPaymentsProvider } from './dodo-payments.provider';

/** Options of `signDodoPaymentsDelivery()`. */
export interface SignDodoPaymentsDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: DeliveryPayload;
  /** The endpoint's signing secret, `whsec_` + base64 (the one the receiving endpoint is given). */
  secret: string;
  /**
   * `webhook-id`, the dedup key; give the same one to send a retry.
   * @default a fresh `msg_…` id
   */
  id?: string;
  /**
   * Signed `webhook-timestamp` in Unix seconds.
   * @default now
   */
  timestamp?: number;
}

/**
 * Signs a delivery the way Dodo Payments does: Standard Webhooks headers over
 * `${id}.${timestamp}.${body}` with the spec's `whsec_` secret. The delivery verifies with the
 * official SDK's `client.webhooks.unwrap(body, { headers, key: secret })` (`dodopayments`). Its
 * `eventId` is the `webhook-id`, the same on every retry of one event.
 * @throws Error when the secret is not `whsec_` + base64.
 * @example
 * signDodoPaymentsDelivery({
 *   payload: dodoPaymentsFixtures.paymentSucceeded({ orderId: 'order-42', amount: 1999 }),
 *   secret: process.env.DODO_PAYMENTS_WEBHOOK_KEY!,
 * })
 */
export function signDodoPaymentsDelivery(
  options: SignDodoPaymentsDeliveryOptions,
): IdentifiedDelivery {
  const { secret } = options;
  const delivery = signStandardWebhookDelivery({
    payload: options.payload,
    secret,
    id: options.id,
    timestamp: options.timestamp,
    kind: 'dodo-payments',
  });
  return withEventIds(delivery, () => dodoPaymentsProvider.provider({ secret }));
}
