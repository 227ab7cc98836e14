import { Inject, Injectable, OnModuleInit, RequestMethod, Type } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA } from '@nestjs/common/constants';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { PAYMENT_WEBHOOK_METADATA, WEBHOOKS_RESOLVED_OPTIONS } from './webhooks.constants';
import {
  PAYMENT_WEBHOOK_WITHOUT_TENANT,
  PAYMENT_WEBHOOK_METHOD,
  PAYMENT_WEBHOOK_NOT_A_ROUTE,
  UNKNOWN_PAYMENT_WEBHOOK_ENDPOINT,
} from './webhooks.messages';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';

/** A route of the app's own that receives an endpoint's deliveries through `@PaymentWebhook()`. */
export interface PaymentWebhookRoute {
  readonly endpoint: string;
  /** `Controller.method`. */
  readonly handler: string;
  readonly method: string;
  /** The controller's path joined with the method's (several when either declares several). */
  readonly paths: readonly string[];
}

/**
 * Checks every `@PaymentWebhook()` route of the app at bootstrap, so that a misspelt endpoint
 * name or a route no delivery can reach fails startup instead of answering each delivery 404
 * or 405; keeps the routes it checked, for the startup summary.
 */
@Injectable()
export class PaymentWebhookRoutesExplorer implements OnModuleInit {
  /** The app's `@PaymentWebhook()` routes, once the module has initialized. */
  readonly routes: PaymentWebhookRoute[] = [];

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
          const handler = `${wrapper.name}.${name}`;
          const paths = this.pathsOf(wrapper.metatype as Type<unknown>, method);
          this.routes.push({
            endpoint,
            handler,
            method: this.check(handler, endpoint, method, paths),
            paths,
          });
        }
      }
    }
  }

  /** @returns the route's HTTP method, once it is one the endpoint takes. */
  private check(
    route: string,
    name: string,
    method: () => unknown,
    paths: readonly string[],
  ): string {
    const endpoint = this.options.endpoints.get(name);
    if (!endpoint) {
      throw new WebhookConfigurationError(
        UNKNOWN_PAYMENT_WEBHOOK_ENDPOINT(route, name, [...this.options.endpoints.keys()]),
      );
    }
    if (isTenantEndpoint(endpoint) && !paths.some((path) => /(^|\/):tenant(\/|$)/.test(path))) {
      throw new WebhookConfigurationError(PAYMENT_WEBHOOK_WITHOUT_TENANT(route, name));
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
    return given;
  }

  private pathsOf(controller: Type<unknown>, method: () => unknown): string[] {
    const paths = (target: Type<unknown> | (() => unknown)) =>
      [this.reflector.get<string | string[] | undefined>(PATH_METADATA, target) ?? '/'].flat();
    return paths(controller).flatMap((base) => paths(method).map((path) => `${base}/${path}`));
  }
}
