/**
 * The sample shop on Nest (`npm start`). What it serves and how to try it: docs/sample-shop.md.
 * The module it configures (sample-app/src/app.module.ts, webhook-endpoints.ts):
 * docs/receiving.md and docs/providers/; its handlers (orders/): docs/handlers.md; its metrics
 * and health routes (ops/): docs/operations.md.
 */
import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';
import { configureApp, createHttpAdapter, httpPlatformFromEnv } from './configure-app';

async function bootstrap(): Promise<void> {
  // NOTE: HTTP_PLATFORM=fastify runs the same shop on Fastify; Express is the default.
  const platform = httpPlatformFromEnv();
  // NOTE: rawBody keeps the exact bytes the providers signed.
  const app = await NestFactory.create<INestApplication>(
    AppModule.forRoot(),
    await createHttpAdapter(platform),
    { rawBody: true },
  );
  configureApp(app);
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  // NOTE: Fastify listens on localhost only unless given a host; Express on every interface.
  const host = process.env.HOST ?? (platform === 'fastify' ? '0.0.0.0' : undefined);
  await (host === undefined ? app.listen(port) : app.listen(port, host));
  const url = await app.getUrl();
  new Logger('SampleShop').log(
    `Listening on ${url} (${platform}, ${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}); webhooks at POST /webhooks/{stripe,qvard,standard,hmac,...} and /webhooks/merchants/{slug}`,
  );
}

void bootstrap();
