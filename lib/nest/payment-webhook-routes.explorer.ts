import { Inject, Injectable, OnModuleInit, RequestMethod } from '@nestjs/common';
import { METHOD_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { PAYMENT_WEBHOOK_METADATA, WEBHOOKS_RESOLVED_OPTIONS } from './webhooks.constants';
import {
  PAYMENT_WEBHOOK_METHOD,
  PAYMENT_WEBHOOK_NOT_A_ROUTE,
  UNKNOWN_PAYMENT_WEBHOOK_ENDPOINT,
} from './webhooks.messages';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';

/**
 * Checks every `@PaymentWebhook()` route of the app at bootstrap, so that a misspelt endpoint
 * name or a route no delivery can reach fails startup instead of answering each delivery 404
 * or 405.
 */
@Injectable()
export class PaymentWebhookRoutesExplorer implements OnModuleInit {
  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly reflector: Reflector,
    @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
  ) {}

  /** @throws WebhookConfigurationError naming the route and the fix. */
  onModuleInit(): void {
    for (const wrapper of this.discovery.getControllers()) {
      const prototype = (wrapper.metatype as { prototype?: object } | undefined)?.prototype;
      if (!prototype) {
        continue;
      }
      for (const name of this.scanner.getAllMethodNames(prototype)) {
        const method = (prototype as Record<string, () => unknown>)[name];
        const endpoint = this.reflector.get<string | undefined>(PAYMENT_WEBHOOK_METADATA, method);
        if (endpoint !== undefined) {
          this.check(`${wrapper.name}.${name}`, endpoint, method);
        }
      }
    }
  }

  private check(route: string, name: string, method: () => unknown): void {
    const endpoint = this.options.endpoints.get(name);
    if (!endpoint) {
      throw new WebhookConfigurationError(
        UNKNOWN_PAYMENT_WEBHOOK_ENDPOINT(route, name, [...this.options.endpoints.keys()]),
      );
    }
    const routeMethod = this.reflector.get<RequestMethod | undefined>(METHOD_METADATA, method);
    if (routeMethod === undefined) {
      throw new WebhookConfigurationError(PAYMENT_WEBHOOK_NOT_A_ROUTE(route));
    }
    const methods = endpoint.provider.methods ?? ['POST'];
    const given = RequestMethod[routeMethod];
    if (!(methods as readonly string[]).includes(given)) {
      throw new WebhookConfigurationError(PAYMENT_WEBHOOK_METHOD(route, given, name, methods));
    }
  }
}
