import { PAYMENT_EVENT_TYPES, PaymentEventType } from '../core/payment-event-types';
import { providerConfirms } from './provider-answer';

describe('providerConfirms', () => {
  it.each(PAYMENT_EVENT_TYPES)('confirms %s when the provider reports the same state', (type) => {
    expect(providerConfirms(type, type)).toBe(true);
  });

  it.each<[string, PaymentEventType]>([
    ['payment.succeeded', 'refund.succeeded'],
    ['payment.succeeded', 'refund.failed'],
    ['payment.authorized', 'payment.succeeded'],
    ['payment.authorized', 'refund.succeeded'],
  ])('confirms %s when the payment has moved on to %s, which only follows it', (type, now) => {
    expect(providerConfirms(type, now)).toBe(true);
  });

  it.each<[string, PaymentEventType | undefined]>([
    ['payment.succeeded', 'payment.canceled'],
    ['payment.succeeded', 'payment.failed'],
    ['payment.succeeded', 'payment.authorized'],
    ['payment.authorized', 'payment.canceled'],
    ['payment.failed', 'payment.succeeded'],
    ['payment.canceled', 'payment.succeeded'],
    ['refund.succeeded', 'payment.succeeded'],
    ['refund.failed', 'refund.succeeded'],
    ['payment.succeeded', undefined],
    ['__proto__', 'payment.succeeded'],
  ])('does not confirm %s when the provider reports %s', (type, now) => {
    expect(providerConfirms(type, now)).toBe(false);
  });
});
