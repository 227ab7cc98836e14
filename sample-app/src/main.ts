import { Logger, ValidationPipe } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { AppModule } from './app.module';

async function bootstrap(): Promise<void> {
  // NOTE: rawBody keeps the exact bytes the providers signed.
  const app = await NestFactory.create(AppModule.forRoot(), { rawBody: true });
  app.useGlobalPipes(
    new ValidationPipe({ whitelist: true, forbidNonWhitelisted: true, transform: true }),
  );
  app.enableShutdownHooks();
  const port = Number(process.env.PORT ?? 3000);
  await app.listen(port);
  const url = await app.getUrl();
  new Logger('SampleShop').log(
    `Listening on ${url} (${process.env.DATABASE_URL ? 'PostgreSQL' : 'SQLite'}); webhooks at POST /webhooks/{stripe,qvard,standard,hmac}`,
  );
}

void bootstrap();
