import { StripeModule } from '@golevelup/nestjs-stripe';
import { Module } from '@nestjs/common';
import { PaymentEventsHandler } from './payment-events.handler';
import { StripeEventStore } from './stripe-event.store';

const secret = process.env.STRIPE_WEBHOOK_SECRET ?? '';

@Module({
  imports: [
    StripeModule.forRoot({
      // NOTE: the client is only used to check signatures; no call reaches Stripe's API.
      apiKey: 'sk_test_benchmark_only',
      webhookConfig: {
        // NOTE: the module picks the secret by the event's `livemode`; the benchmark's events
        // are test-mode events.
        stripeSecrets: { account: secret, accountTest: secret },
        requestBodyProperty: 'rawBody',
      },
    }),
  ],
  providers: [StripeEventStore, PaymentEventsHandler],
})
export class AppModule {}
