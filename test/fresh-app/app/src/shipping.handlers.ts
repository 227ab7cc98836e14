import { Injectable } from '@nestjs/common';
import { OnPaymentEvent, type PaymentEvent, type WebhookContext } from 'nestjs-payment-webhooks';
import { Shipment } from './shipment.entity';

@Injectable()
export class ShippingHandlers {
  /** Ships once per paid event: the insert commits with the handler's ledger row. */
  @OnPaymentEvent('payment.succeeded')
  async ship(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    await ctx.manager.insert(Shipment, { eventId: event.eventId, paymentRef: event.paymentRef });
  }
}
