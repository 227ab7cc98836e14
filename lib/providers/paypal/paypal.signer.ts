import { KeyObject } from 'node:crypto';
import { SignedDelivery } from '../signed-delivery';
import { paypalDelivery } from './paypal.provider';

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
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return paypalDelivery(body, options);
}
