import { SignedDelivery } from '../signed-delivery';
import { squareProvider } from './square.provider';

/** Options of `signSquareDelivery()`. */
export interface SignSquareDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The subscription's signature key, used verbatim. */
  signatureKey: string;
  /**
   * The subscription's notification URL exactly as registered with Square; the receiving
   * endpoint must be configured with the same string.
   */
  notificationUrl: string;
}

/**
 * Signs a delivery the way Square does: `x-square-hmacsha256-signature` is base64 HMAC-SHA256 of
 * `notificationUrl + body`. The header verifies with the official SDK's
 * `WebhooksHelper.verifySignature({ requestBody, signatureHeader, signatureKey, notificationUrl })`.
 * `eventId` is the event's `event_id`.
 * @example
 * signSquareDelivery({
 *   payload: squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId: 'order-42' }),
 *   signatureKey: process.env.SQUARE_SIGNATURE_KEY!,
 *   notificationUrl: 'https://shop.example.com/webhooks/square',
 * })
 */
export function signSquareDelivery(options: SignSquareDeliveryOptions): SignedDelivery {
  const { signatureKey, notificationUrl } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return squareProvider.signed(body, signatureKey, undefined, { notificationUrl });
}
