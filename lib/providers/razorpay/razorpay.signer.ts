import { hmacSha256 } from '../../core/hmac';
import { SignedDelivery } from '../signed-delivery';

/** Options of `signRazorpayDelivery()`. */
export interface SignRazorpayDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's secret, used verbatim. */
  secret: string;
  /**
   * `x-razorpay-event-id`, which Razorpay sends unsigned with every delivery; the receiving
   * endpoint does not read it.
   * @default none
   */
  eventId?: string;
}

/**
 * Signs a delivery the way Razorpay does: `x-razorpay-signature` is hex HMAC-SHA256 of the body
 * keyed by the webhook secret. The header verifies with the official SDK's
 * `validateWebhookSignature(body, signature, secret)`.
 * @example
 * signRazorpayDelivery({
 *   payload: razorpayFixtures.orderPaid({ orderId: 'order-42', amount: 1999 }),
 *   secret: process.env.RAZORPAY_WEBHOOK_SECRET!,
 * })
 */
export function signRazorpayDelivery(options: SignRazorpayDeliveryOptions): SignedDelivery {
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return {
    provider: 'razorpay',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-razorpay-signature': hmacSha256(options.secret, [body]).toString('hex'),
      ...(options.eventId === undefined ? {} : { 'x-razorpay-event-id': options.eventId }),
    },
  };
}
