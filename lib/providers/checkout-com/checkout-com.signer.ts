import { SignedDelivery } from '../signed-delivery';
import { checkoutComProvider } from './checkout-com.provider';

/** Options of `signCheckoutComDelivery()`. */
export interface SignCheckoutComDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's signature key, used verbatim. */
  signatureKey: string;
  /** The Authorization header key configured on the webhook, sent as `Authorization`. */
  authorization?: string;
}

/**
 * Signs a delivery the way Checkout.com does: `Cko-Signature` is the hex HMAC-SHA256 of the
 * body keyed by the webhook's signature key, and `Authorization` carries the configured key when
 * there is one. The delivery's `eventId` is the event's `id`.
 * @example
 * signCheckoutComDelivery({
 *   payload: checkoutComFixtures.paymentCaptured({ reference: 'order-42', amount: 1999 }),
 *   signatureKey: process.env.CKO_WEBHOOK_SIGNATURE_KEY!,
 *   authorization: process.env.CKO_WEBHOOK_AUTHORIZATION,
 * })
 */
export function signCheckoutComDelivery(options: SignCheckoutComDeliveryOptions): SignedDelivery {
  const { signatureKey, authorization } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return checkoutComProvider.signed(body, signatureKey, undefined, { authorization });
}
