import { Injectable } from '@nestjs/common';
import { OnPaymentEvent } from 'nestjs-payment-webhooks';
import type { PaymentEvent, WebhookContext } from 'nestjs-payment-webhooks';
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
    const orderId = this.orderIdOf(event, ctx);
    if (!orderId) {
      return;
    }
    const result = await ctx.manager
      .createQueryBuilder()
      .update(Order)
      .set({ state: 'paid', paidAt: new Date(), fulfilments: () => 'fulfilments + 1' })
      .where('id = :id AND state = :from', { id: orderId, from: 'pending' satisfies OrderState })
      .execute();
    if (result.affected) {
      // The paid-order action (shipping, e-mail, …) belongs here: it runs once per order.
      ctx.logger.log(`Order ${orderId} paid (${event.endpoint} ${event.eventId})`);
      return;
    }
    await this.explainNoChange(orderId, 'paid', event, ctx);
  }

  @OnPaymentEvent('payment.canceled')
  async canceled(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const orderId = this.orderIdOf(event, ctx);
    if (!orderId) {
      return;
    }
    const result = await ctx.manager
      .createQueryBuilder()
      .update(Order)
      .set({ state: 'canceled' })
      .where('id = :id AND state = :from', { id: orderId, from: 'pending' satisfies OrderState })
      .execute();
    if (!result.affected) {
      await this.explainNoChange(orderId, 'canceled', event, ctx);
    }
  }

  private orderIdOf(event: PaymentEvent, ctx: WebhookContext): string | null {
    if (!event.merchantRef) {
      ctx.logger.warn(
        `${event.endpoint} ${event.eventId} carries no order id; acknowledged and skipped`,
      );
    }
    return event.merchantRef;
  }

  private async explainNoChange(
    orderId: string,
    wanted: OrderState,
    event: PaymentEvent,
    ctx: WebhookContext,
  ): Promise<void> {
    const order = await ctx.manager.findOneBy(Order, { id: orderId });
    if (!order) {
      ctx.logger.warn(
        `Unknown order ${orderId} in ${event.endpoint} ${event.eventId}; acknowledged and skipped`,
      );
    } else {
      ctx.logger.log(
        `Order ${orderId} is ${order.state}; ${event.type} does not make it ${wanted}`,
      );
    }
  }
}
