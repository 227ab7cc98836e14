import { SignedDelivery } from '../signed-delivery';
import { lemonSqueezyProvider } from './lemon-squeezy.provider';

/** Options of `signLemonSqueezyDelivery()`. */
export interface SignLemonSqueezyDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's signing secret, used verbatim. */
  signingSecret: string;
}

/**
 * Signs a delivery the way Lemon Squeezy does: `X-Signature` is the hex HMAC-SHA256 of the body
 * keyed by the signing secret, and `X-Event-Name` repeats `meta.event_name`. The delivery's
 * `eventId` is the dedup key the endpoint stores the event under.
 * @example
 * signLemonSqueezyDelivery({
 *   payload: lemonSqueezyFixtures.orderCreated({ orderId: 'order-42', amount: 1999 }),
 *   signingSecret: process.env.LEMON_SQUEEZY_SIGNING_SECRET!,
 * })
 */
export function signLemonSqueezyDelivery(options: SignLemonSqueezyDeliveryOptions): SignedDelivery {
  return sign(options);
}

const sign = lemonSqueezyProvider.signer('signingSecret');
