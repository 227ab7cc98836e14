import {
  CallHandler,
  ExecutionContext,
  Injectable,
  NestInterceptor,
  Optional,
} from '@nestjs/common';
import { from, Observable } from 'rxjs';
import { PlatformDeliveries, PlatformRequest } from './platform-deliveries';
import { takeVerified } from './verified-requests';

/**
 * Commits the delivery `PaymentWebhookGuard` verified and writes the provider's exact answer
 * (status, content type, body: `OK` for T-Bank, `[accepted]` for Adyen), or lets the 503 of a
 * store that fails or stalls past `storeTimeoutMs` through. The route's method is never called:
 * what the provider sees is the answer of the module's own route, and the event's work belongs
 * in `@OnPaymentEvent` handlers, which run once per event with the ledger and retries.
 */
@Injectable()
export class PaymentWebhookInterceptor implements NestInterceptor<unknown, void> {
  constructor(@Optional() private readonly deliveries?: PlatformDeliveries) {}

  intercept(context: ExecutionContext, _next: CallHandler): Observable<void> {
    const http = context.switchToHttp();
    const request = http.getRequest<PlatformRequest>();
    const verified = takeVerified(request);
    if (!verified || !this.deliveries) {
      // NOTE: unreachable through @PaymentWebhook(), which puts the guard in front.
      throw new Error('PaymentWebhookInterceptor runs only behind PaymentWebhookGuard');
    }
    return from(this.deliveries.answer(verified, request, http.getResponse()));
  }
}
