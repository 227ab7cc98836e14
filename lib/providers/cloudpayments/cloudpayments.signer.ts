import { SignedDelivery } from '../signed-delivery';
import {
  CloudPaymentsNotification,
  cloudPaymentsProvider,
  notificationBody,
} from './cloudpayments.provider';

/** A notification's parameters: what `cloudPaymentsFixtures` builds. */
export type CloudPaymentsParameters = Readonly<Record<string, string | number | boolean | null>>;

/** Options of `signCloudPaymentsDelivery()`. */
export interface SignCloudPaymentsDeliveryOptions {
  /** The parameters (e.g. from `cloudPaymentsFixtures`), or the exact body text. */
  payload: CloudPaymentsParameters | string;
  /** The site's API secret, used verbatim. */
  apiSecret: string;
  /**
   * The body's format, as the site's notification settings choose it: `'form'`
   * (`application/x-www-form-urlencoded`, CloudPayments' default) or `'json'`. Ignored when
   * `payload` is a string, whose format is taken from its first character.
   * @default 'form'
   */
  format?: 'form' | 'json';
  /**
   * The `notification` of the endpoint the delivery goes to (`'pay'`, `'refund'`, …). The body
   * does not say which notification it is, and the endpoint's dedup key starts with it, as its
   * `normalize()` reads the body for that kind: without it the delivery has no `eventId`.
   * @default none
   */
  notification?: CloudPaymentsNotification;
}

/**
 * A notification exactly as CloudPayments posts it: `Content-HMAC` is the base64 HMAC-SHA256 of
 * the body keyed by the API secret, `X-Content-HMAC` the same over the URL-decoded form body (the
 * same as Content-HMAC for a JSON body). With `notification`, `eventId` is the key an endpoint
 * of that notification stores it under, e.g. `pay:<TransactionId>:<OperationType>:<Status>`.
 * @example
 * signCloudPaymentsDelivery({
 *   payload: cloudPaymentsFixtures.pay({ invoiceId: 'order-42', amount: 1999 }),
 *   apiSecret: process.env.CLOUDPAYMENTS_API_SECRET!,
 *   notification: 'pay',
 * })
 */
export function signCloudPaymentsDelivery(
  options: SignCloudPaymentsDeliveryOptions,
): SignedDelivery {
  const { payload, apiSecret, format, notification } = options;
  // NOTE: without a notification no endpoint reads the body, and the delivery has no eventId.
  return cloudPaymentsProvider.signed(notificationBody(payload, format), apiSecret, undefined, {
    notification,
  });
}
