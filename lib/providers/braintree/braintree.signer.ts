import { withEventIds } from '../delivery-event-ids';
import { encodeFormBody } from '../form-body';
import { SignedDelivery } from '../signed-delivery';
import { BraintreeWebhookProvider } from './braintree.provider';
import { braintreePayloadSignature } from './braintree-signature';

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
  const payload = base64Lines(Buffer.from(options.payload, 'utf8').toString('base64'));
  const signature = `${publicKey}|${braintreePayloadSignature(privateKey, payload)}`;
  const delivery: SignedDelivery = {
    provider: 'braintree',
    method: 'POST',
    body: encodeFormBody({ bt_signature: signature, bt_payload: payload }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
  return withEventIds(delivery, () => new BraintreeWebhookProvider({ publicKey, privateKey }));
}

function base64Lines(base64: string): string {
  return `${base64.match(/.{1,60}/g)?.join('\n') ?? ''}\n`;
}
