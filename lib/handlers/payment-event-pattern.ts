import { PaymentEventType } from '../core/payment-event-types';

/**
 * What a handler subscribes to: a normalized type, a provider's native type as
 * `'<kind>:<native>'`, or `'*'` for every event.
 */
export type PaymentEventPattern = PaymentEventType | `${string}:${string}` | '*';
