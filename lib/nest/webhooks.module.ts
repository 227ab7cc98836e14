import { ConfigurableModuleAsyncOptions, DynamicModule, Module } from '@nestjs/common';
import { WebhooksModuleOptions } from '../options/webhooks-module-options.interface';
import { WebhooksModuleExtras } from './webhooks-module-extras';
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
// NOTE: forRoot() and forRootAsync() call the builder's class rather than extend it, so that the
// declarations name only public types (API Extractor would flag the builder's class as a base).
@Module({})
export class WebhooksModule {
  /** Registers the module with its options and the extras that shape it. */
  static forRoot(options: WebhooksModuleOptions & Partial<WebhooksModuleExtras>): DynamicModule {
    return { ...ConfigurableWebhooksModule.forRoot(options), module: WebhooksModule };
  }

  /**
   * Registers the module with options a factory makes (`useFactory`, `useClass`,
   * `useExisting`); the extras, which shape routes and providers, are given here directly.
   */
  static forRootAsync(
    options: ConfigurableModuleAsyncOptions<WebhooksModuleOptions> & Partial<WebhooksModuleExtras>,
  ): DynamicModule {
    return { ...ConfigurableWebhooksModule.forRootAsync(options), module: WebhooksModule };
  }
}
