/**
 * `nestjs-payment-webhooks/payments`: the payment-state helpers a handler uses to move its own
 * rows (`definePaymentStates`, `paymentStateTarget`, `transition`, `applyPaymentEvent`), and
 * `fitToColumn` for writing an event's values to its own text columns, and the normalized event
 * types (`PAYMENT_EVENT_TYPES`, `isPaymentEventType`).
 */
export { PAYMENT_EVENT_TYPES, isPaymentEventType } from '../core/payment-event-types';
export type { PaymentEventType } from '../core/payment-event-types';
export type { PaymentEvent } from '../handlers/payment-event.interface';
export type { ProviderPaymentStatus } from '../providers/payment-status-client.interface';
export { definePaymentStates, isPaymentStateMachine } from './payment-state-machine';
export type {
  PaymentStateEventType,
  PaymentStateMachine,
  PaymentStatesDefinition,
} from './payment-state-machine';
export { paymentStateTarget } from './payment-state-target';
export type {
  EntityProperty,
  PaymentStateTarget,
  PaymentStateTargetOptions,
} from './payment-state-target';
export { transition } from './payment-state-transition';
export type {
  PaymentStateLogger,
  TransitionOptions,
  TransitionOutcome,
  TransitionResult,
} from './payment-state-transition';
export { applyPaymentEvent } from './apply-payment-event';
export type {
  ApplyPaymentEventOptions,
  IgnoredPaymentEvent,
  PaymentEventOutcome,
  PaymentEventResult,
} from './apply-payment-event';
export { fitToColumn } from './fit-to-column';
