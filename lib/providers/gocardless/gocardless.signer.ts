import { hmacSha256 } from '../../core/hmac';
import { withEventIds } from '../delivery-event-ids';
import { SignedDelivery } from '../signed-delivery';
import { GoCardlessWebhookProvider } from './gocardless.provider';

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
 * `parse(body, secret, signatureHeader)` from `gocardless-nodejs/webhooks`. `eventIds` are the
 * events' ids (`EV…`), in order, when the webhook carries several; `eventId` is the first.
 * @example
 * signGoCardlessDelivery({
 *   payload: goCardlessFixtures.webhook(goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' })),
 *   webhookSecret: process.env.GOCARDLESS_WEBHOOK_SECRET!,
 * })
 */
export function signGoCardlessDelivery(options: SignGoCardlessDeliveryOptions): SignedDelivery {
  const { webhookSecret } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const delivery: SignedDelivery = {
    provider: 'gocardless',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-signature': hmacSha256(webhookSecret, [body]).toString('hex'),
    },
  };
  return withEventIds(delivery, () => new GoCardlessWebhookProvider({ webhookSecret }));
}
