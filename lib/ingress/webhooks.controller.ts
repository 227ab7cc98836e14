import { Controller, Get, HttpCode, Param, Post, Req, Res, Type } from '@nestjs/common';
import { PlatformDeliveries, PlatformRequest } from './platform-deliveries';

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
    constructor(private readonly deliveries: PlatformDeliveries) {}

    @Post(':endpoint')
    @HttpCode(200)
    async receive(
      @Param('endpoint') endpoint: string,
      @Req() request: PlatformRequest,
      @Res() response: unknown,
    ): Promise<void> {
      const verified = await this.deliveries.verify(endpoint, 'POST', request, response);
      await this.deliveries.answer(verified, response);
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
      const verified = await this.deliveries.verify(endpoint, 'GET', request, response);
      await this.deliveries.answer(verified, response);
    }
  }
  for (const decorator of decorators) {
    decorator(WebhooksController);
  }
  return WebhooksController;
}
