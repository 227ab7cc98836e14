import { DynamicModule, Logger, Provider, Type } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { TypeOrmModule, getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { WebhookStore } from '../store/ports/webhook-store.port';
import { idempotencyEntities } from './entities';
import { IdempotencyModuleExtras } from './idempotency-module-options.interface';
import { IdempotencyStore } from './idempotency-store.port';
import { IdempotentCall } from './idempotent-call.service';
import { ShareableStore, SharedTransactions } from './shared-transactions';
import { TypeOrmIdempotencyStore } from './typeorm-idempotency.store';
import { useContextLoggerClass } from '../telemetry/webhooks-logger';

/** The webhook stores of the app, wherever `WebhooksModule` is imported; none without it. */
function webhookStoresOf(moduleRef: ModuleRef): readonly ShareableStore[] {
  try {
    return moduleRef.get<ShareableStore>(WebhookStore, {
      strict: false,
      each: true,
    });
  } catch {
    return [];
  }
}

/** Everything `IdempotencyModule` registers besides the options provider the builder adds. */
export function createIdempotencyModuleParts(extras: IdempotencyModuleExtras): {
  imports: DynamicModule[];
  providers: Provider[];
  exports: (symbol | Type<unknown>)[];
} {
  useContextLoggerClass(Logger);
  return {
    imports: [TypeOrmModule.forFeature(idempotencyEntities, extras.dataSource)],
    providers: [
      {
        provide: TypeOrmIdempotencyStore,
        useFactory: (dataSource: DataSource, moduleRef: ModuleRef) =>
          new TypeOrmIdempotencyStore(
            dataSource,
            new SharedTransactions(dataSource, () => webhookStoresOf(moduleRef)),
          ),
        inject: [getDataSourceToken(extras.dataSource), ModuleRef],
      },
      { provide: IdempotencyStore, useExisting: TypeOrmIdempotencyStore },
      IdempotentCall,
    ],
    exports: [IdempotencyStore, IdempotentCall],
  };
}
