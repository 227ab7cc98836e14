import { ServerResponse } from 'node:http';
import { bodyStillComing } from '../ingress/body-stream';
import { DeliveryIngress, DeliveryIo, handleDelivery } from '../ingress/delivery-flow';
import { sourceIpOf } from '../ingress/raw-body';
import { writeAnswer } from './http-answer';
import { readRequestBody, RouterRequest } from './request-body';

/** Express's `next`. */
export type NextFunction = (error?: unknown) => void;

/** Express middleware: `(request, response, next)`. */
export type RequestHandler = (
  request: RouterRequest,
  response: ServerResponse,
  next: NextFunction,
) => void;

/**
 * The methods the router answers on `/{endpoint}` and `/{endpoint}/{tenant}`; others (HEAD,
 * OPTIONS) go on to the app.
 */
const ROUTE_METHODS: ReadonlySet<string> = new Set(['POST', 'GET', 'PUT', 'PATCH', 'DELETE']);

/**
 * Serves `POST /{endpoint}` (and `GET /{endpoint}` for providers that deliver by query string),
 * and `POST /{endpoint}/{tenant}` for a tenant endpoint, under wherever the router is mounted, through the one request flow: the router reads the raw
 * bytes itself (or takes the buffer `express.raw()` left) and writes the answer as it is. Other
 * paths, HEAD and OPTIONS go on to the app's next handler.
 */
export function deliveryHandler(ingress: () => DeliveryIngress): RequestHandler {
  return (request, response, next) => {
    const method = request.method ?? '';
    const route = ROUTE_METHODS.has(method) ? routeOf(request.url ?? '') : undefined;
    // NOTE: a path of two segments is the app's unless its first names a tenant endpoint.
    if (
      route === undefined ||
      (route.tenant !== undefined && !ingress().takesTenants(route.endpoint))
    ) {
      next();
      return;
    }
    handleDelivery(ingress(), routerIo(route, method, request, response)).catch(next);
  };
}

/** A router request and its response as the flow reads and answers them. */
function routerIo(
  route: DeliveryRoute,
  method: string,
  request: RouterRequest,
  response: ServerResponse,
): DeliveryIo {
  return {
    ...route,
    method,
    headers: request.headers,
    sourceIp: (trustProxy) => sourceIpOf(request, trustProxy),
    url: () => request.url ?? '',
    readBody: ({ limit, timeoutMs }) => readRequestBody(request, limit, timeoutMs),
    bodyStillComing: () => bodyStillComing(request),
    write: (answer) => writeAnswer(response, answer),
  };
}

/** The endpoint, and the tenant for a tenant endpoint, a path names. */
type DeliveryRoute = Pick<DeliveryIo, 'endpoint' | 'tenant'>;

/**
 * The endpoint name of `/{endpoint}`, or the endpoint and tenant of `/{endpoint}/{tenant}` (a
 * trailing `/` allowed), if the path is one.
 */
function routeOf(url: string): DeliveryRoute | undefined {
  const path = url.split('?')[0];
  const match = /^\/([^/]+)(?:\/([^/]+))?\/?$/.exec(path);
  if (!match) {
    return undefined;
  }
  try {
    const endpoint = decodeURIComponent(match[1]);
    return match[2] === undefined
      ? { endpoint }
      : { endpoint, tenant: decodeURIComponent(match[2]) };
  } catch {
    return undefined;
  }
}
