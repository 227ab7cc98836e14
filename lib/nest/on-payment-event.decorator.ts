import { extendArrayMetadata } from '@nestjs/common/utils/extend-metadata.util';
import { ON_PAYMENT_EVENT_METADATA } from './webhooks.constants';
import { PaymentEventPattern } from '../handlers/payment-event-pattern';

export type { PaymentEventPattern } from '../handlers/payment-event-pattern';

/** Options of `@OnPaymentEvent`. */
export interface OnPaymentEventOptions {
  /**
   * Only events that arrived on these endpoints; `'*'` for every endpoint, tenant endpoints'
   * events and the app's own alike.
   * @default every endpoint, where the app has no tenant endpoint beside endpoints of its own
   */
  endpoint?: string | string[];
  /**
   * Stable key recorded in the handler ledger. Change it and the handler counts as new.
   * @default 'ClassName.methodName'
   */
  key?: string;
}

/** One `@OnPaymentEvent` registration, as stored in metadata. */
export interface OnPaymentEventMetadata {
  readonly patterns: readonly PaymentEventPattern[];
  readonly options: OnPaymentEventOptions;
}

/**
 * Runs the decorated method for matching stored events, in the background, once per event:
 * its success is recorded in the same transaction as the writes it makes through `ctx.manager`.
 * A method may carry several of these.
 *
 * @example
 * ```ts
 * @Injectable()
 * export class OrdersWebhooks {
 *   @OnPaymentEvent('payment.succeeded')
 *   async paid(event: PaymentEvent, ctx: WebhookContext) {
 *     await ctx.manager.update(Order, { id: event.merchantRef, state: 'pending' }, { state: 'paid' });
 *   }
 * }
 * ```
 */
export function OnPaymentEvent(
  pattern: PaymentEventPattern | PaymentEventPattern[],
  options: OnPaymentEventOptions = {},
): MethodDecorator {
  const patterns = Array.isArray(pattern) ? pattern : [pattern];
  return (target, _key, descriptor) => {
    extendArrayMetadata(
      ON_PAYMENT_EVENT_METADATA,
      [{ patterns, options } satisfies OnPaymentEventMetadata],
      descriptor.value as unknown as (...args: never[]) => unknown,
    );
    return descriptor;
  };
}
