import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { identifier, jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readString,
  toCurrency,
  toIdentifier,
} from '../parse-payload';

/** A Mercado Pago Webhooks notification as handlers find it in `event.payload`. */
export interface MercadoPagoNotification {
  /** The notification's id, the same on every retry (a number, or a hex string on some topics). */
  readonly id: number | string;
  /** The topic: `'payment'`, `'order'`, `'topic_chargebacks_wh'`, … */
  readonly type: string;
  /** What happened: `'payment.created'`, `'payment.updated'`, `'order.processed'`, … */
  readonly action?: string;
  /** When the notified resource was created (ISO 8601). Not signed. */
  readonly date_created?: string;
  /** Whether the notification is of production (`true`) or test credentials. */
  readonly live_mode?: boolean;
  /** The seller's user id. */
  readonly user_id?: number | string;
  /** The notified resource: `id` is signed; an order also carries its state here, unsigned. */
  readonly data?: { readonly id?: string | number; readonly [field: string]: unknown };
  /** Anything else Mercado Pago sends. */
  readonly [field: string]: unknown;
}

const NOTIFICATION = defineEnvelope({
  id: identifier(),
  type: nonEmptyString(),
  action: optional(string()),
  date_created: optional(string()),
  data: optional(jsonObject()),
});

/** A notification after the envelope check. */
export interface CheckedNotification {
  readonly body: JsonObject;
  /** `id` as text. */
  readonly id: string;
  readonly type: string;
  /** `action`, else the topic. */
  readonly nativeType: string;
  readonly data: JsonObject | undefined;
  /** `data.id` as text: the one body field the signature covers. */
  readonly dataId: string | undefined;
  readonly dateCreated: string | undefined;
}

/**
 * Parses and checks a notification body; `verify()` reads `data.id` from it and `normalize()`
 * the rest.
 * @throws WebhookPayloadError
 */
export function readNotification(rawBody: Buffer): CheckedNotification {
  const body = parseJsonObject(rawBody, 'Mercado Pago notification body');
  const checked = checkEnvelope(NOTIFICATION, body, 'Mercado Pago notification');
  const data = checked.data ?? undefined;
  return {
    body,
    id: toIdentifier(checked.id) as string,
    type: checked.type,
    nativeType: checked.action || checked.type,
    data,
    dataId: toIdentifier(data?.id),
    dateCreated: checked.date_created ?? undefined,
  };
}

// NOTE: only the Orders API says in the notification what became of the order, and that claim
// is not signed: with `verifyWithProvider` (on by default) the order is read from the API
// before handlers run. A `payment` notification says only that the payment changed.
export const ORDER_ACTIONS: Readonly<Record<string, PaymentEventType>> = {
  'order.processed': 'payment.succeeded',
  'order.failed': 'payment.failed',
  'order.canceled': 'payment.canceled',
  'order.expired': 'payment.canceled',
  'order.refunded': 'refund.succeeded',
};

/** The normalized type an Orders API notification claims, if any. */
export function mapMercadoPagoType(
  notification: CheckedNotification,
): PaymentEventType | undefined {
  return notification.type === 'order'
    ? ownValue(ORDER_ACTIONS, notification.nativeType)
    : undefined;
}

/** The payment (or order) a notification is about: `data.id` of the payment and order topics. */
export function paymentRefOf(notification: CheckedNotification): string | undefined {
  return notification.type === 'payment' || notification.type === 'order'
    ? notification.dataId
    : undefined;
}

/**
 * What a paid order claims it was paid: `total_paid_amount` (a decimal string) in minor units of
 * `data.currency`, else of the endpoint's `currency`; nothing for other notifications.
 */
export function paidAmountOf(
  notification: CheckedNotification,
  type: PaymentEventType | undefined,
  fallbackCurrency: string | undefined,
): { amount?: number; currency?: string } {
  if (type !== 'payment.succeeded') {
    return {};
  }
  const currency = toCurrency(notification.data?.currency) ?? fallbackCurrency;
  const value = readString(notification.data, 'total_paid_amount');
  return {
    amount:
      value === undefined || currency === undefined ? undefined : toMinorUnits(value, currency),
    currency,
  };
}

/** The order's `external_reference` (your order id), for Orders API notifications. */
export function merchantRefOf(notification: CheckedNotification): string | undefined {
  return notification.type === 'order'
    ? readString(notification.data, 'external_reference')
    : undefined;
}

/** The order's status as the notification states it. */
export function statusOf(notification: CheckedNotification): string | undefined {
  return notification.type === 'order' ? readString(notification.data, 'status') : undefined;
}

/** When the notification says the resource was created. */
export function occurredAtOf(notification: CheckedNotification): Date | undefined {
  return parseIsoDate(notification.dateCreated);
}
