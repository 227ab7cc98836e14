import { ServerResponse } from 'node:http';
import { IngressAnswer, refusedAnswer } from '../ingress/ingress-answer';
import { bodyStillComing } from '../ingress/body-stream';
import { flattenHeaders } from '../ingress/raw-body';
import type { WebhookDelivery, WebhookDeliveryHead } from '../ingress/webhook-delivery';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import { SafeLogger } from '../telemetry/safe-logger';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { writeAnswer } from './http-answer';
import { readRequestBody, RouterRequest } from './request-body';

/** What of the engine's ingress the router calls. */
export interface DeliveryIngress {
  ingest(delivery: WebhookDelivery): Promise<IngressAnswer>;
  refuseHead(head: WebhookDeliveryHead): WebhookRefusal | undefined;
  bodyRefused(head: WebhookDeliveryHead, refusal: WebhookRefusal): WebhookRefusal;
}

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

const logger = new SafeLogger('WebhooksRouter');

/**
 * Serves `POST /{endpoint}` (and `GET /{endpoint}` for providers that deliver by query string)
 * under wherever the router is mounted: what the URL, method and headers tell (404, 405, 403,
 * a declared size over the limit) answered before the body is read, the raw bytes read here
 * within the endpoint's size and time bounds, then the engine's `ingest()` and its answer
 * written as it is. Other paths, HEAD and OPTIONS go on to the app's next handler.
 */
export function deliveryHandler(
  ingress: () => DeliveryIngress,
  options: Pick<ResolvedWebhooksOptions, 'endpoints' | 'trustProxy'>,
): RequestHandler {
  return (request, response, next) => {
    const method = request.method ?? '';
    const endpoint = ROUTE_METHODS.has(method) ? endpointOf(request.url ?? '') : undefined;
    if (endpoint === undefined) {
      next();
      return;
    }
    deliver(ingress(), options, endpoint, method, request, response).catch(next);
  };
}

async function deliver(
  ingress: DeliveryIngress,
  options: Pick<ResolvedWebhooksOptions, 'endpoints' | 'trustProxy'>,
  endpoint: string,
  method: string,
  request: RouterRequest,
  response: ServerResponse,
): Promise<void> {
  const head: WebhookDeliveryHead = {
    endpoint,
    method,
    headers: flattenHeaders(request.headers),
    sourceIp: options.trustProxy ? request.ip : request.socket.remoteAddress,
    receivedAt: new Date(),
  };
  const refusal = ingress.refuseHead(head);
  if (refusal) {
    refuse(request, response, refusal);
    return;
  }
  let rawBody: Buffer;
  try {
    const { maxBodyBytes, bodyTimeoutMs } = options.endpoints.get(endpoint)!;
    rawBody =
      method === 'GET'
        ? queryOf(request)
        : await readRequestBody(request, maxBodyBytes, bodyTimeoutMs);
  } catch (error) {
    if (!(error instanceof WebhookRefusal)) {
      throw error;
    }
    if (error.kind === 'raw_body_unavailable') {
      logger.error(error.message);
    }
    refuse(request, response, ingress.bodyRefused(head, error));
    return;
  }
  writeAnswer(response, await ingress.ingest({ ...head, rawBody }));
}

/** Writes a refusal; closes the connection when the body is still coming. */
function refuse(request: RouterRequest, response: ServerResponse, refusal: WebhookRefusal): void {
  if (bodyStillComing(request)) {
    // NOTE: closing keeps the unread body from being read or waited for before the connection
    // is reused: Node closes it once the answer is written.
    response.setHeader('Connection', 'close');
  }
  writeAnswer(response, refusedAnswer(refusal));
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

/** A GET delivery's notification (Sber callbacks): its query string, as the provider signed it. */
function queryOf(request: RouterRequest): Buffer {
  const url = request.url ?? '';
  return Buffer.from(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '', 'latin1');
}
