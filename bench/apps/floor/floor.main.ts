import { Controller, HttpCode, Module, Param, Post, Req } from '@nestjs/common';
import type { INestApplication, RawBodyRequest } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  configureApp,
  createHttpAdapter,
  httpPlatformFromEnv,
} from '../../../sample-app/src/configure-app';

/**
 * The route the webhook module declares, doing none of its work: it takes the raw body Nest
 * read and answers 200. What this app answers per second bounds any receiver built on Nest
 * with the sample's setup, on this machine.
 */
@Controller('webhooks')
class FloorController {
  @Post(':endpoint')
  @HttpCode(200)
  receive(
    @Param('endpoint') endpoint: string,
    @Req() request: RawBodyRequest<{ headers: Record<string, unknown> }>,
  ): string {
    if (!request.rawBody || endpoint.length === 0) {
      throw new Error('the raw body is missing: the app was not created with rawBody: true');
    }
    return '';
  }
}

@Module({ controllers: [FloorController] })
class FloorModule {}

async function bootstrap(): Promise<void> {
  const app = await NestFactory.create<INestApplication>(
    FloorModule,
    await createHttpAdapter(httpPlatformFromEnv()),
    { rawBody: true },
  );
  configureApp(app);
  await app.listen(Number(process.env.PORT ?? 3000), '127.0.0.1');
}

void bootstrap();
