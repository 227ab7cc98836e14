import { KeyObject } from 'node:crypto';
import { SignedDelivery } from '../signed-delivery';
import { sberCallback } from './sber.provider';

export { sberChecksumString } from './sber-checksum';

/** Options of `signSberDelivery()`: give `callbackToken` or `privateKey`. */
export interface SignSberDeliveryOptions {
  /**
   * The callback parameters without `checksum` (a `checksum` given here is replaced), e.g. from
   * `sberFixtures`, in the order they are sent. A `sign_alias` is sent as given and, as the
   * gateway does, left out of the checksum.
   */
  payload: Readonly<Record<string, string>>;
  /** The callback token: the checksum is HMAC-SHA256, upper-case hex. */
  callbackToken?: string;
  /** An RSA private key (PEM or `KeyObject`): the checksum is an RSA SHA-512 signature, upper-case hex. */
  privateKey?: string | KeyObject;
  /**
   * How the callback is delivered: `'GET'` puts the parameters in the query string (the
   * gateway's default), `'POST'` in an `application/x-www-form-urlencoded` body.
   * @default 'GET'
   */
  method?: 'GET' | 'POST';
}

/**
 * A callback exactly as the Sber gateway sends it: the parameters with `checksum` appended, in
 * the query string (GET, the body of the delivery is the query string without `?`) or as a
 * form-encoded POST body. `eventId` is `<mdOrder>:<operation>:<status>` (a refund's with what
 * tells it apart), the key the endpoint stores the callback under.
 * @throws Error unless exactly one of `callbackToken` and `privateKey` is given.
 * @example
 * const delivery = signSberDelivery({
 *   callbackToken: process.env.SBER_CALLBACK_TOKEN!,
 *   payload: sberFixtures.deposited({ orderNumber: '2003', amount: 19200 }),
 * });
 * await new WebhookTestClient(app).send('sber', delivery); // GET /webhooks/sber?mdOrder=…
 */
export function signSberDelivery(options: SignSberDeliveryOptions): SignedDelivery {
  const { callbackToken, privateKey } = options;
  if ((callbackToken === undefined) === (privateKey === undefined)) {
    throw new Error('signSberDelivery: give exactly one of callbackToken and privateKey');
  }
  return sberCallback(
    options.payload,
    callbackToken !== undefined
      ? { callbackToken }
      : { privateKey: privateKey as string | KeyObject },
    options.method ?? 'GET',
  );
}
