import { Module } from '@nestjs/common';
import { ConfigurableWebhooksModule } from './webhooks.module-definition';

/**
 * Receives payment-provider webhooks at `POST /{path}/{endpoint}`: verifies the raw bytes,
 * stores the event once, answers exactly what the provider expects, and runs the
 * `@OnPaymentEvent` handlers in the background with retries and a dead-letter state.
 *
 * @example
 * ```ts
 * WebhooksModule.forRoot({
 *   endpoints: [stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET! })],
 * })
 * ```
 */
@Module({})
export class WebhooksModule extends ConfigurableWebhooksModule {}
