import { SignedDelivery } from '../signed-delivery';
import { paystackProvider } from './paystack.provider';

/** Options of `signPaystackDelivery()`. */
export interface SignPaystackDeliveryOptions {
  /** The event (`{"event":…,"data":{…}}`): the exact text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The account's secret key (`sk_test_…` or `sk_live_…`), used verbatim. */
  secretKey: string;
}

/**
 * Signs a delivery the way Paystack does: `x-paystack-signature` is the hex HMAC-SHA512 of the
 * body under the account's secret key. Paystack publishes no SDK; the scheme is the one its
 * webhook documentation shows with node:crypto. `eventId` is the key the endpoint makes from the
 * signed event, as Paystack sends no event id: `<event>:<object id>:<status>`, then the object's
 * update time when it has one.
 * @example
 * signPaystackDelivery({
 *   payload: paystackFixtures.chargeSuccess({ reference: 'order-42', amount: 500000 }),
 *   secretKey: process.env.PAYSTACK_SECRET_KEY!,
 * })
 */
export function signPaystackDelivery(options: SignPaystackDeliveryOptions): SignedDelivery {
  return sign(options);
}

const sign = paystackProvider.signer('secretKey');
