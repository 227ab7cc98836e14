import { KeyObject, randomUUID, sign } from 'node:crypto';
import { crc32 } from '../../core/crc32';
import { withEventIds } from '../delivery-event-ids';
import { PAYPAL_TEST_CERT_URL, PAYPAL_TEST_PRIVATE_KEY_PEM } from './paypal-test-certificate';
import { SignedDelivery } from '../signed-delivery';
import { PayPalWebhookProvider } from './paypal.provider';

/** Options of `signPayPalDelivery()`. */
export interface SignPayPalDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The webhook id the receiving endpoint is configured with (its `webhookId`). */
  webhookId: string;
  /**
   * The private key (PEM or `KeyObject`) of the certificate the endpoint's resolver answers for
   * `certUrl`.
   * @default PAYPAL_TEST_PRIVATE_KEY_PEM
   */
  privateKey?: string | KeyObject;
  /**
   * `PAYPAL-CERT-URL`: where the receiver gets the certificate.
   * @default PAYPAL_TEST_CERT_URL
   */
  certUrl?: string;
  /**
   * `PAYPAL-TRANSMISSION-ID`; PayPal sends a UUID.
   * @default a random UUID
   */
  transmissionId?: string;
  /**
   * `PAYPAL-TRANSMISSION-TIME`; a `Date` is written as PayPal does (`2024-05-12T18:14:14Z`), a
   * string is sent as it is.
   * @default now
   */
  transmissionTime?: Date | string;
}

/** `2024-05-12T18:14:14.123Z` → `2024-05-12T18:14:14Z`. */
function transmissionTimeText(time: Date | string | undefined): string {
  if (typeof time === 'string') return time;
  return (time ?? new Date()).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Signs a delivery the way PayPal does: an RSA SHA-256 signature of
 * `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(body)}` with the certificate's
 * private key. The endpoint must resolve `certUrl` to the matching certificate and trust its
 * issuer (`trustedRoots`). `eventId` is the event's `id` (`WH-…`).
 * @example
 * const endpoint = paypalEndpoint({
 *   name: 'paypal',
 *   webhookId: 'WH_TEST',
 *   certificateResolver: async () => PAYPAL_TEST_CERTIFICATE_PEM,
 *   trustedRoots: PAYPAL_TEST_CA_PEM,
 * });
 * const delivery = signPayPalDelivery({
 *   payload: paypalFixtures.captureCompleted({ orderId: 'order-42', amount: 1099, currency: 'USD' }),
 *   webhookId: 'WH_TEST',
 * });
 */
export function signPayPalDelivery(options: SignPayPalDeliveryOptions): SignedDelivery {
  const { webhookId } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const transmissionId = options.transmissionId ?? randomUUID();
  const transmissionTime = transmissionTimeText(options.transmissionTime);
  const message = `${transmissionId}|${transmissionTime}|${webhookId}|${crc32(body)}`;
  const signature = sign(
    'sha256',
    Buffer.from(message, 'utf8'),
    options.privateKey ?? PAYPAL_TEST_PRIVATE_KEY_PEM,
  ).toString('base64');
  const delivery: SignedDelivery = {
    provider: 'paypal',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'paypal-auth-algo': 'SHA256withRSA',
      'paypal-cert-url': options.certUrl ?? PAYPAL_TEST_CERT_URL,
      'paypal-transmission-id': transmissionId,
      'paypal-transmission-sig': signature,
      'paypal-transmission-time': transmissionTime,
    },
  };
  return withEventIds(delivery, () => new PayPalWebhookProvider({ webhookId }));
}
