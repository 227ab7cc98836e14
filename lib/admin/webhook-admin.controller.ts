import {
  BadRequestException,
  Body,
  CanActivate,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Type,
  UseGuards,
} from '@nestjs/common';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { WebhookEventStatus } from '../store/webhook-event-status';
import { WebhookAdmin, WebhookEventFilter } from './webhook-admin.service';

const STATUSES: readonly WebhookEventStatus[] = [
  'pending',
  'processing',
  'retrying',
  'processed',
  'ignored',
  'dead',
];

/** Where the admin routes are mounted, and who may use them. */
export interface WebhookAdminRoutesOptions {
  /**
   * Guards every admin route must pass, e.g. your authentication guard plus a role check.
   * Required: the routes replay and settle payment events.
   */
  guards: (Type<CanActivate> | CanActivate)[];
  /**
   * Route prefix of the admin routes.
   * @default 'webhooks-admin'
   */
  path?: string;
}

/** Query parameters of the list and replay routes. */
interface FilterQuery {
  endpoint?: string;
  status?: string;
  type?: string;
  paymentRef?: string;
  merchantRef?: string;
  since?: string;
  until?: string;
  limit?: string;
}

function parseDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) {
    return undefined;
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw new BadRequestException(`${name} must be an ISO 8601 time, e.g. 2026-11-29T10:00:00Z`);
  }
  return date;
}

function parseFilter(query: FilterQuery): WebhookEventFilter {
  const statuses = query.status?.split(',').map((status) => status.trim());
  const unknown = statuses?.filter((status) => !STATUSES.includes(status as WebhookEventStatus));
  if (unknown && unknown.length > 0) {
    throw new BadRequestException(
      `status must be one or more of ${STATUSES.join(', ')} (got ${unknown.join(', ')})`,
    );
  }
  return {
    endpoint: query.endpoint,
    status: statuses as WebhookEventStatus[] | undefined,
    type: query.type,
    paymentRef: query.paymentRef,
    merchantRef: query.merchantRef,
    since: parseDate('since', query.since),
    until: parseDate('until', query.until),
  };
}

/**
 * Builds the optional admin routes over `WebhookAdmin`, mounted only when the app gives guards:
 * `GET /{path}/events`, `GET /{path}/events/:id`, `POST /{path}/events/:id/redeliver`,
 * `POST /{path}/events/:id/settle`, `POST /{path}/replay`, `GET /{path}/stats`.
 * @throws WebhookConfigurationError when no guard is given.
 */
export function createWebhookAdminController(options: WebhookAdminRoutesOptions): Type<unknown> {
  if (!Array.isArray(options?.guards) || options.guards.length === 0) {
    throw new WebhookConfigurationError(
      'The webhook admin routes replay and settle payment events: mount them only behind your own ' +
        'guard, e.g. admin: { guards: [AdminGuard] }, or leave admin out.',
    );
  }
  const path = (options.path ?? 'webhooks-admin').replace(/^\/+|\/+$/g, '');

  @Controller(path)
  @UseGuards(...options.guards)
  class WebhookAdminController {
    constructor(private readonly admin: WebhookAdmin) {}

    @Get('events')
    list(@Query() query: FilterQuery) {
      const limit = query.limit === undefined ? undefined : Number(query.limit);
      if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000)) {
        throw new BadRequestException('limit must be an integer from 1 to 1000');
      }
      return this.admin.list({ ...parseFilter(query), limit });
    }

    @Get('events/:id')
    async show(@Param('id', ParseUUIDPipe) id: string) {
      const details = await this.admin.show(id);
      if (!details) {
        throw new NotFoundException(`No stored event ${id}`);
      }
      return details;
    }

    @Post('events/:id/redeliver')
    @HttpCode(200)
    async redeliver(@Param('id', ParseUUIDPipe) id: string) {
      if (!(await this.admin.redeliver(id))) {
        throw new NotFoundException(
          `Event ${id} was not put back: there is none, it is already waiting, or a worker holds it`,
        );
      }
      return { redelivered: id };
    }

    @Post('events/:id/settle')
    @HttpCode(200)
    async settle(
      @Param('id', ParseUUIDPipe) id: string,
      @Body() body: { status?: string; reason?: string },
    ) {
      if (body?.status !== 'dead' && body?.status !== 'ignored') {
        throw new BadRequestException('status must be "dead" or "ignored"');
      }
      if (typeof body.reason !== 'string' || body.reason.trim() === '') {
        throw new BadRequestException('reason must say why the event is settled by hand');
      }
      if (!(await this.admin.settle(id, body.status, body.reason))) {
        throw new NotFoundException(
          `Event ${id} was not settled: there is none or a worker holds it`,
        );
      }
      return { settled: id, status: body.status };
    }

    @Post('replay')
    @HttpCode(200)
    replay(@Query() query: FilterQuery) {
      return this.admin.replay(parseFilter(query));
    }

    @Get('stats')
    stats() {
      return this.admin.stats();
    }
  }
  return WebhookAdminController;
}
