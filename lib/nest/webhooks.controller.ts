import {
  Controller,
  Delete,
  Get,
  HttpCode,
  Param,
  Patch,
  Post,
  Put,
  Req,
  Res,
  Type,
} from '@nestjs/common';
import { PlatformDeliveries, PlatformRequest, PlatformRoute } from './platform-deliveries';

/**
 * Builds the controller serving `POST /{path}/:endpoint`, and `POST /{path}/:endpoint/:tenant`
 * for a tenant endpoint. A class per module registration,
 * so the route prefix and the app's own decorators (auth-guard markers, throttler skips)
 * are applied through Nest's metadata rather than patched in later.
 */
export function createWebhooksController(
  path: string,
  decorators: ClassDecorator[],
): Type<unknown> {
  @Controller(path)
  class WebhooksController {
    constructor(private readonly deliveries: PlatformDeliveries) {}

    @Post([':endpoint', ':endpoint/:tenant'])
    @HttpCode(200)
    receive(
      @Param('endpoint') endpoint: string,
      @Param('tenant') tenant: string | undefined,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      return this.deliver({ endpoint, tenant }, 'POST', request, response);
    }

    /**
     * GET deliveries (Sber callbacks): the query string is the notification, handed to the
     * provider as the raw body. Endpoints whose provider only posts answer 405.
     */
    @Get([':endpoint', ':endpoint/:tenant'])
    @HttpCode(200)
    receiveByQuery(
      @Param('endpoint') endpoint: string,
      @Param('tenant') tenant: string | undefined,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      return this.deliver({ endpoint, tenant }, 'GET', request, response);
    }

    /** No provider delivers with PUT: 405 with `Allow` (404 for an unknown endpoint). */
    @Put([':endpoint', ':endpoint/:tenant'])
    refusePut(
      @Param('endpoint') endpoint: string,
      @Param('tenant') tenant: string | undefined,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      return this.deliver({ endpoint, tenant }, 'PUT', request, response);
    }

    /** No provider delivers with PATCH: 405 with `Allow` (404 for an unknown endpoint). */
    @Patch([':endpoint', ':endpoint/:tenant'])
    refusePatch(
      @Param('endpoint') endpoint: string,
      @Param('tenant') tenant: string | undefined,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      return this.deliver({ endpoint, tenant }, 'PATCH', request, response);
    }

    /** No provider delivers with DELETE: 405 with `Allow` (404 for an unknown endpoint). */
    @Delete([':endpoint', ':endpoint/:tenant'])
    refuseDelete(
      @Param('endpoint') endpoint: string,
      @Param('tenant') tenant: string | undefined,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      return this.deliver({ endpoint, tenant }, 'DELETE', request, response);
    }

    private async deliver(
      { endpoint, tenant }: PlatformRoute,
      method: string,
      request: PlatformRequest,
      response: unknown,
    ): Promise<void> {
      const route = tenant === undefined ? { endpoint } : { endpoint, tenant };
      await this.deliveries.receive(route, method, request, response);
    }
  }
  for (const decorator of decorators) {
    decorator(WebhooksController);
  }
  return WebhooksController;
}
