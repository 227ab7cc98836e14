import { hmacSha256 } from '../../core/hmac';
import { SignedDelivery } from '../signed-delivery';

/** Options of `signGoCardlessDelivery()`. */
export interface SignGoCardlessDeliveryOptions {
  /**
   * The webhook body (`{"events":[…]}`): the exact text, or an object sent as
   * `JSON.stringify(payload)`.
   */
  payload: string | object;
  /** The webhook endpoint's secret, used verbatim. */
  webhookSecret: string;
}

/**
 * Signs a delivery the way GoCardless does: `Webhook-Signature` is the hex HMAC-SHA256 of the
 * body under the webhook endpoint's secret. The header verifies with the official SDK's
 * `parse(body, secret, signatureHeader)` from `gocardless-nodejs/webhooks`.
 * @example
 * signGoCardlessDelivery({
 *   payload: goCardlessFixtures.webhook(goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' })),
 *   webhookSecret: process.env.GOCARDLESS_WEBHOOK_SECRET!,
 * })
 */
export function signGoCardlessDelivery(options: SignGoCardlessDeliveryOptions): SignedDelivery {
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return {
    provider: 'gocardless',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-signature': hmacSha256(options.webhookSecret, [body]).toString('hex'),
    },
  };
}
