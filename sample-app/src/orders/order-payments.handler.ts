import { Injectable } from '@nestjs/common';
import { OnPaymentEvent } from 'nestjs-payment-webhooks';
import {
  applyPaymentEvent,
  definePaymentStates,
  paymentStateTarget,
} from 'nestjs-payment-webhooks/payments';
import type { PaymentEvent, WebhookContext } from 'nestjs-payment-webhooks';
import { Order } from './order.entity';

/**
 * How an order's state may move, and which payment events move it. Never backwards: a late
 * `payment.canceled` cannot undo `paid`, a repeated `payment.succeeded` cannot pay twice.
 */
export const orderStates = definePaymentStates({
  states: ['pending', 'paid', 'canceled', 'refunded'],
  transitions: {
    pending: ['paid', 'canceled'],
    paid: ['refunded'],
  },
  events: {
    'payment.succeeded': 'paid',
    'payment.canceled': 'canceled',
    'refund.succeeded': 'refunded',
  },
});

/** The orders table as the state helper sees it. */
export const orderPayments = paymentStateTarget(Order, { machine: orderStates, state: 'state' });

/**
 * Applies payment events to orders. Each change is one conditional UPDATE in the handler's
 * transaction (`applyPaymentEvent`), and the paid-order action runs only for the call that
 * made the change: two events for one payment (a re-send with a new id, Stripe's checkout and
 * intent events, a reconciled payment) fulfil the order once. An order paid through the
 * merchants endpoint records the merchant (`event.tenant`).
 */
@Injectable()
export class OrderPaymentsHandler {
  // NOTE: every endpoint, the merchants' included: their orders are this shop's orders too.
  @OnPaymentEvent(['payment.succeeded', 'payment.canceled', 'refund.succeeded'], { endpoint: '*' })
  async apply(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const orderId = event.merchantRef;
    if (!orderId) {
      ctx.logger.warn(
        `${event.endpoint} ${event.eventId} carries no order id; acknowledged and skipped`,
      );
      ctx.recordOutcome('no_order');
      return;
    }
    const result = await applyPaymentEvent(ctx.manager, orderPayments, orderId, event, {
      logger: ctx.logger,
    });
    ctx.recordOutcome(result.outcome);
    if (result.outcome === 'applied' && result.to === 'paid') {
      // The paid-order action (shipping, e-mail, …) belongs here: it runs once per order.
      await ctx.manager.update(
        Order,
        { id: orderId },
        { paidAt: new Date(), fulfilments: () => 'fulfilments + 1', merchant: event.tenant },
      );
      // NOTE: the tenant is the merchant of a delivery to /webhooks/merchants/{slug}, else null.
      const source = event.tenant === null ? event.endpoint : `${event.endpoint}/${event.tenant}`;
      ctx.logger.log(`Order ${orderId} paid (${source} ${event.eventId})`);
    }
  }
}
