import 'reflect-metadata';
import express from 'express';
import {
  createWebhooksRouter,
  stripeEndpoint,
  webhookEntities,
  webhooksMigrations,
} from 'nestjs-payment-webhooks/express';
import { Column, DataSource, Entity, PrimaryGeneratedColumn } from 'typeorm';

/** The shop's own table. */
@Entity({ name: 'shipments' })
class Shipment {
  @PrimaryGeneratedColumn()
  id!: number;

  @Column({ type: 'varchar', length: 255, unique: true })
  eventId!: string;
}

async function main(): Promise<void> {
  const dataSource = await new DataSource({
    ...(process.env.DATABASE_URL
      ? { type: 'postgres', url: process.env.DATABASE_URL }
      : { type: 'better-sqlite3', database: process.env.SQLITE_FILE ?? 'shop.sqlite' }),
    entities: [Shipment, ...webhookEntities],
    migrations: webhooksMigrations, // the app's data source runs them
    migrationsRun: true,
    synchronize: true, // creates the app's own tables; the package's stay with their migrations
  }).initialize();

  const webhooks = await createWebhooksRouter({
    dataSource,
    endpoints: [stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET! })],
    handlers: [
      {
        on: 'payment.succeeded',
        name: 'ship', // the handler's ledger key: keep it stable
        handle: async (event, ctx) => {
          // ctx.manager writes in the transaction that also records this handler as done
          await ctx.manager.insert(Shipment, { eventId: event.eventId });
        },
      },
    ],
    logger: console, // or a pino / winston logger; stdout by default
    // WEBHOOK_WORKER=off: this instance stores and answers; another one runs the handlers
    dispatch: { enabled: process.env.WEBHOOK_WORKER !== 'off' },
  });

  const app = express();
  app.use('/webhooks', webhooks); // first: the router reads the raw bytes itself
  app.use(express.json()); // then the parsers for the rest of the app
  app.get('/health', webhooks.healthHandler); // 200 / 503 with the report as JSON
  app.get('/metrics', webhooks.metricsHandler); // with `observability: { metrics: true }`
  const adminToken = process.env.ADMIN_TOKEN;
  app.use(
    '/webhooks-admin',
    webhooks.adminRouter({
      authorize: (req) => !!adminToken && req.headers['x-admin-token'] === adminToken,
    }),
  );

  const server = app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1', () => {
    const { port } = server.address() as { port: number };
    console.log(`listening on http://127.0.0.1:${port}`);
  });
  process.once('SIGTERM', () => {
    server.close(async () => {
      await webhooks.stop(); // after server.close(): running handlers finish, the rest waits
      await dataSource.destroy();
    });
  });
}

void main();
