import { Module } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { stripeEndpoint, WebhooksModule, webhooksMigrations } from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import { Shipment } from './shipment.entity';
import { ShippingHandlers } from './shipping.handlers';

const database: TypeOrmModuleOptions = {
  ...(process.env.DATABASE_URL
    ? { type: 'postgres', url: process.env.DATABASE_URL }
    : { type: 'better-sqlite3', database: process.env.SQLITE_FILE ?? 'shop.sqlite' }),
  autoLoadEntities: true,
  entities: [Shipment],
  migrations: webhooksMigrations,
  migrationsRun: true,
  synchronize: true,
};

/** With REDIS_URL, the handlers run on BullMQ workers (here, in this same process). */
const redis = process.env.REDIS_URL ? new URL(process.env.REDIS_URL) : undefined;

@Module({
  imports: [
    TypeOrmModule.forRoot(database),
    WebhooksModule.forRoot({
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
      ],
      ...(redis && {
        dispatch: {
          transport: bullmqTransport({
            connection: { host: redis.hostname, port: Number(redis.port || 6379) },
            prefix: process.env.REDIS_PREFIX,
          }),
        },
      }),
    }),
  ],
  providers: [ShippingHandlers],
})
export class AppModule {}
