/**
 * A normalized payment event type.
 *
 * NOTE: spelled out rather than derived from `PAYMENT_EVENT_TYPES`, so that the entries which
 * export this type need not export the list (the root does not); `_everyTypeListed` below keeps
 * the two the same.
 */
export type PaymentEventType =
  | 'payment.authorized'
  | 'payment.succeeded'
  | 'payment.failed'
  | 'payment.canceled'
  | 'refund.succeeded'
  | 'refund.failed'
  | 'dispute.opened'
  | 'dispute.closed';

/** The normalized event types every provider maps its native types to. */
export const PAYMENT_EVENT_TYPES = [
  'payment.authorized',
  'payment.succeeded',
  'payment.failed',
  'payment.canceled',
  'refund.succeeded',
  'refund.failed',
  'dispute.opened',
  'dispute.closed',
] as const satisfies readonly PaymentEventType[];

const _everyTypeListed: [Exclude<PaymentEventType, (typeof PAYMENT_EVENT_TYPES)[number]>] extends [
  never,
]
  ? true
  : never = true;

/** True when `value` is one of the normalized types. */
export function isPaymentEventType(value: unknown): value is PaymentEventType {
  return typeof value === 'string' && (PAYMENT_EVENT_TYPES as readonly string[]).includes(value);
}
