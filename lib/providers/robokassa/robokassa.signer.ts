import { createHash } from 'node:crypto';
import { withEventIds } from '../delivery-event-ids';
import { encodeFormBody } from '../form-body';
import { SignedDelivery } from '../signed-delivery';
import { RobokassaHashAlgorithm, RobokassaWebhookProvider } from './robokassa.provider';

/** Options of `signRobokassaDelivery()`. */
export interface SignRobokassaDeliveryOptions {
  /**
   * The ResultURL parameters without `SignatureValue` (one given here is replaced), e.g. from
   * `robokassaFixtures`, in the order they are sent.
   */
  payload: Readonly<Record<string, string>>;
  /** Password #2 of the shop (the test Password #2 for a notification with `IsTest=1`). */
  password2: string;
  /** @default 'md5' */
  hashAlgorithm?: RobokassaHashAlgorithm;
  /**
   * `'POST'` sends the parameters as a form body, `'GET'` in the query string.
   * @default 'POST'
   */
  method?: 'GET' | 'POST';
}

/**
 * What Robokassa's ResultURL `SignatureValue` hashes: `OutSum:InvId:password`, then
 * `:Shp_name=value` for each user parameter, sorted by name.
 */
export function robokassaSignatureBase(
  payload: Readonly<Record<string, string>>,
  password2: string,
): string {
  const user = Object.keys(payload)
    .filter((name) => /^shp_/i.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `:${name}=${payload[name]}`)
    .join('');
  return `${payload.OutSum}:${payload.InvId}:${password2}${user}`;
}

/**
 * A ResultURL notification exactly as Robokassa sends it: the parameters with `SignatureValue`
 * (upper-case hex) appended, as a form POST or a GET query string (the body of a GET delivery is
 * the query string without `?`). `eventId` is the `InvId`, the key the endpoint stores it under.
 * @example
 * signRobokassaDelivery({
 *   payload: robokassaFixtures.result({ invId: '42', amount: 1999 }),
 *   password2: process.env.ROBOKASSA_PASSWORD_2!,
 * })
 */
export function signRobokassaDelivery(options: SignRobokassaDeliveryOptions): SignedDelivery {
  const { password2, hashAlgorithm } = options;
  const { SignatureValue: _ignored, ...payload } = options.payload;
  const signature = createHash(hashAlgorithm ?? 'md5')
    .update(robokassaSignatureBase(payload, password2), 'utf8')
    .digest('hex')
    .toUpperCase();
  const method = options.method ?? 'POST';
  const delivery: SignedDelivery = {
    provider: 'robokassa',
    method,
    body: encodeFormBody({ ...payload, SignatureValue: signature }),
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
  };
  return withEventIds(delivery, () => new RobokassaWebhookProvider({ password2, hashAlgorithm }));
}
