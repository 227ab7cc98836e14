import { withEventIds } from '../delivery-event-ids';
import { SignedDelivery } from '../signed-delivery';
import { braintreeFormPost, braintreeProvider } from './braintree.provider';
import { braintreeFormBody } from './braintree-signature';

/** Options of `signBraintreeDelivery()`. */
export interface SignBraintreeDeliveryOptions {
  /** The notification's XML text, e.g. from `braintreeFixtures`; sent base64-encoded. */
  payload: string;
  /** The public key the receiving endpoint is configured with. */
  publicKey: string;
  /** The private key of that API key. */
  privateKey: string;
}

/**
 * A delivery exactly as Braintree posts it: `bt_payload` is the XML in base64 with a line break
 * every 60 characters and at the end (as Braintree writes it), `bt_signature` is
 * `publicKey|hex HMAC-SHA1 of bt_payload` keyed with the SHA-1 digest of the private key, both
 * as an `application/x-www-form-urlencoded` body. The fields parse with the official SDK's
 * `gateway.webhookNotification.parse(bt_signature, bt_payload)`. `eventId` is the dedup key
 * the endpoint stores the notification under.
 * @example
 * const delivery = signBraintreeDelivery({
 *   payload: braintreeFixtures.transactionSettled({ orderId: 'order-42', amount: 1099 }),
 *   publicKey: process.env.BRAINTREE_PUBLIC_KEY!,
 *   privateKey: process.env.BRAINTREE_PRIVATE_KEY!,
 * });
 * await new WebhookTestClient(app).send('braintree', delivery);
 */
export function signBraintreeDelivery(options: SignBraintreeDeliveryOptions): SignedDelivery {
  const { publicKey, privateKey } = options;
  const delivery = braintreeFormPost(braintreeFormBody({ publicKey, privateKey }, options.payload));
  return withEventIds(delivery, () => braintreeProvider.provider({ publicKey, privateKey }));
}
