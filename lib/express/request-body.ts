import { IncomingMessage } from 'node:http';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import { BODY_ALREADY_PARSED } from './express.messages';

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
 * @throws WebhookRefusal 413 over `limit`, 500 when the body was parsed already
 */
export async function readRequestBody(request: RouterRequest, limit: number): Promise<Buffer> {
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
  return readStream(request, limit);
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

function readStream(stream: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        stream.off('data', onData);
        // NOTE: the rest is read and dropped, so the 413 reaches a sender still writing.
        stream.resume();
        reject(WebhookRefusal.tooLarge(limit));
        return;
      }
      chunks.push(chunk);
    };
    stream.on('data', onData);
    stream.on('end', () => resolve(Buffer.concat(chunks, size)));
    stream.on('error', reject);
  });
}
