import { ServerResponse } from 'node:http';
import { IngressAnswer, refusedAnswer } from '../ingress/ingress-answer';
import { flattenHeaders } from '../ingress/raw-body';
import { WebhookDelivery, WebhookDeliveryHead } from '../ingress/webhook-ingress.service';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import { SafeLogger } from '../observability/safe-logger';
import { WebhookDeliveryMethod } from '../providers/webhook-provider.interface';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { writeAnswer } from './http-answer';
import { readRequestBody, RouterRequest } from './request-body';

/** What of the engine's ingress the router calls. */
export interface DeliveryIngress {
  ingest(delivery: WebhookDelivery): Promise<IngressAnswer>;
  refuseSource(head: WebhookDeliveryHead): WebhookRefusal | undefined;
}

/** Express's `next`. */
export type NextFunction = (error?: unknown) => void;

/** Express middleware: `(request, response, next)`. */
export type RequestHandler = (
  request: RouterRequest,
  response: ServerResponse,
  next: NextFunction,
) => void;

const logger = new SafeLogger('WebhooksRouter');

/**
 * Serves `POST /{endpoint}` (and `GET /{endpoint}` for providers that deliver by query string)
 * under wherever the router is mounted: the source allowlist before the body is read, the raw
 * bytes read here, then the engine's `ingest()` and its answer written as it is. Requests for
 * other paths and methods go on to the app's next handler.
 */
export function deliveryHandler(
  ingress: () => DeliveryIngress,
  options: Pick<ResolvedWebhooksOptions, 'endpoints' | 'trustProxy'>,
): RequestHandler {
  return (request, response, next) => {
    const method = request.method === 'GET' || request.method === 'POST' ? request.method : null;
    const endpoint = method === null ? undefined : endpointOf(request.url ?? '');
    if (method === null || endpoint === undefined) {
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
  method: WebhookDeliveryMethod,
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
  const refusal = ingress.refuseSource(head);
  if (refusal) {
    // NOTE: closing keeps the unread body from being drained before the connection is reused.
    response.setHeader('Connection', 'close');
    writeAnswer(response, refusedAnswer(refusal));
    return;
  }
  let rawBody: Buffer;
  try {
    const limit = options.endpoints.get(endpoint)?.maxBodyBytes ?? Number.POSITIVE_INFINITY;
    rawBody = method === 'GET' ? queryOf(request) : await readRequestBody(request, limit);
  } catch (error) {
    if (!(error instanceof WebhookRefusal)) {
      throw error;
    }
    if (error.kind === 'raw_body_unavailable') {
      logger.error(error.message);
    }
    writeAnswer(response, refusedAnswer(error));
    return;
  }
  writeAnswer(response, await ingress.ingest({ ...head, rawBody }));
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
