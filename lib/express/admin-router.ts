import type { ServerResponse } from 'node:http';
import { URLSearchParams } from 'node:url';
import { WebhookConfigurationError } from '../core/webhook-errors';
import {
  adminActor,
  answerAbandoned,
  WebhookAdminFilterQuery,
  WebhookAdminRequestError,
  WebhookAdminRequests,
  WebhookAdminSettleBody,
} from '../admin/webhook-admin.requests';
import { WebhookAdmin } from '../admin/webhook-admin';
import { refuseAdminWrite } from '../admin/admin-write-check';
import {
  adminActivity,
  INBOX_PAGE_HEADERS,
  InboxPageFile,
  inboxPageFile,
  isInboxPageRoute,
} from '../admin/inbox-page';
import { AUTHORIZE_THREW } from '../admin/webhook-admin.messages';
import { SafeLogger } from '../telemetry/safe-logger';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import { RequestHandler } from './delivery-handler';
import { ADMIN_BODY_INVALID, ADMIN_FORBIDDEN, ADMIN_NEEDS_AUTHORIZE } from './express.messages';
import { errorBody, writeJson, writeText } from './http-answer';
import { readRequestBody, RouterRequest } from './request-body';

/** Who may use the admin routes. */
export interface WebhookAdminRouterOptions {
  /**
   * Decides whether a request may use the admin routes, e.g. by checking an admin token header
   * or your session; a request it refuses (false, or a thrown error, which is logged by name
   * and message) gets 403. Required: the routes replay and settle payment events. The POST
   * routes also take `Content-Type: application/json` only and refuse cross-site requests, so
   * a session cookie cannot be used by another site's form.
   */
  authorize: (request: RouterRequest) => boolean | Promise<boolean>;
}

const MAX_BODY_BYTES = 64 * 1024;

type Route = (
  requests: WebhookAdminRequests,
  request: RouterRequest,
  response: ServerResponse,
) => Promise<unknown>;

/** A route's answer with another status than 200: 202 for work left to the background. */
class RouteAnswer {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {}
}

/** The routes on the mount point itself (`GET groups`, `POST pause`), by method and name. */
const TOP_ROUTES: Readonly<Record<string, Route>> = {
  'GET events': (requests, request) => requests.list(queryOf(request)),
  'GET groups': (requests, request) => requests.groups(queryOf(request)),
  'GET pauses': (requests) => requests.pauses(),
  'GET stats': (requests) => requests.stats(),
  'POST replay': async (requests, request, response) =>
    requests.replay(
      queryOf(request),
      await jsonBodyOf(request),
      request,
      answerAbandoned(response),
    ),
  'POST discard': async (requests, request) =>
    requests.discard(queryOf(request), await jsonBodyOf(request), request),
  'POST pause': async (requests, request) =>
    requests.pause(queryOf(request), await jsonBodyOf(request), request),
  'POST resume': async (requests, request) =>
    requests.resume(queryOf(request), await jsonBodyOf(request)),
  'GET replays': (requests, request) => requests.replayJobs(queryOf(request)),
  'POST replays': async (requests, request) =>
    new RouteAnswer(
      202,
      await requests.startReplay(queryOf(request), await jsonBodyOf(request), request),
    ),
  'GET backfills': (requests, request) => requests.backfills.list(queryOf(request)),
  'POST backfills': async (requests, request) =>
    new RouteAnswer(
      202,
      await requests.backfills.start(
        queryOf(request),
        await jsonBodyOf(request),
        adminActor(request),
      ),
    ),
  'GET recoveries': (requests, request) => requests.recoveryJobs(queryOf(request)),
  'POST recoveries': async (requests, request) =>
    new RouteAnswer(
      202,
      await requests.startRecovery(queryOf(request), await jsonBodyOf(request), request),
    ),
};

/** The routes of the Nest admin controller, by method and path under the mount point. */
function routeOf(method: string | undefined, path: string): Route | undefined {
  const parts = path.split('/').filter((part) => part !== '');
  const [first, id, action] = parts.map((part) => safeDecode(part));
  if (parts.length === 1) {
    const key = `${method} ${first}`;
    return Object.hasOwn(TOP_ROUTES, key) ? TOP_ROUTES[key] : undefined;
  }
  if (
    (first === 'replays' || first === 'recoveries' || first === 'backfills') &&
    id !== undefined
  ) {
    return jobRouteOf(first, method, parts.length, id, action);
  }
  if (first !== 'events' || id === undefined) {
    return undefined;
  }
  if (method === 'GET' && parts.length === 2) {
    return (requests, request) => requests.show(id, queryOf(request));
  }
  if (method === 'POST' && parts.length === 3 && action === 'redeliver') {
    return (requests, request) => requests.redeliver(id, request);
  }
  if (method === 'POST' && parts.length === 3 && action === 'settle') {
    return async (requests, request) =>
      requests.settle(id, (await jsonBodyOf(request)) as WebhookAdminSettleBody, request);
  }
  return undefined;
}

/** `GET replays/:id`, `POST replays/:id/cancel`, and the same of `recoveries` and `backfills`. */
function jobRouteOf(
  jobs: 'replays' | 'recoveries' | 'backfills',
  method: string | undefined,
  length: number,
  id: string,
  action: string | undefined,
): Route | undefined {
  const routes = {
    replays: {
      show: (requests: WebhookAdminRequests) => requests.replayJob(id),
      cancel: (requests: WebhookAdminRequests, body: unknown) => requests.cancelReplay(id, body),
    },
    recoveries: {
      show: (requests: WebhookAdminRequests) => requests.recoveryJob(id),
      cancel: (requests: WebhookAdminRequests, body: unknown) => requests.cancelRecovery(id, body),
    },
    backfills: {
      show: (requests: WebhookAdminRequests) => requests.backfills.show(id),
      cancel: (requests: WebhookAdminRequests, body: unknown) =>
        requests.backfills.cancel(id, body),
    },
  }[jobs];
  if (method === 'GET' && length === 2) {
    return (requests) => routes.show(requests);
  }
  if (method === 'POST' && length === 3 && action === 'cancel') {
    return async (requests, request) => routes.cancel(requests, await jsonBodyOf(request));
  }
  return undefined;
}

