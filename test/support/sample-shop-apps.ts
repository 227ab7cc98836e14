import 'reflect-metadata';
import { AddressInfo } from 'node:net';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { WebhookTransactions } from 'nestjs-payment-webhooks';
import { AppModule } from '../../sample-app/src/app.module';
import { configureApp } from '../../sample-app/src/configure-app';
import { ShopDatabase } from '../../sample-app/src/shop-database';
import { createShop } from '../../sample-express/src/shop';
import { ShopTransactions } from './sample-shop';

/**
 * The sample shops started as their `main.ts` starts them, each listening on a random local
 * port: the Nest shop (sample-app/src) and the plain Express shop (sample-express/src).
 */

/** A sample shop listening: where, the package's transactions on its database, how to stop it. */
export interface RunningShop {
  readonly url: string;
  /** Reads through these never join a handler's open transaction on SQLite. */
  readonly transactions: ShopTransactions;
  close(): Promise<void>;
}

/** A function that starts a sample shop on `database`. */
export type ShopStarter = (database: ShopDatabase) => Promise<RunningShop>;

/** The Nest shop, booted the way sample-app/src/main.ts boots it. */
export const startNestShop: ShopStarter = async (database) => {
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(database), {
    rawBody: true,
    logger: process.env.TEST_LOGS ? undefined : false,
  });
  configureApp(app);
  await app.listen(0, '127.0.0.1');
  const url = (await app.getUrl()).replace('[::1]', '127.0.0.1');
  return { url, transactions: app.get(WebhookTransactions), close: () => app.close() };
};

/** The Express shop, built the way sample-express/src/main.ts builds it. */
export const startExpressShop: ShopStarter = async (database) => {
  const shop = await createShop(database);
  const server = shop.app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    transactions: shop.webhooks.transactions,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await shop.close();
    },
  };
};
