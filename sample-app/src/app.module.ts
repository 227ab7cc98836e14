import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import {
  hmacEndpoint,
  qvardEndpoint,
  standardWebhooksEndpoint,
  stripeEndpoint,
  WebhooksModule,
  webhooksMigrations,
} from 'nestjs-payment-webhooks';
import { secret } from './config';
import { CreateOrdersTable1764400001000 } from './orders/create-orders-table.migration';
import { Order } from './orders/order.entity';
import { OrderPaymentsHandler } from './orders/order-payments.handler';
import { OrdersController } from './orders/orders.controller';
import { OrdersService } from './orders/orders.service';

/** Where the shop keeps its data. */
export interface ShopDatabase {
  /** PostgreSQL connection URL; when absent, SQLite at `sqlitePath`. */
  databaseUrl?: string;
  /** SQLite file. */
  sqlitePath: string;
}

/** How the sample shop is configured; `main.ts` reads it from the environment. */
export function shopDatabaseFromEnv(): ShopDatabase {
  return {
    databaseUrl: process.env.DATABASE_URL || undefined,
    sqlitePath: process.env.SQLITE_PATH || 'shop.sqlite',
  };
}

function typeOrmOptions(database: ShopDatabase): TypeOrmModuleOptions {
  const common = {
    entities: [Order],
    autoLoadEntities: true,
    migrations: [...webhooksMigrations, CreateOrdersTable1764400001000],
    migrationsRun: true,
    synchronize: false,
  };
  return database.databaseUrl
    ? { type: 'postgres', url: database.databaseUrl, poolSize: 10, ...common }
    : { type: 'better-sqlite3', database: database.sqlitePath, ...common };
}

@Module({})
export class AppModule {
  static forRoot(database: ShopDatabase = shopDatabaseFromEnv()): DynamicModule {
    return {
      module: AppModule,
      imports: [
        TypeOrmModule.forRoot(typeOrmOptions(database)),
        WebhooksModule.forRoot({
          endpoints: [
            stripeEndpoint({ name: 'stripe', secret: secret('STRIPE_WEBHOOK_SECRET') }),
            qvardEndpoint({ name: 'qvard', secret: secret('QVARD_SECRET_KEY') }),
            standardWebhooksEndpoint({
              name: 'standard',
              secret: secret('STANDARD_WEBHOOK_SECRET'),
            }),
            hmacEndpoint({
              name: 'hmac',
              secret: secret('HMAC_WEBHOOK_SECRET'),
              signatureHeader: 'x-signature',
              timestampHeader: 'x-timestamp',
              eventIdPath: 'id',
              typePath: 'type',
              merchantRefPath: 'data.orderId',
            }),
          ],
        }),
      ],
      controllers: [OrdersController],
      providers: [OrdersService, OrderPaymentsHandler],
    };
  }
}
