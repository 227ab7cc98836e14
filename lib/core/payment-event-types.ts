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
] as const;

/** A normalized payment event type. */
export type PaymentEventType = (typeof PAYMENT_EVENT_TYPES)[number];

/** True when `value` is one of the normalized types. */
export function isPaymentEventType(value: unknown): value is PaymentEventType {
  return typeof value === 'string' && (PAYMENT_EVENT_TYPES as readonly string[]).includes(value);
}
