import express, { Application, NextFunction, Request, Response } from 'express';
import { createWebhooksRouter } from 'nestjs-payment-webhooks/express';
import type {
  WebhookDispatchOptions,
  WebhookObservabilityOptions,
  WebhookReconciliationSchedule,
  WebhooksRouter,
  WebhookTransactions,
} from 'nestjs-payment-webhooks/express';
import { DataSource } from 'typeorm';
import { keepDemoMerchant } from '../../sample-app/src/merchants/demo-merchant';
import { MerchantSecrets } from '../../sample-app/src/merchants/merchant-secrets';
import { OrdersAwaitingPayment } from '../../sample-app/src/orders/orders-awaiting-payment.source';
import { ShopDatabase, shopDatabaseFromEnv } from '../../sample-app/src/shop-database';
import { orderPaymentHandlers } from './order-payments';
import { ordersRoutes } from './orders-routes';
import { openShopDataSource } from './shop-data-source';
import { EndpointOverrides, secret, webhookEndpoints } from './webhook-endpoints';

/** The largest body the shop's JSON parser takes, as the Nest shop's. */
const BODY_LIMIT = '1mb';

/**
 * The webhook options, as the Nest shop's: Prometheus metrics, alerts and a one-line journal in
 * the log; on PostgreSQL 32 handler transactions side by side on a pool of 20 (SQLite runs them
 * one at a time).
 */
const observability: WebhookObservabilityOptions = {
  metrics: true,
  alerts: {},
  journal: 'line',
};

function dispatchFor(database: ShopDatabase): WebhookDispatchOptions {
  return database.databaseUrl ? { concurrency: 32 } : {};
}

/**
 * `RECONCILE_EVERY_MS` turns on periodic reconciliation of YooKassa payments (the sample's
 * endpoint with API credentials): orders still pending after 15 minutes are checked with the API.
 */
function reconciliationFromEnv(): WebhookReconciliationSchedule[] {
  const every = Number(process.env.RECONCILE_EVERY_MS ?? 0);
  return every > 0 ? [{ endpoint: 'yookassa', intervalMs: every }] : [];
}

/** The Express shop, ready to listen. */
export interface Shop {
  readonly app: Application;
  readonly webhooks: WebhooksRouter;
  readonly dataSource: DataSource;
  /** Stops the webhook worker, then closes the database; call it after `server.close()`. */
  close(): Promise<void>;
}

/**
 * Answers what the routes threw as JSON: the parser's 4xx (a body that is not JSON, too large)
 * with its message, anything else as 500 with the error logged.
 */
function errorAnswer(error: unknown, _request: Request, response: Response, next: NextFunction) {
  if (response.headersSent) {
    next(error);
    return;
  }
  const { status } = error as { status?: unknown };
  if (typeof status === 'number' && status >= 400 && status < 500) {
    response.status(status).json({ statusCode: status, message: (error as Error).message });
    return;
  }
  console.error('[SampleShop]', error);
  response.status(500).json({ statusCode: 500, message: 'Internal server error' });
}

/**
 * The sample shop on plain Express: the Nest shop's orders, webhook endpoints, handlers, metrics
 * and health, with the package's router at `/webhooks` mounted before the JSON parser so it
 * reads the exact bytes the providers signed.
 */
export async function createShop(
  database: ShopDatabase = shopDatabaseFromEnv(),
  overrides: EndpointOverrides = {},
): Promise<Shop> {
  const dataSource = await openShopDataSource(database);
  // NOTE: the reconciliation source reads orders through the router's transactions, which
  // exist once the router does; reconciliation first asks for pending payments after that.
  let webhooks: WebhooksRouter | undefined;
  const transactions: Pick<WebhookTransactions, 'run'> = {
    run: (work) => webhooks!.transactions.run(work),
  };
  try {
    // NOTE: before the router exists, no handler transaction can hold the SQLite file.
    await keepDemoMerchant(dataSource.manager, secret('DEMO_MERCHANT_WEBHOOK_SECRET'));
    webhooks = await createWebhooksRouter({
      dataSource,
      endpoints: webhookEndpoints(new MerchantSecrets().readFrom(dataSource), overrides),
      handlers: orderPaymentHandlers,
      dispatch: dispatchFor(database),
      observability,
      reconciliation: reconciliationFromEnv(),
      pendingPayments: new OrdersAwaitingPayment(transactions),
    });
  } catch (error) {
    await dataSource.destroy();
    throw error;
  }
  const app = express();
  app.use('/webhooks', webhooks);
  app.use(express.json({ limit: BODY_LIMIT }));
  app.use('/orders', ordersRoutes(webhooks.transactions));
  app.get('/metrics', webhooks.metricsHandler);
  app.get('/health', webhooks.healthHandler);
  app.use(errorAnswer);
  const router = webhooks;
  return {
    app,
    webhooks: router,
    dataSource,
    async close() {
      await router.stop();
      await dataSource.destroy();
    },
  };
}
