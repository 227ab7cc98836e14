import type { IncomingHttpHeaders, ServerResponse } from 'node:http';
import {
  applyDecorators,
  BadRequestException,
  Body,
  CanActivate,
  Controller,
  ExecutionContext,
  ForbiddenException,
  Get,
  Header,
  HttpCode,
  HttpException,
  NotFoundException,
  Param,
  ParseUUIDPipe,
  Post,
  Query,
  Req,
  Res,
  Type,
  UnsupportedMediaTypeException,
  UseGuards,
} from '@nestjs/common';
import { refuseAdminWrite } from '../admin/admin-write-check';
import {
  adminActivity,
  INBOX_PAGE_HEADERS,
  INBOX_PAGE_ROUTES,
  inboxPageFile,
  isInboxPageRoute,
} from '../admin/inbox-page';
import type { WebhookAdminRoutesOptions } from './webhooks-module-extras';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { WebhookAdmin } from '../admin/webhook-admin';
import {
  adminActor,
  answerAbandoned,
  WebhookAdminCaller,
  WebhookAdminFilterQuery,
  WebhookAdminRequestError,
  WebhookAdminRequests,
  WebhookAdminSettleBody,
} from '../admin/webhook-admin.requests';

/** Nest's exception for a refused admin request, with the rule as its message. */
function refusal(status: WebhookAdminRequestError['status'], message: string): HttpException {
  switch (status) {
    case 403:
      return new ForbiddenException(message);
    case 404:
      return new NotFoundException(message);
    case 415:
      return new UnsupportedMediaTypeException(message);
    default:
      return new BadRequestException(message);
  }
}

/** The request's result, with a refused request as Nest's 400 or 404 exception. */
async function answer<T>(work: () => Promise<T> | T): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof WebhookAdminRequestError) {
      throw refusal(error.status, error.message);
    }
    throw error;
  }
}

/**
 * Lets a state-changing admin request through only when it is JSON and not cross-site (see
 * `refuseAdminWrite()`). It runs after the app's guards.
 */
class WebhookAdminWriteGuard implements CanActivate {
  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<{ headers: IncomingHttpHeaders }>();
    const refused = refuseAdminWrite(request.headers);
    if (refused) {
      throw refusal(refused.status, refused.message);
    }
    return true;
  }
}

const WRITE_GUARD = new WebhookAdminWriteGuard();

/** Node's `ServerResponse`: Express's response is one, Fastify's reply holds it as `raw`. */
function nodeResponse(response: ServerResponse | { raw: ServerResponse }): ServerResponse {
  return 'raw' in response ? response.raw : response;
}

/**
 * A `GET` route serving files of the inbox page, with the page's security headers.
 * @param contentType the content type of the file it serves; left out, the route sets it on
 * its answer, as Nest sets a declared header before the handler runs, on its 404 too.
 */
function PageFile(path: string, contentType?: string): MethodDecorator {
  return applyDecorators(
    Get(path),
    ...Object.entries(INBOX_PAGE_HEADERS).map(([name, value]) => Header(name, value)),
    ...(contentType === undefined ? [] : [Header('Content-Type', contentType)]),
  );
}

