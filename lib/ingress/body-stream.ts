import { IncomingMessage } from 'node:http';
import { WebhookRefusal } from './webhook-refusal';

/** How much of a body is read, and for how long. */
export interface BodyBounds {
  /** Largest body in bytes; past it the read fails with a 413 refusal. */
  readonly limit: number;
  /** Longest the whole body may take to arrive, in ms; past it the read fails with a 408 refusal. */
  readonly timeoutMs: number;
}

/** The requests whose body `readBodyStream()` is reading, within its own time bound. */
const beingRead = new WeakSet<IncomingMessage>();

/** Whether `readBodyStream()` is reading the body of `request`, and so bounds its time. */
export function readingHere(request: IncomingMessage): boolean {
  return beingRead.has(request);
}

/**
 * Reads a request body that nothing read before, within `bounds`. Once a bound is passed the
 * rest is dropped as it comes, never kept: the refusal's answer closes the connection.
 * @throws WebhookRefusal 413 over `limit`, 408 past `timeoutMs`
 */
export function readBodyStream(stream: IncomingMessage, bounds: BodyBounds): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const settle = (error?: unknown) => {
      clearTimeout(timer);
      beingRead.delete(stream);
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', settle);
      if (error === undefined) {
        resolve(Buffer.concat(chunks, size));
        return;
      }
      // NOTE: the rest is read and dropped, so the answer reaches a sender still writing.
      stream.resume();
      reject(error);
    };
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size > bounds.limit) {
        chunks.length = 0;
        settle(WebhookRefusal.tooLarge(bounds.limit));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = () => settle();
    const timer = setTimeout(() => {
      chunks.length = 0;
      settle(WebhookRefusal.bodyTimeout(bounds.timeoutMs));
    }, bounds.timeoutMs);
    beingRead.add(stream);
    stream.on('data', onData);
    stream.on('end', onEnd);
    stream.on('error', settle);
  });
}

/**
 * Whether the answer to `request` must close the connection: when its body has not all
 * arrived, keeping the connection would mean reading (or waiting for) the rest first.
 */
export function bodyStillComing(request: Pick<IncomingMessage, 'complete'>): boolean {
  return request.complete === false;
}
