import { INestApplication, Logger } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  configureApp,
  createHttpAdapter,
  httpPlatformFromEnv,
} from '../../sample-app/src/configure-app';
import { BenchAppModule } from './bench-app.module';

/** Boots the benchmark app the way the sample's `main.ts` boots the shop, on 127.0.0.1:PORT. */
async function bootstrap(): Promise<void> {
  const platform = httpPlatformFromEnv();
  const app = await NestFactory.create<INestApplication>(
    BenchAppModule.forRoot(),
    await createHttpAdapter(platform),
    { rawBody: true },
  );
  configureApp(app);
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
  new Logger('Benchmark').log(`Listening on ${await app.getUrl()} (${platform})`);
}

void bootstrap();
