import { Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { NestExpressApplication } from '@nestjs/platform-express';
import { AppModule } from './app.module';
import { configureApp } from './configure-app';

async function bootstrap(): Promise<void> {
  // NOTE: rawBody keeps the exact bytes the providers signed.
  const app = await NestFactory.create<NestExpressApplication>(AppModule.forRoot(), {
    rawBody: true,
  });
  configureApp(app);
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port);
  const url = await app.getUrl();
  new Logger('SampleShop').log(
    `Listening on ${url} (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}); webhooks at POST /webhooks/{stripe,qvard,standard,hmac}`,
  );
}

void bootstrap();
