import { DynamicModule, Provider, Type } from '@nestjs/common';
import { DiscoveryModule, HttpAdapterHost } from '@nestjs/core';
import { createWebhookAdminController } from './admin/webhook-admin.controller';
import { WebhookAdmin } from './admin/webhook-admin.service';
import { ReconciliationService } from './reconciliation/reconciliation.service';
import { WebhookRetention } from './retention/webhook-retention.service';
import { WebhookTelemetry } from './observability/webhook-telemetry';
import { InboxSampler } from './observability/inbox-sampler';
import { WebhookAlertMonitor } from './observability/webhook-alert.monitor';
import { WebhookAlerts } from './observability/webhook-alerts';
import { WebhooksHealthIndicator } from './observability/webhooks-health.indicator';
import { WebhooksMetrics } from './observability/webhooks-metrics';
import { WebhooksStartupSummary } from './observability/webhooks-startup-summary';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookDispatcher } from './dispatch/webhook.dispatcher';
import { WebhookHandlerRegistry } from './dispatch/webhook-handler.registry';
import { WebhookHandlersExplorer } from './dispatch/webhook-handlers.explorer';
import { WebhooksMetadataAccessor } from './dispatch/webhooks-metadata.accessor';
import { createWebhooksController } from './ingress/webhooks.controller';
import { WebhookIngress } from './ingress/webhook-ingress.service';
import { WebhookSourceGate } from './ingress/webhook-source-gate';
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
import { IdempotencyStore } from './idempotency/idempotency-store.interface';
import { IdempotentCall } from './idempotency/idempotent-call.service';
import { TypeOrmIdempotencyStore } from './idempotency/typeorm-idempotency.store';
import {
  DEFAULT_WEBHOOKS_PATH,
  WEBHOOKS_RESOLVED_OPTIONS,
  WEBHOOKS_ROUTE_PATH,
} from './webhooks.constants';
import { ResolvedWebhooksOptions, resolveWebhooksOptions } from './webhooks-options.resolver';
import { WEBHOOKS_MODULE_OPTIONS } from './webhooks.module-definition';

/** Everything the module registers besides the options provider the builder adds. */
export function createWebhooksModuleParts(extras: WebhooksModuleExtras): {
  imports: (DynamicModule | Type<unknown>)[];
  controllers: Type<unknown>[];
  providers: Provider[];
  exports: (Provider | symbol | Type<unknown>)[];
} {
  const path = (extras.path ?? DEFAULT_WEBHOOKS_PATH).replace(/^\/+|\/+$/g, '');
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
      WebhookHandlerRegistry,
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
      WebhookDispatcher,
      WebhookTransactions,
      {
        provide: IdempotencyStore,
        useFactory: async (dataSource: DataSource, webhookStore: WebhookStore) => {
          const store = new TypeOrmIdempotencyStore(dataSource, webhookStore);
          await store.initialize();
          return store;
        },
        inject: [getDataSourceToken(extras.dataSource), WebhookStore],
      },
      IdempotentCall,
      WebhookAdmin,
      ReconciliationService,
      WebhookRetention,
      WebhookTelemetry,
      InboxSampler,
      WebhooksMetrics,
      WebhooksHealthIndicator,
      WebhookAlerts,
      WebhookAlertMonitor,
      WebhooksStartupSummary,
    ],
    exports: [
      WebhookStore,
      IdempotencyStore,
      IdempotentCall,
      WebhookDispatcher,
      WebhookTransactions,
      WebhookAdmin,
      ReconciliationService,
      WebhookRetention,
      WebhookTelemetry,
      WebhooksMetrics,
      WebhooksHealthIndicator,
      WebhookAlerts,
      WEBHOOKS_RESOLVED_OPTIONS,
    ],
  };
}
