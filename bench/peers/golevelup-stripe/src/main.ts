/**
 * A Stripe receiver as a user of `@golevelup/nestjs-stripe` writes it: the library's webhook
 * controller (`POST /stripe/webhook`) verifies the raw body and calls the decorated handler in
 * the request, and the handler inserts the event into PostgreSQL before the answer.
 *
 * Environment: PORT, DATABASE_URL, STRIPE_WEBHOOK_SECRET, POOL_SIZE (default 10).
 */
import 'reflect-metadata';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<NestExpressApplication>(AppModule, {
    rawBody: true,
    logger: ['error', 'warn'],
  });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
}

void bootstrap();
