import { Controller, Get, HttpCode, Param, Post, Req, Res, Type } from '@nestjs/common';
import { HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { WEBHOOKS_RESOLVED_OPTIONS } from '../webhooks.constants';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { Inject } from '@nestjs/common';
import { readRawBody, flattenHeaders, RawBodySetup, sourceIpOf } from './raw-body';
import { appKeepsRawBody } from './raw-body-option';
import { WebhookDeliveryMethod } from '../providers/webhook-provider.interface';
import { WebhookMethodNotAllowedException } from './webhook-ingress.exceptions';
import { WebhookIngress } from './webhook-ingress.service';

/** The parts of an Express or Fastify request the controller reads. */
interface PlatformRequest {
  rawBody?: Buffer;
  headers: IncomingMessage['headers'];
  ip?: string;
  url?: string;
  originalUrl?: string;
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
    private readonly rawBodySetup: RawBodySetup;

    constructor(
      private readonly ingress: WebhookIngress,
      private readonly adapterHost: HttpAdapterHost,
      @Inject(WEBHOOKS_RESOLVED_OPTIONS) private readonly options: ResolvedWebhooksOptions,
      moduleRef: ModuleRef,
    ) {
      this.rawBodySetup = {
        keepsRawBody: appKeepsRawBody(moduleRef),
        platform: adapterHost.httpAdapter?.getType(),
      };
    }

    @Post(':endpoint')
    @HttpCode(200)
    async receive(
      @Param('endpoint') endpoint: string,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      const receivedAt = new Date();
      const limit = this.options.endpoints.get(endpoint)?.maxBodyBytes;
      const rawBody = await readRawBody(request, limit, this.rawBodySetup);
      await this.deliver(endpoint, 'POST', rawBody, request, response, receivedAt);
    }

    /**
     * GET deliveries (Sber callbacks): the query string is the notification, handed to the
     * provider as the raw body. Endpoints whose provider only posts answer 405.
     */
    @Get(':endpoint')
    @HttpCode(200)
    async receiveByQuery(
      @Param('endpoint') endpoint: string,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      const receivedAt = new Date();
      const url = request.originalUrl ?? request.raw?.url ?? request.url ?? '';
      const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
      await this.deliver(
        endpoint,
        'GET',
        Buffer.from(query, 'latin1'),
        request,
        response,
        receivedAt,
      );
    }

    private async deliver(
      endpoint: string,
      method: WebhookDeliveryMethod,
      rawBody: Buffer,
      request: PlatformRequest,
      response: unknown,
      receivedAt: Date,
    ): Promise<void> {
      const adapter = this.adapterHost.httpAdapter;
      const acknowledgement = await this.ingress
        .receive({
          endpoint,
          method,
          rawBody,
          headers: flattenHeaders(request.headers),
          sourceIp: sourceIpOf(request, this.options.trustProxy),
          receivedAt,
        })
        .catch((error: unknown) => {
          if (error instanceof WebhookMethodNotAllowedException) {
            adapter.setHeader(response, 'Allow', error.allow);
          }
          throw error;
        });
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
