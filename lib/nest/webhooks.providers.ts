import { DynamicModule, FactoryProvider, Provider, Type } from '@nestjs/common';
import { DiscoveryModule, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { createWebhookAdminController } from './webhook-admin.controller';
import { WebhookAdmin } from '../admin/webhook-admin';
import { WebhookDispatcher } from '../dispatch/webhook.dispatcher';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { WebhookHandlersExplorer } from './webhook-handlers.explorer';
import { WebhooksMetadataAccessor } from './webhooks-metadata.accessor';
import { IdempotencyStore } from '../idempotency/idempotency-store.port';
import { PaymentWebhookRoutesExplorer } from './payment-webhook-routes.explorer';
import { PlatformDeliveries } from './platform-deliveries';
import { appKeepsRawBody } from './raw-body-option';
import { WebhookIngress } from '../ingress/webhook-ingress';
import { appRoutePrefix, WebhookHeadGate } from './webhook-head-gate';
import { createWebhooksController } from './webhooks.controller';
import { WebhooksModuleOptions } from '../options/webhooks-module-options.interface';
import { refuseShapingOptions, WebhooksModuleExtras } from './webhooks-module-extras';
import { InboxSampler } from '../observability/inbox-sampler';
import { useNestLogger } from './nest-logger';
import { OptionalObservabilityParts, optionalObservabilityParts } from './observability.providers';
import { WebhookAlerts } from '../observability/alerts/webhook-alerts';
import { WebhookTelemetry } from '../telemetry/webhook-telemetry';
import { WebhooksHealthIndicator } from '../observability/webhooks-health.indicator';
import { WebhooksMetrics } from '../observability/webhooks-metrics';
import { WebhooksStartupSummary } from './webhooks-startup-summary';
import { PendingPaymentsSource } from '../reconciliation/pending-payments.source';
import { ReconciliationService } from '../reconciliation/reconciliation';
import { WebhookRecoveries } from '../recovery/webhook-recoveries';
import { ExpiringIdempotencyRecords, WebhookRetention } from '../retention/webhook-retention';
import { webhookEntities } from '../store/schema/entities';
import { InboxSignal } from '../store/work/inbox-signal';
import { InboxQueries, InboxWorker, InboxWriter } from '../store/ports';
import { WebhookStore } from '../store/ports/webhook-store.port';
import { WebhookTransactions } from '../store/connections/webhook-transactions';
import {
  DEFAULT_WEBHOOKS_PATH,
  WEBHOOKS_ENGINE,
  WEBHOOKS_TRANSPORT,
  WEBHOOKS_RESOLVED_OPTIONS,
  WEBHOOKS_ROUTE_PATH,
} from './webhooks.constants';
import { WebhooksEngine } from '../engine/webhooks-engine';
import { WebhooksLifecycle } from './webhooks.lifecycle';
import {
  ResolvedWebhooksOptions,
  resolveWebhooksOptions,
} from '../options/webhooks-options.resolver';
import { defaultStore } from '../engine/default-store';

/**
 * Everything the module registers besides the options provider the builder adds.
 * @param optionsToken the builder's token of the options `forRoot*()` was given.
 * @param options the options given to `forRoot()`; `undefined` for `forRootAsync()`, whose
 * options are known only at startup.
 */
export function createWebhooksModuleParts(
  extras: WebhooksModuleExtras,
  optionsToken: string | symbol,
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
      ...engineProviders(extras, optionsToken, observability),
      { provide: WEBHOOKS_ROUTE_PATH, useValue: path },
      ...adapterProviders(path),
    ],
    exports: [
      // NOTE: for the guard and interceptor of @PaymentWebhook() routes in the app's modules.
      PlatformDeliveries,
      WebhookStore,
      WebhookDispatcher,
      WebhookTransactions,
      WebhookAdmin,
      ReconciliationService,
      WebhookRecoveries,
      WebhookRetention,
      WebhookTelemetry,
      WebhooksHealthIndicator,
      ...(observability.metrics ? [WebhooksMetrics] : []),
      ...(observability.alerts ? [WebhookAlerts] : []),
      WEBHOOKS_ENGINE,
      WEBHOOKS_RESOLVED_OPTIONS,
      WEBHOOKS_TRANSPORT,
    ],
  };
}

/** A provider of one part of the module's engine. */
function fromEngine<T>(
  token: symbol | Type<T>,
  part: (engine: WebhooksEngine) => T,
): FactoryProvider<T> {
  return { provide: token, useFactory: part, inject: [WEBHOOKS_ENGINE] };
}

