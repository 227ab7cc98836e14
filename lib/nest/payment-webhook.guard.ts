import {
  CanActivate,
  ExecutionContext,
  Injectable,
  OnModuleInit,
  Optional,
  RequestMethod,
} from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { Reflector } from '@nestjs/core';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { PAYMENT_WEBHOOK_METADATA } from './webhooks.constants';
import { PAYMENT_WEBHOOK_WITHOUT_MODULE } from './webhooks.messages';
import { PlatformDeliveries, PlatformRequest } from './platform-deliveries';
import { keepVerified } from './verified-requests';

/**
 * Verifies the raw bytes of a delivery to an app's own `@PaymentWebhook(endpoint)` route, with
 * the checks and answers of the module's route: 403 for a refused source, 413 over the size
 * limit, 400 for a bad signature, a stale timestamp or a broken envelope, 500 naming the fix
 * when the raw body is missing. Nothing is stored here: `PaymentWebhookInterceptor` commits what
 * passed, so the event stored is the one verified.
 */
@Injectable()
export class PaymentWebhookGuard implements CanActivate, OnModuleInit {
  constructor(
    private readonly reflector: Reflector,
    // NOTE: optional, so that a module that cannot see WebhooksModule fails startup with
    // the fix rather than with Nest's generic "can't resolve dependencies".
    @Optional() private readonly deliveries?: PlatformDeliveries,
  ) {}

  onModuleInit(): void {
    if (!this.deliveries) {
      throw new WebhookConfigurationError(PAYMENT_WEBHOOK_WITHOUT_MODULE);
    }
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const handler = context.getHandler();
    const endpoint = this.reflector.get<string>(PAYMENT_WEBHOOK_METADATA, handler);
    const routeMethod = this.reflector.get<RequestMethod>(METHOD_METADATA, handler);
    const http = context.switchToHttp();
    const request = http.getRequest<PlatformRequest>();
    // NOTE: the route's method, not the request's, as for the module's route: Express also
    // serves HEAD from a GET route.
    const method = routeMethod === RequestMethod.GET ? 'GET' : 'POST';
    // NOTE: a tenant endpoint's route names its tenant with a `:tenant` parameter.
    const tenant = request.params?.tenant;
    const route = tenant === undefined ? { endpoint } : { endpoint, tenant };
    const verified = await this.deliveries!.verify(route, method, request, http.getResponse());
    keepVerified(request, verified);
    return true;
  }
}
