import { SignedDelivery } from '../signed-delivery';
import { RobokassaHashAlgorithm, robokassaSignedNotification } from './robokassa.provider';

export { robokassaSignatureBase } from './robokassa.provider';
// NOTE: the type the options name, which /testing exports with the signer.
export type { RobokassaHashAlgorithm } from './robokassa.provider';

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
  return robokassaSignedNotification(
    options.payload,
    options.password2,
    options.hashAlgorithm,
    options.method,
  );
}
