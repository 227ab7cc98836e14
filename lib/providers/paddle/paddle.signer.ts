import { withEventIds } from '../delivery-event-ids';
import { SignedDelivery } from '../signed-delivery';
import { jsonPost } from '../signing-input';
import { paddleProvider, paddleSignature } from './paddle.provider';

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
  const { secret, timestamp } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  if (typeof secret === 'string') return paddleProvider.signed(body, secret, timestamp);
  const delivery = jsonPost(
    'paddle',
    { text: body },
    paddleSignature().signAll(body, secret, timestamp),
  );
  return withEventIds(delivery, () => paddleProvider.provider({ secret }));
}
