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

/** The methods the router answers on `/{endpoint}`; others (HEAD, OPTIONS) go on to the app. */
const ROUTE_METHODS: ReadonlySet<string> = new Set(['POST', 'GET', 'PUT', 'PATCH', 'DELETE']);

/**
 * Serves `POST /{endpoint}` (and `GET /{endpoint}` for providers that deliver by query string)
 * under wherever the router is mounted, through the one request flow: the router reads the raw
 * bytes itself (or takes the buffer `express.raw()` left) and writes the answer as it is. Other
 * paths, HEAD and OPTIONS go on to the app's next handler.
 */
export function deliveryHandler(ingress: () => DeliveryIngress): RequestHandler {
  return (request, response, next) => {
    const method = request.method ?? '';
    const endpoint = ROUTE_METHODS.has(method) ? endpointOf(request.url ?? '') : undefined;
    if (endpoint === undefined) {
      next();
      return;
    }
    handleDelivery(ingress(), routerIo(endpoint, method, request, response)).catch(next);
  };
}

/** A router request and its response as the flow reads and answers them. */
function routerIo(
  endpoint: string,
  method: string,
  request: RouterRequest,
  response: ServerResponse,
): DeliveryIo {
  return {
    endpoint,
    method,
    headers: request.headers,
    sourceIp: (trustProxy) => sourceIpOf(request, trustProxy),
    url: () => request.url ?? '',
    readBody: ({ limit, timeoutMs }) => readRequestBody(request, limit, timeoutMs),
    bodyStillComing: () => bodyStillComing(request),
    write: (answer) => writeAnswer(response, answer),
  };
}

/** The endpoint name of `/{endpoint}` (a trailing `/` allowed), if the path is one. */
function endpointOf(url: string): string | undefined {
  const path = url.split('?')[0];
  const match = /^\/([^/]+)\/?$/.exec(path);
  if (!match) {
    return undefined;
  }
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}
