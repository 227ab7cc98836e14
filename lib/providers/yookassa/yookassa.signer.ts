import { SignedDelivery } from '../signed-delivery';
import {
  YooKassaNotificationObject,
  yookassaNotificationBody,
  yookassaProvider,
} from './yookassa.provider';

/** Options of `yookassaDelivery()`. */
export interface YooKassaDeliveryOptions {
  /** The event, e.g. `'payment.succeeded'`. */
  event: string;
  /** The payment, refund, payout or deal object (see `yookassaPayment()` and friends). */
  object: YooKassaNotificationObject;
}

/**
 * Builds the HTTP notification YooKassa posts. YooKassa does not sign notifications, so
 * nothing here is a signature: a YooKassa endpoint trusts the source address, and by default
 * only YooKassa's ranges may deliver. In tests, give the endpoint
 * `allowedIps: ['127.0.0.1', '::1']` (or send from an allowed address). `eventId` is
 * `<event>:<object id>`, the key the endpoint stores the notification under.
 * @example
 * const delivery = yookassaDelivery({ event: 'payment.succeeded', object: yookassaPayment() });
 */
export function yookassaDelivery(options: YooKassaDeliveryOptions): SignedDelivery {
  // NOTE: YooKassa signs nothing; the secret is unused.
  return yookassaProvider.signed(yookassaNotificationBody(options.event, options.object), '');
}
