import { IncomingMessage } from 'node:http';
import { Controller, HttpCode, Module, Param, Post, Req } from '@nestjs/common';
import type { INestApplication, RawBodyRequest } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import {
  configureApp,
  createHttpAdapter,
  httpPlatformFromEnv,
} from '../../../sample-app/src/configure-app';

/** The bytes of a request body no parser read, as the webhook module reads them then. */
function readBody(request: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => resolve(Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

/**
 * The route the webhook module declares, doing none of its work: it takes the raw body (the
 * one Nest kept, or on Express, where the sample's parsers skip the webhook route, the bytes
 * read off the request) and answers 200. What this app answers per second bounds any receiver
 * built on Nest with the sample's setup, on this machine.
 */
@Controller('webhooks')
class FloorController {
  @Post(':endpoint')
  @HttpCode(200)
  async receive(
    @Param('endpoint') endpoint: string,
    @Req() request: RawBodyRequest<IncomingMessage>,
  ): Promise<string> {
    const body = request.rawBody ?? (request.readable ? await readBody(request) : undefined);
    if (!body || endpoint.length === 0) {
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
