import { IncomingMessage } from 'node:http';
import { readBodyStream } from '../ingress/body-stream';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import { BODY_ALREADY_PARSED } from './express.messages';

/** How long a body may take to arrive when the caller gives no bound: an endpoint's default. */
const DEFAULT_BODY_TIMEOUT_MS = 10_000;

/** A request as Express hands it to a router: a Node request, maybe with a parsed body. */
export interface RouterRequest extends IncomingMessage {
  body?: unknown;
  /** What some apps keep from a parser's `verify` hook. */
  rawBody?: unknown;
  ip?: string;
  originalUrl?: string;
}

/**
 * The exact bytes of the request body. Reads the stream when nothing read it before (the router
 * mounted ahead of the app's parsers); takes the buffer `express.raw()` left, or a `rawBody`
 * buffer a parser's `verify` hook kept. When a parser consumed the body and kept no bytes, the
 * refusal names the fix: the signature cannot be checked, and a 400 would send the team hunting
 * a wrong secret.
 * @param timeoutMs longest the body may take to arrive.
 * @throws WebhookRefusal 413 over `limit`, 408 past `timeoutMs`, 500 when the body was parsed already
 */
export async function readRequestBody(
  request: RouterRequest,
  limit: number,
  timeoutMs = DEFAULT_BODY_TIMEOUT_MS,
): Promise<Buffer> {
  if (Buffer.isBuffer(request.rawBody)) {
    return request.rawBody;
  }
  if (Buffer.isBuffer(request.body)) {
    return request.body;
  }
  if (request.readableEnded || !unread(request.body)) {
    throw WebhookRefusal.rawBodyUnavailable(BODY_ALREADY_PARSED(request.headers['content-type']));
  }
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) {
    throw WebhookRefusal.tooLarge(limit);
  }
  return readBodyStream(request, { limit, timeoutMs });
}

/**
 * Whether `body` is what a parser leaves when it did not read the request: nothing, or (Express
 * 4's body-parser, for a content type it does not take) an empty object.
 */
function unread(body: unknown): boolean {
  return (
    body === undefined ||
    (typeof body === 'object' &&
      body !== null &&
      Object.getPrototypeOf(body) === Object.prototype &&
      Object.keys(body).length === 0)
  );
}
