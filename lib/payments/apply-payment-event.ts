import type { EntityManager, ObjectLiteral } from 'typeorm';
import type { PaymentEvent } from '../handlers/payment-event.interface';
import { PaymentStateTarget } from './payment-state-target';
import {
  DEFAULT_PAYMENT_STATE_LOGGER,
  PaymentStateLogger,
  runTransition,
  TransitionResult,
} from './payment-state-transition';
import { eventWithoutId } from './payments.messages';

/** `applyPaymentEvent()` found no mapping for the event's type: nothing was read or written. */
export interface IgnoredPaymentEvent {
  readonly outcome: 'ignored';
  readonly changed: false;
  /** The event type the machine does not map. */
  readonly type: string;
}

/** What became of an event applied to a payment's state. */
export type PaymentEventResult<S extends string = string> =
  TransitionResult<S> | IgnoredPaymentEvent;

/** Every outcome an event can have, as recorded for it. */
export type PaymentEventOutcome = PaymentEventResult['outcome'];

/** Options of `applyPaymentEvent()`. */
export interface ApplyPaymentEventOptions {
  /**
   * The version of the new state, for a target with a `version` column.
   * @default none: no version guard
   */
  readonly version?: number | null;
  /**
   * Where `not_allowed`, `stale` and `not_found` are logged; pass the handler's `ctx.logger`.
   * `null` logs nothing.
   * @default a Nest Logger with the context "PaymentStates"
   */
  readonly logger?: PaymentStateLogger | null;
}

/**
 * Applies an event to a payment's state: the machine's `events` map gives the state for
 * `event.type`, and `transition()` moves the row there, guarded by `event.occurredAt` when the
 * target has an `occurredAt` column. A type the machine does not map is `ignored`; a missing id
 * (an event without `merchantRef`, say) is `not_found`. Neither is an error.
 *
 * @param manager the handler's transactional EntityManager (`ctx.manager`).
 * @param target the table, from `paymentStateTarget()`.
 * @param id the row's key, e.g. `event.merchantRef` or `event.paymentRef`.
 * @param event the event being handled.
 * @throws WebhookConfigurationError for the programming errors `transition()` throws on.
 * @example
 * ```ts
 * @OnPaymentEvent(['payment.succeeded', 'payment.canceled'])
 * async onPayment(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
 *   const result = await applyPaymentEvent(ctx.manager, orderPayments, event.merchantRef, event, {
 *     logger: ctx.logger,
 *   });
 *   if (result.outcome === 'applied' && result.to === 'paid') {
 *     await ctx.manager.insert(Shipment, { orderId: event.merchantRef });
 *   }
 * }
 * ```
 */
export async function applyPaymentEvent<E extends ObjectLiteral, S extends string>(
  manager: EntityManager,
  target: PaymentStateTarget<E, S>,
  id: string | number | null | undefined,
  event: Pick<PaymentEvent, 'type' | 'occurredAt'> &
    Partial<Pick<PaymentEvent, 'endpoint' | 'eventId'>>,
  options: ApplyPaymentEventOptions = {},
): Promise<PaymentEventResult<S>> {
  const to = target.machine.targetFor(event.type);
  if (to === undefined) {
    return { outcome: 'ignored', changed: false, type: event.type };
  }
  const logger = options.logger === undefined ? DEFAULT_PAYMENT_STATE_LOGGER : options.logger;
  const prefix =
    event.endpoint !== undefined && event.eventId !== undefined
      ? `${event.endpoint} ${event.eventId} (${event.type}): `
      : `${event.type}: `;
  if (id === null || id === undefined || id === '') {
    logger?.warn(prefix + eventWithoutId(to));
    return { outcome: 'not_found', changed: false, to };
  }
  return runTransition(
    manager,
    target as PaymentStateTarget<ObjectLiteral, S>,
    id,
    to,
    {
      ...(target.occurredAt !== undefined && { occurredAt: event.occurredAt }),
      version: options.version,
      logger,
    },
    prefix,
  );
}
