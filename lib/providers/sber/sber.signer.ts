import { KeyObject, createPublicKey, sign as signWithKey } from 'node:crypto';
import { hmacSha256 } from '../../core/hmac';
import { withEventIds } from '../delivery-event-ids';
import { encodeFormBody } from '../form-body';
import { SignedDelivery } from '../signed-delivery';
import { SberWebhookProvider } from './sber.provider';

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
 * The string Sber's checksum covers: every parameter but `checksum` and `sign_alias`, sorted by
 * name, written as `name;value;`.
 */
export function sberChecksumString(payload: Readonly<Record<string, string>>): string {
  return Object.keys(payload)
    .filter((name) => name !== 'checksum' && name !== 'sign_alias')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `${name};${payload[name]};`)
    .join('');
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
  const { checksum: _ignored, ...payload } = options.payload;
  const signed = Buffer.from(sberChecksumString(payload), 'utf8');
  const checksum =
    callbackToken !== undefined
      ? hmacSha256(callbackToken, [signed]).toString('hex')
      : signWithKey('sha512', signed, privateKey as string | KeyObject).toString('hex');
  const fields = { ...payload, checksum: checksum.toUpperCase() };
  const method = options.method ?? 'GET';
  const delivery: SignedDelivery = {
    provider: 'sber',
    method,
    body: encodeFormBody(fields),
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
  };
  const verifier =
    callbackToken !== undefined
      ? { callbackToken }
      : { publicKey: publicKeyOf(privateKey as string | KeyObject) };
  return withEventIds(delivery, () => new SberWebhookProvider(verifier));
}

/** The PEM public key of a private key: what the receiving endpoint checks the checksum with. */
function publicKeyOf(privateKey: string | KeyObject): string {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
}