/** The app's provider of `token`, or undefined when it registered none. */
function optionalProvider<T>(moduleRef: ModuleRef, token: abstract new () => T): T | undefined {
  try {
    return moduleRef.get(token, { strict: false });
  } catch {
    return undefined;
  }
}

/** The engine, built from the module's options on its data source, and each of its parts. */
function engineProviders(
  extras: WebhooksModuleExtras,
  optionsToken: string | symbol,
  observability: OptionalObservabilityParts,
): Provider[] {
  return [
    {
      provide: WEBHOOKS_RESOLVED_OPTIONS,
      useFactory: (options: WebhooksModuleOptions) =>
        resolveWebhooksOptions(refuseShapingOptions(options)),
      inject: [optionsToken],
    },
    {
      // NOTE: a provider of its own, so an app's test (or a module override) can replace the
      // inbox: the engine is built on whatever this token gives.
      provide: WebhookStore,
      useFactory: (options: ResolvedWebhooksOptions, dataSource: DataSource) =>
        defaultStore(dataSource, options),
      inject: [WEBHOOKS_RESOLVED_OPTIONS, getDataSourceToken(extras.dataSource)],
    },
    {
      provide: WEBHOOKS_ENGINE,
      useFactory: (
        options: ResolvedWebhooksOptions,
        store: WebhookStore,
        moduleRef: ModuleRef,
        idempotency?: ExpiringIdempotencyRecords | null,
      ) =>
        WebhooksEngine.create({
          options,
          store,
          pendingPayments: () => optionalProvider(moduleRef, PendingPaymentsSource),
          idempotency,
        }),
      inject: [
        WEBHOOKS_RESOLVED_OPTIONS,
        WebhookStore,
        ModuleRef,
        { token: IdempotencyStore, optional: true },
      ],
    },
    fromEngine(InboxWriter, (engine) => engine.store),
    fromEngine(InboxWorker, (engine) => engine.store),
    fromEngine(InboxQueries, (engine) => engine.store.queries),
    fromEngine(InboxSignal, (engine) => engine.signal),
    fromEngine(WebhookHandlerRegistry, (engine) => engine.registry),
    fromEngine(WebhookTelemetry, (engine) => engine.telemetry),
    fromEngine(WebhookIngress, (engine) => engine.ingress),
    fromEngine(WebhookDispatcher, (engine) => engine.dispatcher),
    fromEngine(WEBHOOKS_TRANSPORT, (engine) => engine.transport),
    fromEngine(WebhookTransactions, (engine) => engine.transactions),
    fromEngine(WebhookAdmin, (engine) => engine.admin),
    fromEngine(ReconciliationService, (engine) => engine.reconciliation),
    fromEngine(WebhookRecoveries, (engine) => engine.recoveries),
    fromEngine(WebhookRetention, (engine) => engine.retention),
    fromEngine(InboxSampler, (engine) => engine.sampler),
    fromEngine(WebhooksHealthIndicator, (engine) => engine.health),
    ...(observability.metrics ? [fromEngine(WebhooksMetrics, (engine) => engine.metrics)] : []),
    ...(observability.alerts ? [fromEngine(WebhookAlerts, (engine) => engine.alerts)] : []),
  ];
}

/** What connects the engine to Nest: discovery, the platform's requests, the lifecycle. */
function adapterProviders(path: string): Provider[] {
  return [
    WebhooksMetadataAccessor,
    WebhookHandlersExplorer,
    {
      provide: WebhookHeadGate,
      useFactory: (
        host: HttpAdapterHost,
        ingress: WebhookIngress,
        options: ResolvedWebhooksOptions,
        moduleRef: ModuleRef,
      ) => new WebhookHeadGate(host, ingress, options, path, appRoutePrefix(moduleRef)),
      inject: [HttpAdapterHost, WebhookIngress, WEBHOOKS_RESOLVED_OPTIONS, ModuleRef],
    },
    {
      provide: PlatformDeliveries,
      useFactory: (ingress: WebhookIngress, host: HttpAdapterHost, moduleRef: ModuleRef) =>
        new PlatformDeliveries(ingress, () => host.httpAdapter, appKeepsRawBody(moduleRef)),
      inject: [WebhookIngress, HttpAdapterHost, ModuleRef],
    },
    PaymentWebhookRoutesExplorer,
    WebhooksStartupSummary,
    WebhooksLifecycle,
  ];
}
