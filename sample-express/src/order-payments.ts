import {
  applyPaymentEvent,
  definePaymentStates,
  paymentStateTarget,
} from 'nestjs-payment-webhooks/payments';
import type {
  PaymentEvent,
  WebhookContext,
  WebhookHandlerDefinition,
} from 'nestjs-payment-webhooks/express';
import { Order } from '../../sample-app/src/orders/order.entity';

/**
 * How an order's state may move, and which payment events move it (the Nest shop's machine).
 * Never backwards: a late `payment.canceled` cannot undo `paid`, a repeated
 * `payment.succeeded` cannot pay twice.
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
 * Applies a payment event to its order. The change is one conditional UPDATE in the handler's
 * transaction (`applyPaymentEvent`), and the paid-order action runs only for the call that made
 * the change: two events for one payment (a re-send with a new id, Stripe's checkout and intent
 * events, a reconciled payment) fulfil the order once. An order paid through the merchants
 * endpoint records the merchant (`event.tenant`).
 */
export async function applyOrderPayment(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
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

/**
 * The shop's handlers, as the webhooks router takes them, under the Nest shop's handler key
 * (`OrderPaymentsHandler.apply`): the ledger rows read the same whichever shop wrote them.
 */
export const orderPaymentHandlers: WebhookHandlerDefinition[] = [
  {
    on: ['payment.succeeded', 'payment.canceled', 'refund.succeeded'],
    name: 'OrderPaymentsHandler.apply',
    // every endpoint, the merchants' included: their orders are this shop's orders too
    endpoint: '*',
    handle: applyOrderPayment,
  },
];
