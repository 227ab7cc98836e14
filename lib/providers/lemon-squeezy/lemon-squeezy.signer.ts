import { hmacSha256 } from '../../core/hmac';
import { isJsonObject, toIdentifier } from '../parse-payload';
import { SignedDelivery } from '../signed-delivery';
import { lemonSqueezyEventKey } from './lemon-squeezy.provider';

/** Options of `signLemonSqueezyDelivery()`. */
export interface SignLemonSqueezyDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook's signing secret, used verbatim. */
  signingSecret: string;
}

/** The event's name and dedup key, when the body is a Lemon Squeezy event. */
function describe(body: string): { eventName?: string; eventId?: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return {};
  }
  const meta = isJsonObject(parsed) ? parsed.meta : undefined;
  const data = isJsonObject(parsed) ? parsed.data : undefined;
  const eventName =
    isJsonObject(meta) && typeof meta.event_name === 'string' ? meta.event_name : undefined;
  if (eventName === undefined || !isJsonObject(data) || typeof data.type !== 'string') {
    return { eventName };
  }
  const id = toIdentifier(data.id);
  const attributes = isJsonObject(data.attributes) ? data.attributes : undefined;
  return {
    eventName,
    eventId:
      id === undefined ? undefined : lemonSqueezyEventKey(eventName, data.type, id, attributes),
  };
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
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const signature = hmacSha256(options.signingSecret, [body]).toString('hex');
  const { eventName, eventId } = describe(body);
  return {
    provider: 'lemon-squeezy',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      ...(eventName === undefined ? {} : { 'x-event-name': eventName }),
      'x-signature': signature,
    },
    ...(eventId === undefined ? {} : { eventId }),
  };
}
