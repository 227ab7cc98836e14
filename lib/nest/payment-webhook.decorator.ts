import { applyDecorators, Res, SetMetadata, UseGuards, UseInterceptors } from '@nestjs/common';
import { PAYMENT_WEBHOOK_METADATA } from './webhooks.constants';
import { PaymentWebhookGuard } from './payment-webhook.guard';
import { PaymentWebhookInterceptor } from './payment-webhook.interceptor';

/**
 * Makes a route of the app's own receive deliveries for a configured endpoint, exactly as
 * `POST /{path}/{endpoint}` does: the raw bytes are verified (400 on a bad signature, 403 for a
 * source outside `allowedIps`, 413 over `maxBodyBytes`), the event is committed, and the
 * provider gets its exact success answer (503 when the store fails). For apps whose provider
 * dashboards already point at a fixed URL.
 *
 * The method itself is never called, and its return value would not be what the provider sees:
 * leave its body empty and handle the events with `@OnPaymentEvent`, as for the module's route.
 * The controller's module must see WebhooksModule (import it there, or register it with
 * `isGlobal: true`). Startup fails when `endpoint` is not configured, or when the route's method
 * is not one the endpoint's provider delivers with.
 *
 * @param endpoint the `name` of an endpoint given to `WebhooksModule.forRoot({ endpoints })`.
 * @example
 * ```ts
 * @Controller('api')
 * export class StripeHookController {
 *   @Post('stripe/hook')
 *   @PaymentWebhook('stripe')
 *   receive(): void {}
 * }
 * ```
 */
export function PaymentWebhook(endpoint: string): MethodDecorator {
  return applyDecorators(
    SetMetadata(PAYMENT_WEBHOOK_METADATA, endpoint),
    UseGuards(PaymentWebhookGuard),
    UseInterceptors(PaymentWebhookInterceptor),
    answeredByInterceptor,
  );
}

/**
 * NOTE: the interceptor writes the answer through the HTTP adapter, as the module's route does.
 * Declaring the response as the route's own (what `@Res()` on a parameter does) keeps Nest, and
 * the app's other interceptors that map results, from sending anything in its place. The
 * parameter comes after the method's own; the method is never called with it.
 */
const answeredByInterceptor: MethodDecorator = (target, key, descriptor) => {
  const declared = typeof descriptor.value === 'function' ? descriptor.value.length : 0;
  Res()(target, key, declared);
};
