// order-fulfilment.ts: one shipment per paid order, however often the handler runs
import { Injectable } from '@nestjs/common';
import { OnPaymentEvent } from 'nestjs-payment-webhooks';
import type { PaymentEvent, WebhookContext } from 'nestjs-payment-webhooks';

/** Where your fulfilment service's API is: `{ provide: FulfilmentApi, useValue: … }`. */
export class FulfilmentApi {
  constructor(readonly baseUrl: string) {}
}

@Injectable()
export class OrderFulfilment {
  constructor(private readonly api: FulfilmentApi) {}

  @OnPaymentEvent('payment.succeeded')
  async ship(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    const response = await fetch(`${this.api.baseUrl}/v1/shipments`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        // The same key on every run of this handler for this event: the service ships once,
        // and answers a run after the first with the first one's shipment.
        'idempotency-key': ctx.idempotencyKey,
      },
      body: JSON.stringify({ order: event.merchantRef, amount: event.amount }),
    });
    if (!response.ok) {
      throw new Error(`POST /v1/shipments answered ${response.status}`); // retried, same key
    }
    const shipment = (await response.json()) as { id: string };
    ctx.logger.log(`Order ${event.merchantRef} ships as ${shipment.id}`);
  }
}