/**
 * Builds the optional admin routes over `WebhookAdmin`, mounted only when the app gives guards:
 * `GET /{path}/events`, `GET /{path}/events/:id` (`?include=body` adds the stored body and
 * headers), `POST /{path}/events/:id/redeliver`, `POST /{path}/events/:id/settle`,
 * `POST /{path}/replay`, `POST /{path}/discard`, `GET /{path}/groups`, `POST /{path}/pause`,
 * `POST /{path}/resume`, `GET /{path}/pauses`, `GET /{path}/stats`, `POST /{path}/replays`
 * (202), `GET /{path}/replays`, `GET /{path}/replays/:id`, `POST /{path}/replays/:id/cancel`, `POST /{path}/recoveries`
 * (202), `GET /{path}/recoveries`, `GET /{path}/recoveries/:id`, `POST /{path}/recoveries/:id/cancel`,
 * `GET /{path}/activity` and the inbox page (`GET /{path}/inbox`, see docs/operations.md). The
 * POST routes take `Content-Type: application/json` only, refuse cross-site requests, and keep
 * the request's user (or address) as the actor of the change.
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
    private readonly requests: WebhookAdminRequests;

    constructor(private readonly admin: WebhookAdmin) {
      this.requests = new WebhookAdminRequests(admin);
    }

    @Get('events')
    list(@Query() query: WebhookAdminFilterQuery) {
      return answer(() => this.requests.list(query));
    }

    @Get('events/:id')
    show(@Param('id', ParseUUIDPipe) id: string, @Query() query: WebhookAdminFilterQuery) {
      return answer(() => this.requests.show(id, query));
    }

    @Post('events/:id/redeliver')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    redeliver(@Param('id', ParseUUIDPipe) id: string, @Req() caller: WebhookAdminCaller) {
      return answer(() => this.requests.redeliver(id, caller));
    }

    @Post('events/:id/settle')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    settle(
      @Param('id', ParseUUIDPipe) id: string,
      @Body() body: WebhookAdminSettleBody,
      @Req() caller: WebhookAdminCaller,
    ) {
      return answer(() => this.requests.settle(id, body, caller));
    }

    @Post('replay')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    replay(
      @Query() query: WebhookAdminFilterQuery,
      @Body() body: unknown,
      @Req() caller: WebhookAdminCaller,
      @Res({ passthrough: true }) response: ServerResponse | { raw: ServerResponse },
    ) {
      const signal = answerAbandoned(nodeResponse(response));
      return answer(() => this.requests.replay(query, body, caller, signal));
    }

    @Post('discard')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    discard(
      @Query() query: WebhookAdminFilterQuery,
      @Body() body: unknown,
      @Req() caller: WebhookAdminCaller,
    ) {
      return answer(() => this.requests.discard(query, body, caller));
    }

    @Get('groups')
    groups(@Query() query: WebhookAdminFilterQuery) {
      return answer(() => this.requests.groups(query));
    }

    @Post('pause')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    pause(
      @Query() query: WebhookAdminFilterQuery,
      @Body() body: unknown,
      @Req() caller: WebhookAdminCaller,
    ) {
      return answer(() => this.requests.pause(query, body, caller));
    }

    @Post('resume')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    resume(@Query() query: WebhookAdminFilterQuery, @Body() body: unknown) {
      return answer(() => this.requests.resume(query, body));
    }

    @Get('pauses')
    pauses() {
      return answer(() => this.requests.pauses());
    }

    @Get('activity')
    activity() {
      return answer(() => adminActivity(this.admin));
    }

    @PageFile('inbox', INBOX_PAGE_ROUTES.inbox.contentType)
    page(@Req() request: { url?: string }) {
      return inboxPageFile('inbox', request.url).body;
    }

    @PageFile('inbox/inbox.css', INBOX_PAGE_ROUTES['inbox/inbox.css'].contentType)
    pageStyle() {
      return inboxPageFile('inbox/inbox.css').body;
    }

    // NOTE: one route for all the page's modules, after the stylesheet's: Express matches routes
    // in the order they are declared. Express's response and Fastify's reply both have header().
    @PageFile('inbox/:module')
    pageModule(
      @Param('module') name: string,
      @Res({ passthrough: true }) response: { header(name: string, value: string): unknown },
    ) {
      const route = `inbox/${name}`;
      if (!isInboxPageRoute(route) || !route.endsWith('.js')) {
        throw new NotFoundException('The inbox page has no such module');
      }
      const file = inboxPageFile(route);
      response.header('Content-Type', file.contentType);
      return file.body;
    }

    @Get('stats')
    stats() {
      return answer(() => this.requests.stats());
    }

    @Post('replays')
    @UseGuards(WRITE_GUARD)
    @HttpCode(202)
    startReplay(
      @Query() query: WebhookAdminFilterQuery,
      @Body() body: unknown,
      @Req() caller: WebhookAdminCaller,
    ) {
      return answer(() => this.requests.startReplay(query, body, caller));
    }

    @Get('replays')
    replayJobs(@Query() query: WebhookAdminFilterQuery) {
      return answer(() => this.requests.replayJobs(query));
    }

    @Get('replays/:id')
    replayJob(@Param('id', ParseUUIDPipe) id: string) {
      return answer(() => this.requests.replayJob(id));
    }

    @Post('replays/:id/cancel')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    cancelReplay(@Param('id', ParseUUIDPipe) id: string, @Body() body: unknown) {
      return answer(() => this.requests.cancelReplay(id, body));
    }

    @Post('recoveries')
    @UseGuards(WRITE_GUARD)
    @HttpCode(202)
    startRecovery(
      @Query() query: WebhookAdminFilterQuery,
      @Body() body: unknown,
      @Req() caller: WebhookAdminCaller,
    ) {
      return answer(() => this.requests.startRecovery(query, body, caller));
    }

    @Get('recoveries')
    recoveryJobs(@Query() query: WebhookAdminFilterQuery) {
      return answer(() => this.requests.recoveryJobs(query));
    }

    @Get('recoveries/:id')
    recoveryJob(@Param('id', ParseUUIDPipe) id: string) {
      return answer(() => this.requests.recoveryJob(id));
    }

    @Post('recoveries/:id/cancel')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    cancelRecovery(@Param('id', ParseUUIDPipe) id: string, @Body() body: unknown) {
      return answer(() => this.requests.cancelRecovery(id, body));
    }

    @Post('backfills')
    @UseGuards(WRITE_GUARD)
    @HttpCode(202)
    startBackfill(
      @Query() query: WebhookAdminFilterQuery,
      @Body() body: unknown,
      @Req() caller: WebhookAdminCaller,
    ) {
      return answer(() => this.requests.backfills.start(query, body, adminActor(caller)));
    }

    @Get('backfills')
    backfillJobs(@Query() query: WebhookAdminFilterQuery) {
      return answer(() => this.requests.backfills.list(query));
    }

    @Get('backfills/:id')
    backfillJob(@Param('id', ParseUUIDPipe) id: string) {
      return answer(() => this.requests.backfills.show(id));
    }

    @Post('backfills/:id/cancel')
    @UseGuards(WRITE_GUARD)
    @HttpCode(200)
    cancelBackfill(@Param('id', ParseUUIDPipe) id: string, @Body() body: unknown) {
      return answer(() => this.requests.backfills.cancel(id, body));
    }
  }
  return WebhookAdminController;
}
