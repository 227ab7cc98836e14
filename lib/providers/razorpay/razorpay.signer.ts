import { SignedDelivery } from '../signed-delivery';
import { razorpayDelivery } from './razorpay.provider';

/** Options of `signRazorpayDelivery()`. */
export interface SignRazorpayDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's secret, used verbatim. */
  secret: string;
  /**
   * `x-razorpay-event-id`, which Razorpay sends unsigned with every delivery; the receiving
   * endpoint does not read it, and it is not the delivery's `eventId` (the dedup key).
   * @default none
   */
  eventId?: string;
}

/**
 * Signs a delivery the way Razorpay does: `x-razorpay-signature` is hex HMAC-SHA256 of the body
 * keyed by the webhook secret. The header verifies with the official SDK's
 * `validateWebhookSignature(body, signature, secret)`. `eventId` is the key the endpoint makes
 * from signed fields, as Razorpay signs no event id: `payment.captured:pay_…:<created_at>`.
 * @example
 * signRazorpayDelivery({
 *   payload: razorpayFixtures.orderPaid({ orderId: 'order-42', amount: 1999 }),
 *   secret: process.env.RAZORPAY_WEBHOOK_SECRET!,
 * })
 */
export function signRazorpayDelivery(options: SignRazorpayDeliveryOptions): SignedDelivery {
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return razorpayDelivery(body, options.secret, options.eventId);
}
