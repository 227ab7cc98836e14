import { webhookEntities, webhooksMigrations } from 'nestjs-payment-webhooks/express';
import { DataSource } from 'typeorm';
import { Merchant } from '../../sample-app/src/merchants/merchant.entity';
import { Order } from '../../sample-app/src/orders/order.entity';
import { orderMigrations } from '../../sample-app/src/orders/order-migrations';
import { ShopDatabase } from '../../sample-app/src/shop-database';

/**
 * The shop's TypeORM data source, initialized, with the package's migrations and the shop's
 * tables' run: PostgreSQL at `databaseUrl`, else SQLite at `sqlitePath` (no setup needed).
 * The orders and merchants tables and their migrations are the Nest shop's.
 */
export async function openShopDataSource(database: ShopDatabase): Promise<DataSource> {
  const common = {
    entities: [Order, Merchant, ...webhookEntities],
    migrations: [...webhooksMigrations, ...orderMigrations],
    migrationsRun: true,
    synchronize: false,
  };
  const dataSource = new DataSource(
    database.databaseUrl
      ? // NOTE: the Nest shop's pool size: 16 handler transactions side by side keep busy the
        // 7 connections left after the two the package keeps for answers and the listener.
        { type: 'postgres', url: database.databaseUrl, poolSize: 20, ...common }
      : { type: 'better-sqlite3', database: database.sqlitePath, ...common },
  );
  return dataSource.initialize();
}
