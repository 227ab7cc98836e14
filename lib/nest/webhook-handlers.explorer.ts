import { Injectable, Logger, OnModuleInit } from '@nestjs/common';
import { DiscoveryService, MetadataScanner } from '@nestjs/core';
import { InstanceWrapper } from '@nestjs/core/injector/instance-wrapper';
import { PaymentEvent, WebhookContext } from '../handlers/payment-event.interface';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { WebhooksMetadataAccessor } from './webhooks-metadata.accessor';

/** Finds `@OnPaymentEvent` methods on every provider at bootstrap and registers them. */
@Injectable()
export class WebhookHandlersExplorer implements OnModuleInit {
  private readonly logger = new Logger('WebhooksModule');

  constructor(
    private readonly discovery: DiscoveryService,
    private readonly scanner: MetadataScanner,
    private readonly accessor: WebhooksMetadataAccessor,
    private readonly registry: WebhookHandlerRegistry,
  ) {}

  onModuleInit(): void {
    for (const wrapper of this.discovery.getProviders()) {
      this.explore(wrapper);
    }
  }

  private explore(wrapper: InstanceWrapper): void {
    const { instance } = wrapper;
    if (!instance || typeof instance !== 'object') {
      return;
    }
    const prototype = Object.getPrototypeOf(instance) as Record<string, unknown>;
    for (const methodName of this.scanner.getAllMethodNames(prototype)) {
      const method = prototype[methodName] as (...args: unknown[]) => unknown;
      const registrations = this.accessor.getHandlerMetadata(method);
      if (!registrations?.length) {
        continue;
      }
      if (!wrapper.isDependencyTreeStatic()) {
        this.logger.warn(
          `${wrapper.name}.${methodName} is on a request-scoped provider; @OnPaymentEvent handlers ` +
            'run outside any request, so it was not registered. Make the provider singleton-scoped.',
        );
        continue;
      }
      registrations.forEach((registration, index) => {
        const base = registration.options.key ?? `${instance.constructor.name}.${methodName}`;
        const key = index === 0 || registration.options.key ? base : `${base}#${index}`;
        const endpoint = registration.options.endpoint;
        // NOTE: the registry refuses a taken key and an endpoint that is not configured.
        this.registry.add({
          key,
          patterns: registration.patterns,
          endpoints: endpoint === undefined ? undefined : [endpoint].flat(),
          invoke: async (event: PaymentEvent, ctx: WebhookContext) => {
            await method.call(instance, event, ctx);
          },
        });
      });
    }
  }
}