/**
 * The admin routes of the Nest module's admin controller, as Express middleware over the
 * engine's `WebhookAdmin`: `GET events`, `GET events/:id` (`?include=body` adds the stored
 * body and headers), `POST events/:id/redeliver`, `POST events/:id/settle`, `POST replay`,
 * `POST discard`, `GET groups`, `POST pause`, `POST resume`, `GET pauses`, `GET stats`,
 * `POST replays` (202), `GET replays`, `GET replays/:id`, `POST replays/:id/cancel`, the same four
 * of `recoveries` and of `backfills`,
 * `GET activity` and the inbox page (`GET inbox`, see docs/operations.md), each behind
 * `authorize`. A change keeps `req.user` (as an authentication middleware mounted before sets
 * it) or the client's address as its actor.
 * @throws WebhookConfigurationError when `authorize` is missing
 */
export function adminRouter(
  admin: WebhookAdmin,
  options: WebhookAdminRouterOptions,
): RequestHandler {
  if (typeof options?.authorize !== 'function') {
    throw new WebhookConfigurationError(ADMIN_NEEDS_AUTHORIZE);
  }
  const requests = new WebhookAdminRequests(admin);
  const logger = new SafeLogger('WebhookAdmin');
  return (request, response, next) => {
    const path = (request.url ?? '').split('?')[0];
    const route = routeOf(request.method, path) ?? pageRouteOf(admin, request.method, path);
    if (!route) {
      next();
      return;
    }
    serve(options, requests, route, request, response, logger)
      .then(([status, body]) =>
        body instanceof InboxPageFile
          ? writePage(response, body)
          : writeJson(response, status, body),
      )
      .catch(next);
  };
}

/** `GET activity` and the inbox page's files (`GET inbox`, its modules and `inbox/inbox.css`). */
function pageRouteOf(
  admin: WebhookAdmin,
  method: string | undefined,
  path: string,
): Route | undefined {
  const name = path
    .split('/')
    .filter((part) => part !== '')
    .join('/');
  if (method !== 'GET') {
    return undefined;
  }
  if (name === 'activity') {
    return async () => adminActivity(admin);
  }
  return isInboxPageRoute(name) ? async () => inboxPageFile(name, path) : undefined;
}

/** Writes a file of the inbox page with the page's security headers. */
function writePage(response: ServerResponse, file: InboxPageFile): void {
  for (const [name, value] of Object.entries(INBOX_PAGE_HEADERS)) {
    response.setHeader(name, value);
  }
  writeText(response, 200, file.contentType, file.body);
}

async function serve(
  options: WebhookAdminRouterOptions,
  requests: WebhookAdminRequests,
  route: Route,
  request: RouterRequest,
  response: ServerResponse,
  logger: SafeLogger,
): Promise<[number, unknown]> {
  const allowed = await Promise.resolve()
    .then(() => options.authorize(request))
    .catch((error: unknown) => {
      // NOTE: the error's name and message only: its stack or properties may hold the request.
      const { name, message } =
        error instanceof Error ? error : { name: typeof error, message: String(error) };
      logger.warn(AUTHORIZE_THREW(name, message));
      return false;
    });
  if (allowed !== true) {
    return [403, errorBody(403, ADMIN_FORBIDDEN)];
  }
  const refused = request.method === 'POST' ? refuseAdminWrite(request.headers) : undefined;
  if (refused) {
    return [refused.status, errorBody(refused.status, refused.message)];
  }
  try {
    const answer = await route(requests, request, response);
    return answer instanceof RouteAnswer ? [answer.status, answer.body] : [200, answer];
  } catch (error) {
    if (error instanceof WebhookAdminRequestError) {
      return [error.status, errorBody(error.status, error.message)];
    }
    throw error;
  }
}

/** The query string, a repeated key as the list of its values (as Express's parser gives it). */
function queryOf(request: RouterRequest): WebhookAdminFilterQuery {
  const url = request.url ?? '';
  const params = new URLSearchParams(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '');
  // NOTE: no prototype, so a `__proto__` key is kept as a key (and refused as unknown).
  const query: Record<string, string | string[]> = Object.create(null);
  for (const key of new Set(params.keys())) {
    const values = params.getAll(key);
    query[key] = values.length === 1 ? values[0] : values;
  }
  return query;
}

/** The JSON body: parsed already by `express.json()`, or read and parsed here. */
async function jsonBodyOf(request: RouterRequest): Promise<Record<string, unknown>> {
  if (isObject(request.body)) {
    return request.body;
  }
  let value: unknown;
  try {
    const raw = await readRequestBody(request, MAX_BODY_BYTES);
    value = raw.length === 0 ? {} : JSON.parse(raw.toString('utf8'));
  } catch (error) {
    if (error instanceof SyntaxError || error instanceof WebhookRefusal) {
      throw new WebhookAdminRequestError(400, ADMIN_BODY_INVALID);
    }
    throw error;
  }
  if (!isObject(value)) {
    throw new WebhookAdminRequestError(400, ADMIN_BODY_INVALID);
  }
  return value;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function safeDecode(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
