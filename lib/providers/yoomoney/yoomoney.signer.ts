import { SignedDelivery } from '../signed-delivery';
import { yoomoneyHash, yoomoneySignedNotification } from './yoomoney.provider';

/** Options of `signYooMoneyDelivery()`. */
export interface SignYooMoneyDeliveryOptions {
  /**
   * The notification fields without `sha1_hash` (a `sha1_hash` given here is replaced), e.g.
   * from `yoomoneyFixtures`, in the order they are sent.
   */
  payload: Readonly<Record<string, string>>;
  /** The wallet's notification secret. */
  notificationSecret: string;
}

/**
 * The `sha1_hash` YooMoney computes: lowercase hex SHA-1 of
 * `notification_type&operation_id&amount&currency&datetime&sender&codepro&notification_secret&label`,
 * a missing field counting as empty.
 */
export function yoomoneyNotificationHash(
  payload: Readonly<Record<string, string>>,
  notificationSecret: string,
): string {
  return yoomoneyHash((name) => payload[name] ?? '', notificationSecret);
}

/**
 * A notification exactly as YooMoney posts it: the fields with `sha1_hash` appended, as an
 * `application/x-www-form-urlencoded` body. `eventId` is the `operation_id` (with `:unaccepted`
 * for a transfer not credited yet), the key the endpoint stores the notification under.
 * @example
 * const delivery = signYooMoneyDelivery({
 *   notificationSecret: process.env.YOOMONEY_NOTIFICATION_SECRET!,
 *   payload: yoomoneyFixtures.p2pIncoming({ label: 'order-1', amount: '300.00' }),
 * });
 * await new WebhookTestClient(app).send('yoomoney', delivery);
 */
export function signYooMoneyDelivery(options: SignYooMoneyDeliveryOptions): SignedDelivery {
  return yoomoneySignedNotification(options.payload, options.notificationSecret);
}
