import { Injectable } from '@nestjs/common';
import { OnPaymentEvent } from 'nestjs-payment-webhooks';
import type { PaymentEvent, WebhookContext } from 'nestjs-payment-webhooks';
import { QueryDeepPartialEntity } from 'typeorm/query-builder/QueryPartialEntity';
import { Order, OrderState } from './order.entity';

/**
 * Applies payment events to orders. Each change is one conditional UPDATE in the handler's
 * transaction: two events for one payment (a re-send with a new id, Stripe's checkout and
 * intent events) cannot both mark an order paid, and a late cancel cannot undo a payment.
 */
@Injectable()
export class OrderPaymentsHandler {
  @OnPaymentEvent('payment.succeeded')
  async paid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const changed = await this.moveFromPending(event, ctx, 'paid', {
      paidAt: new Date(),
      fulfilments: () => 'fulfilments + 1',
    });
    if (changed) {
      // The paid-order action (shipping, e-mail, …) belongs here: it runs once per order.
      ctx.logger.log(`Order ${event.merchantRef} paid (${event.endpoint} ${event.eventId})`);
    }
  }

  @OnPaymentEvent('payment.canceled')
  async canceled(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await this.moveFromPending(event, ctx, 'canceled');
  }

  /**
   * Moves the event's order from `pending` to `to` (with `changes`) in one conditional UPDATE;
   * true when this call made the change. Logs why when it did not.
   */
  private async moveFromPending(
    event: PaymentEvent,
    ctx: WebhookContext,
    to: OrderState,
    changes: QueryDeepPartialEntity<Order> = {},
  ): Promise<boolean> {
    const orderId = event.merchantRef;
    if (!orderId) {
      ctx.logger.warn(
        `${event.endpoint} ${event.eventId} carries no order id; acknowledged and skipped`,
      );
      return false;
    }
    const result = await ctx.manager
      .createQueryBuilder()
      .update(Order)
      .set({ ...changes, state: to })
      .where('id = :id AND state = :from', { id: orderId, from: 'pending' satisfies OrderState })
      .execute();
    if (result.affected) {
      return true;
    }
    const order = await ctx.manager.findOneBy(Order, { id: orderId });
    if (!order) {
      ctx.logger.warn(
        `Unknown order ${orderId} in ${event.endpoint} ${event.eventId}; acknowledged and skipped`,
      );
    } else {
      ctx.logger.log(`Order ${orderId} is ${order.state}; ${event.type} does not make it ${to}`);
    }
    return false;
  }
}
