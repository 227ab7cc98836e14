import { withEventIds } from '../delivery-event-ids';
import { SignedDelivery } from '../signed-delivery';
import { jsonPost } from '../signing-input';
import {
  AdyenNotificationRequestItem,
  adyenProvider,
  adyenRequestBody,
  decodeAdyenHmacKey,
} from './adyen.provider';

/** Options of `signAdyenDelivery()`. */
export interface SignAdyenDeliveryOptions {
  /** The webhook's HMAC key, hex, as Customer Area shows it. */
  hmacKey: string;
  /**
   * The notification items to send in one request, in order. Each is sent with
   * `additionalData.hmacSignature` set (an existing one is replaced).
   */
  items: readonly AdyenNotificationRequestItem[];
  /**
   * The request's `live` flag.
   * @default 'false'
   */
  live?: 'true' | 'false';
}

/**
 * Signs each item the way Adyen does (base64 HMAC-SHA256 of the item's signing string under the
 * hex-decoded key; the same signature as `new hmacValidator().calculateHmac(item, hmacKey)` of
 * `@adyen/api-library`) and builds the JSON request Adyen posts. `eventIds` are the items' dedup
 * keys (`${pspReference}:${eventCode}:${success}`), in order; `eventId` is the first item's.
 * @throws Error when `hmacKey` is not hex of even length.
 * @example
 * const delivery = signAdyenDelivery({ hmacKey, items: [adyenNotificationItem('AUTHORISATION')] });
 * await request(app.getHttpServer()).post('/webhooks/adyen').set(delivery.headers).send(delivery.body);
 */
export function signAdyenDelivery(options: SignAdyenDeliveryOptions): SignedDelivery {
  const key = decodeAdyenHmacKey(options.hmacKey);
  if (key === undefined) {
    throw new Error('signAdyenDelivery: hmacKey must be hex of even length, as Adyen shows it');
  }
  const delivery = jsonPost(
    'adyen',
    { text: adyenRequestBody(key, options.items, options.live) },
    {},
  );
  return withEventIds(delivery, () => adyenProvider.provider({ hmacKey: options.hmacKey }));
}
