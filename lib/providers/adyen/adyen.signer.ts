import { hmacSha256 } from '../../core/hmac';
import { withEventIds } from '../delivery-event-ids';
import {
  AdyenNotificationRequestItem,
  AdyenWebhookProvider,
  adyenSigningString,
  decodeAdyenHmacKey,
} from './adyen.provider';
import { SignedDelivery } from '../signed-delivery';

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
  const notificationItems = options.items.map((item) => ({
    NotificationRequestItem: {
      ...item,
      additionalData: {
        ...item.additionalData,
        hmacSignature: hmacSha256(key, [adyenSigningString(item)]).toString('base64'),
      },
    },
  }));
  const delivery: SignedDelivery = {
    provider: 'adyen',
    method: 'POST',
    body: JSON.stringify({ live: options.live ?? 'false', notificationItems }),
    headers: { 'content-type': 'application/json' },
  };
  return withEventIds(delivery, () => new AdyenWebhookProvider({ hmacKey: options.hmacKey }));
}
