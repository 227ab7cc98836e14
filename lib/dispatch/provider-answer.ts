import { PaymentEventType } from '../core/payment-event-types';

/**
 * The states a payment can only have reached by passing through the event's state: a payment is
 * captured only after it was authorized, and refunded (or a refund fails) only after it was paid.
 * A cancellation or a failure is not among them: a payment can be canceled or fail without ever
 * being authorized or paid.
 */
const LATER_STATES: ReadonlyMap<string, ReadonlySet<PaymentEventType>> = new Map([
  [
    'payment.authorized',
    new Set<PaymentEventType>(['payment.succeeded', 'refund.succeeded', 'refund.failed']),
  ],
  ['payment.succeeded', new Set<PaymentEventType>(['refund.succeeded', 'refund.failed'])],
]);

/**
 * Whether the provider's current state confirms an event: it is the event's own state, or a later
 * one the payment can only have reached through it (a `payment.succeeded` checked after the
 * payment was refunded). The provider's answer is then newer than the event, not contrary to it,
 * and the event's handlers run: their effect is part of the payment's history, which the later
 * events' handlers build on.
 * @param eventType the stored event's normalized type.
 * @param current what the provider's current status amounts to.
 */
export function providerConfirms(
  eventType: string,
  current: PaymentEventType | undefined,
): boolean {
  if (current === undefined) {
    return false;
  }
  return current === eventType || LATER_STATES.get(eventType)?.has(current) === true;
}
