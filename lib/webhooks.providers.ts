import { DynamicModule, Provider, Type } from '@nestjs/common';
import { DiscoveryModule, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { createWebhookAdminController } from './admin/webhook-admin.controller';
import { WebhookAdmin } from './admin/webhook-admin.service';
import { ReconciliationService } from './reconciliation/reconciliation.service';
import { WebhookRetention } from './retention/webhook-retention.service';
import { WebhookTelemetry } from './observability/webhook-telemetry';
import { InboxSampler } from './observability/inbox-sampler';
import { optionalObservabilityParts } from './observability/observability.providers';
import { WebhooksHealthIndicator } from './observability/webhooks-health.indicator';
import { WebhooksStartupSummary } from './observability/webhooks-startup-summary';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookDispatcher } from './dispatch/webhook.dispatcher';
import { WebhookDispatcherLifecycle } from './dispatch/webhook-dispatcher.lifecycle';
import { WebhookEventProcessor } from './dispatch/webhook-event.processor';
import { SafeLogger } from './observability/safe-logger';
import { useNestLogger } from './observability/nest-logger';
import { WebhookHandlerRegistry } from './handlers/webhook-handler.registry';
import { WebhookHandlersExplorer } from './handlers/webhook-handlers.explorer';
import { WebhooksMetadataAccessor } from './handlers/webhooks-metadata.accessor';
import { createWebhooksController } from './ingress/webhooks.controller';
import { WebhookIngress } from './ingress/webhook-ingress.service';
import { WebhookSourceGate } from './ingress/webhook-source-gate';
import { PlatformDeliveries } from './ingress/platform-deliveries';
import { appKeepsRawBody } from './ingress/raw-body-option';
import { PaymentWebhookRoutesExplorer } from './ingress/payment-webhook-routes.explorer';
import {
  WebhooksModuleExtras,
  WebhooksModuleOptions,
} from './interfaces/webhooks-module-options.interface';
import { webhookEntities } from './store/entities';
import { InboxSignal } from './store/inbox-signal';
import { TypeOrmWebhookStore } from './store/typeorm-webhook.store';
import { WebhookStore } from './store/webhook-store.interface';
import { InboxQueries, InboxWorker, InboxWriter } from './store/ports';
import { WebhookTransactions } from './store/webhook-transactions.service';
import {
  DEFAULT_WEBHOOKS_PATH,
  WEBHOOKS_RESOLVED_OPTIONS,
  WEBHOOKS_ROUTE_PATH,
} from './webhooks.constants';
import { ResolvedWebhooksOptions, resolveWebhooksOptions } from './webhooks-options.resolver';
import { WEBHOOKS_MODULE_OPTIONS } from './webhooks.module-definition';

/**
 * Everything the module registers besides the options provider the builder adds.
 * @param options the options given to `forRoot()`; `undefined` for `forRootAsync()`, whose
 * options are known only at startup.
 */
export function createWebhooksModuleParts(
  extras: WebhooksModuleExtras,
  options?: WebhooksModuleOptions,
): {
  imports: (DynamicModule | Type<unknown>)[];
  controllers: Type<unknown>[];
  providers: Provider[];
  exports: (Provider | symbol | Type<unknown>)[];
} {
  const path = (extras.path ?? DEFAULT_WEBHOOKS_PATH).replace(/^\/+|\/+$/g, '');
  useNestLogger();
  const observability = optionalObservabilityParts(options?.observability, options !== undefined);
  return {
    imports: [DiscoveryModule, TypeOrmModule.forFeature(webhookEntities, extras.dataSource)],
    controllers: [
      createWebhooksController(path, extras.controllerDecorators ?? []),
      ...(extras.admin ? [createWebhookAdminController(extras.admin)] : []),
    ],
    providers: [
      {
        provide: WEBHOOKS_RESOLVED_OPTIONS,
        useFactory: (options: WebhooksModuleOptions) => resolveWebhooksOptions(options),
        inject: [WEBHOOKS_MODULE_OPTIONS],
      },
      { provide: WEBHOOKS_ROUTE_PATH, useValue: path },
      {
        provide: WebhookStore,
        useFactory: async (dataSource: DataSource, options: ResolvedWebhooksOptions) => {
          const store = new TypeOrmWebhookStore(dataSource, {
            storeTimeoutMs: options.storeTimeoutMs,
            ...options.storage,
          });
          await store.initialize();
          return store;
        },
        inject: [getDataSourceToken(extras.dataSource), WEBHOOKS_RESOLVED_OPTIONS],
      },
      { provide: InboxWriter, useExisting: WebhookStore },
      { provide: InboxWorker, useExisting: WebhookStore },
      {
        provide: InboxQueries,
        useFactory: (store: TypeOrmWebhookStore) => store.queries,
        inject: [WebhookStore],
      },
      InboxSignal,
      WebhooksMetadataAccessor,
      {
        provide: WebhookHandlerRegistry,
        useFactory: (options: ResolvedWebhooksOptions) =>
          new WebhookHandlerRegistry(options.endpoints.keys()),
        inject: [WEBHOOKS_RESOLVED_OPTIONS],
      },
      WebhookHandlersExplorer,
      WebhookIngress,
      {
        provide: WebhookSourceGate,
        useFactory: (
          host: HttpAdapterHost,
          ingress: WebhookIngress,
          options: ResolvedWebhooksOptions,
        ) => new WebhookSourceGate(host, ingress, options, path),
        inject: [HttpAdapterHost, WebhookIngress, WEBHOOKS_RESOLVED_OPTIONS],
      },
      {
        provide: PlatformDeliveries,
        useFactory: (
          ingress: WebhookIngress,
          options: ResolvedWebhooksOptions,
          host: HttpAdapterHost,
          moduleRef: ModuleRef,
        ) =>
          new PlatformDeliveries(
            ingress,
            options,
            () => host.httpAdapter,
            appKeepsRawBody(moduleRef),
          ),
        inject: [WebhookIngress, WEBHOOKS_RESOLVED_OPTIONS, HttpAdapterHost, ModuleRef],
      },
      PaymentWebhookRoutesExplorer,
      {
        provide: WebhookDispatcher,
        useFactory: (
          worker: InboxWorker,
          registry: WebhookHandlerRegistry,
          signal: InboxSignal,
          options: ResolvedWebhooksOptions,
          telemetry: WebhookTelemetry,
        ) => {
          const logger = new SafeLogger('WebhookDispatcher');
          const processor = new WebhookEventProcessor(worker, registry, options, telemetry, logger);
          return new WebhookDispatcher(worker, processor, signal, options, logger);
        },
        inject: [
          InboxWorker,
          WebhookHandlerRegistry,
          InboxSignal,
          WEBHOOKS_RESOLVED_OPTIONS,
          WebhookTelemetry,
        ],
      },
      WebhookDispatcherLifecycle,
      WebhookTransactions,
      WebhookAdmin,
      ReconciliationService,
      WebhookRetention,
      WebhookTelemetry,
      InboxSampler,
      WebhooksHealthIndicator,
      ...observability.providers,
      WebhooksStartupSummary,
    ],
    exports: [
      // NOTE: for the guard and interceptor of @PaymentWebhook() routes in the app's modules.
      PlatformDeliveries,
      WebhookStore,
      WebhookDispatcher,
      WebhookTransactions,
      WebhookAdmin,
      ReconciliationService,
      WebhookRetention,
      WebhookTelemetry,
      WebhooksHealthIndicator,
      ...observability.exports,
      WEBHOOKS_RESOLVED_OPTIONS,
    ],
  };
}
