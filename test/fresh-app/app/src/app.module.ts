import { Module } from '@nestjs/common';
import { TypeOrmModule, TypeOrmModuleOptions } from '@nestjs/typeorm';
import { stripeEndpoint, WebhooksModule, webhooksMigrations } from 'nestjs-payment-webhooks';
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

@Module({
  imports: [
    TypeOrmModule.forRoot(database),
    WebhooksModule.forRoot({
      endpoints: [
        stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET ?? '' }),
      ],
    }),
  ],
  providers: [ShippingHandlers],
})
export class AppModule {}
