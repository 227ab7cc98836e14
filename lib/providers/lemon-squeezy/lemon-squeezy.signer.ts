import { hmacSha256 } from '../../core/hmac';
import { withEventIds } from '../delivery-event-ids';
import { isJsonObject } from '../parse-payload';
import { SignedDelivery } from '../signed-delivery';
import { LemonSqueezyWebhookProvider } from './lemon-squeezy.provider';

/** Options of `signLemonSqueezyDelivery()`. */
export interface SignLemonSqueezyDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's signing secret, used verbatim. */
  signingSecret: string;
}

/** `meta.event_name`, when the body is a Lemon Squeezy event. */
function eventNameOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const meta = isJsonObject(parsed) ? parsed.meta : undefined;
  return isJsonObject(meta) && typeof meta.event_name === 'string' ? meta.event_name : undefined;
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
  const { signingSecret } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const eventName = eventNameOf(body);
  const delivery: SignedDelivery = {
    provider: 'lemon-squeezy',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      ...(eventName === undefined ? {} : { 'x-event-name': eventName }),
      'x-signature': hmacSha256(signingSecret, [body]).toString('hex'),
    },
  };
  return withEventIds(delivery, () => new LemonSqueezyWebhookProvider({ signingSecret }));
}
