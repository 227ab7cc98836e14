/**
 * The payment-state helpers the root entry exported before they moved to
 * `nestjs-payment-webhooks/payments`, kept so existing imports compile. Each is the same
 * function as the subpath's, marked deprecated so editors point at the new import.
 */
import * as payments from './index';

/** @deprecated Import it from `nestjs-payment-webhooks/payments`. */
export const definePaymentStates = payments.definePaymentStates;

/** @deprecated Import it from `nestjs-payment-webhooks/payments`. */
export const paymentStateTarget = payments.paymentStateTarget;

/** @deprecated Import it from `nestjs-payment-webhooks/payments`. */
export const transition = payments.transition;

/** @deprecated Import it from `nestjs-payment-webhooks/payments`. */
export const applyPaymentEvent = payments.applyPaymentEvent;
