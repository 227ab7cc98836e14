import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import {
  PendingPaymentsSource,
  WebhookDispatchOptions,
  WebhookReconciliationSchedule,
  WebhooksModule,
  WebhookTransactions,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import { IdempotencyModule, idempotencyMigrations } from 'nestjs-payment-webhooks/idempotency';
import { secret } from './config';
import { Merchant } from './merchants/merchant.entity';
import { MerchantSecrets } from './merchants/merchant-secrets';
import { MerchantsController } from './merchants/merchants.controller';
import { DEMO_MERCHANT_SECRET, MerchantsService } from './merchants/merchants.service';
import { OrdersAwaitingPayment } from './orders/orders-awaiting-payment.source';
import { EndpointOverrides, webhookEndpoints } from './webhook-endpoints';
import { orderMigrations } from './orders/order-migrations';
import { Order } from './orders/order.entity';
import { OrderPaymentsHandler } from './orders/order-payments.handler';
import { OrdersController } from './orders/orders.controller';
import { OrdersService } from './orders/orders.service';
import { SandboxRefundsGateway } from './orders/sandbox-refunds.gateway';
import { opsControllers, opsImports, shopObservability } from './ops/ops';
import { ShopDatabase, shopDatabaseFromEnv } from './shop-database';

export { shopDatabaseFromEnv };
export type { ShopDatabase };

function typeOrmOptions(database: ShopDatabase): TypeOrmModuleOptions {
  const common = {
    entities: [Order, Merchant],
    autoLoadEntities: true,
    migrations: [...webhooksMigrations, ...idempotencyMigrations, ...orderMigrations],
    migrationsRun: true,
    synchronize: false,
  };
  return database.databaseUrl
    ? { type: 'postgres', url: database.databaseUrl, poolSize: 20, ...common }
    : { type: 'better-sqlite3', database: database.sqlitePath, ...common };
}

/**
 * On PostgreSQL, handler transactions run side by side: 32 events at a time keep busy the 17
 * pooled connections left after the two the module keeps for answers and the one that listens
 * (each event spends about half its time waiting for the server, so twice as many events as
 * connections). A pool of 20 with 32 drained 1.24× as fast as 10 with 16 on 2 cores
 * (bench/README.md). SQLite runs them one at a time, so more than the default would only
 * lengthen the queue. The shop's handlers only write through `ctx.manager` and take a few
 * milliseconds, so a fresh event's handlers run in the transaction that stores it, before the
 * answer (`inline: true`): against storing, answering and handling in the background, that
 * handled 1.59× the events end to end on PostgreSQL and 2.64× on SQLite, at 0.55× the app's and
 * PostgreSQL's CPU per event (bench/README.md). What cannot settle there, and retries, run in
 * the background, committed in batches (`batch: true`, up to 8 per commit).
 */
function dispatchFor(database: ShopDatabase): WebhookDispatchOptions {
  return database.databaseUrl
    ? { concurrency: 32, batch: true, inline: true }
    : { batch: true, inline: true };
}

/**
 * `RECONCILE_EVERY_MS` turns on periodic reconciliation of YooKassa payments (the sample's
 * endpoint with API credentials): orders still pending after 15 minutes are checked with the API.
 */
function reconciliationFromEnv(): WebhookReconciliationSchedule[] {
  const every = Number(process.env.RECONCILE_EVERY_MS ?? 0);
  return every > 0 ? [{ endpoint: 'yookassa', intervalMs: every }] : [];
}

@Module({})
export class AppModule {
  static forRoot(
    database: ShopDatabase = shopDatabaseFromEnv(),
    overrides: EndpointOverrides = {},
  ): DynamicModule {
    const merchants = new MerchantSecrets();
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRoot(typeOrmOptions(database)),
        WebhooksModule.forRoot({
          endpoints: webhookEndpoints(merchants, overrides),
          dispatch: dispatchFor(database),
          observability: shopObservability,
          reconciliation: reconciliationFromEnv(),
        }),
        IdempotencyModule.forRoot(),
        ...opsImports,
      ],
      controllers: [OrdersController, MerchantsController, ...opsControllers],
      providers: [
        OrdersService,
        OrderPaymentsHandler,
        SandboxRefundsGateway,
        MerchantsService,
        { provide: DEMO_MERCHANT_SECRET, useValue: secret('DEMO_MERCHANT_WEBHOOK_SECRET') },
        {
          // NOTE: the webhook options are a value (forRoot), which the benchmark and the
          // reliability suite adjust, so the merchants endpoint is defined before Nest has a
          // data source; its resolver gets one here, before the app takes a request.
          provide: MerchantSecrets,
          useFactory: (dataSource: DataSource) => merchants.readFrom(dataSource),
          inject: [DataSource],
        },
        {
          provide: PendingPaymentsSource,
          useFactory: (transactions: WebhookTransactions) =>
            new OrdersAwaitingPayment(transactions),
          inject: [WebhookTransactions],
        },
      ],
    };
  }
}
