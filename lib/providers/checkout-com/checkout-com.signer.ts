import { hmacSha256 } from '../../core/hmac';
import { isJsonObject } from '../parse-payload';
import { SignedDelivery } from '../signed-delivery';

/** Options of `signCheckoutComDelivery()`. */
export interface SignCheckoutComDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's signature key, used verbatim. */
  signatureKey: string;
  /** The Authorization header key configured on the webhook, sent as `Authorization`. */
  authorization?: string;
}

/** The event id (`evt_…`) of a body that is a Checkout.com event. */
function eventIdOf(body: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return isJsonObject(parsed) && typeof parsed.id === 'string' && parsed.id !== ''
      ? parsed.id
      : undefined;
  } catch {
    return undefined;
  }
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
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const eventId = eventIdOf(body);
  return {
    provider: 'checkout-com',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      ...(options.authorization === undefined ? {} : { authorization: options.authorization }),
      'cko-signature': hmacSha256(options.signatureKey, [body]).toString('hex'),
    },
    ...(eventId === undefined ? {} : { eventId }),
  };
}
