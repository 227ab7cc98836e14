import { Controller, HttpCode, Param, Post, Req, Res, Type } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../webhooks.constants';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { Inject } from '@nestjs/common';
import { readRawBody, flattenHeaders } from './raw-body';
import { WebhookIngress } from './webhook-ingress.service';

/** The parts of an Express or Fastify request the controller reads. */
interface PlatformRequest {
  rawBody?: Buffer;
  headers: IncomingMessage['headers'];
  ip?: string;
  socket?: { remoteAddress?: string };
  raw?: IncomingMessage;
}

/**
 * Builds the controller serving `POST /{path}/:endpoint`. A class per module registration,
 * so the route prefix and the app's own decorators (auth-guard markers, throttler skips)
 * are applied through Nest's metadata rather than patched in later.
 */
export function createWebhooksController(
  path: string,
  decorators: ClassDecorator[],
): Type<unknown> {
  @Controller(path)
  class WebhooksController {
    constructor(
      private readonly ingress: WebhookIngress,
      private readonly adapterHost: HttpAdapterHost,
      @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
    ) {}

    @Post(':endpoint')
    @HttpCode(200)
    async receive(
      @Param('endpoint') endpoint: string,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      const receivedAt = new Date();
      const limit = this.options.endpoints.get(endpoint)?.maxBodyBytes;
      const rawBody = await readRawBody(request, limit);
      const acknowledgement = await this.ingress.receive({
        endpoint,
        rawBody,
        headers: flattenHeaders(request.headers),
        sourceIp: this.options.trustProxy
          ? request.ip
          : (request.socket?.remoteAddress ?? request.raw?.socket?.remoteAddress),
        receivedAt,
      });
      const adapter = this.adapterHost.httpAdapter;
      adapter.setHeader(response, 'Content-Type', acknowledgement.contentType);
      adapter.setHeader(response, 'Cache-Control', 'no-store');
      adapter.reply(response, acknowledgement.body, acknowledgement.status);
    }
  }
  for (const decorator of decorators) {
    decorator(WebhooksController);
  }
  return WebhooksController;
}
