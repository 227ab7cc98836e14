import { hmacSha256 } from '../../core/hmac';
import { withEventIds } from '../delivery-event-ids';
import { SignedDelivery } from '../signed-delivery';
import { PaddleWebhookProvider } from './paddle.provider';

/** Options of `signPaddleDelivery()`. */
export interface SignPaddleDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /**
   * The notification destination's secret key (`pdl_ntfset_…`), used verbatim. A list signs with
   * each, one `h1` per secret, as Paddle does while a secret is being rotated.
   */
  secret: string | readonly string[];
  /**
   * Signed timestamp (`ts`) in Unix seconds.
   * @default now
   */
  timestamp?: number;
}

/**
 * Signs a delivery the way Paddle Billing does: `Paddle-Signature: ts=<ts>;h1=<hex>` where `h1`
 * is HMAC-SHA256 of `${ts}:${body}`. The header verifies with the official SDK's
 * `paddle.webhooks.isSignatureValid(body, secret, header)` (which reads only the last `h1`).
 * `eventId` is the event's `event_id` (`evt_…`).
 * @example
 * signPaddleDelivery({
 *   payload: paddleFixtures.transactionCompleted({ orderId: 'order-42', amount: 1099 }),
 *   secret: process.env.PADDLE_WEBHOOK_SECRET!,
 * })
 */
export function signPaddleDelivery(options: SignPaddleDeliveryOptions): SignedDelivery {
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const secrets: readonly string[] =
    typeof options.secret === 'string' ? [options.secret] : options.secret;
  const signatures = secrets.map(
    (secret) => `h1=${hmacSha256(secret, [`${timestamp}:`, body]).toString('hex')}`,
  );
  const delivery: SignedDelivery = {
    provider: 'paddle',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'paddle-signature': [`ts=${timestamp}`, ...signatures].join(';'),
    },
  };
  return withEventIds(delivery, () => new PaddleWebhookProvider({ secret: options.secret }));
}
