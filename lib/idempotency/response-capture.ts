import { ServerResponse } from 'node:http';

/** An Express response (a `ServerResponse`) or a Fastify reply (which wraps one as `raw`). */
export interface PlatformResponse {
  raw?: ServerResponse;
  getHeader?(name: string): number | string | string[] | undefined;
  setHeader?(name: string, value: string): unknown;
  header?(name: string, value: string): unknown;
}

/** The Node.js response under an Express response or a Fastify reply. */
export function rawResponseOf(response: PlatformResponse): ServerResponse {
  return response.raw ?? (response as unknown as ServerResponse);
}

/** A response header as the platform will send it, `undefined` when not set. */
export function platformHeader(response: PlatformResponse, name: string): string | undefined {
  const value = response.getHeader?.(name);
  if (value === undefined || value === null) {
    return undefined;
  }
  return Array.isArray(value) ? value.join(', ') : String(value);
}

/**
 * Sets a response header exactly as given. Fastify's `reply.header()`; on Express Node's own
 * `setHeader()`, because `res.set()` would rewrite a stored `Content-Type` (adding a charset).
 */
export function setPlatformHeader(response: PlatformResponse, name: string, value: string): void {
  if (response.raw && typeof response.header === 'function') {
    response.header(name, value);
  } else {
    rawResponseOf(response).setHeader(name, value);
  }
}

type WriteArguments = [chunk?: unknown, encoding?: unknown, callback?: unknown];

function toBuffer(chunk: unknown, encoding: unknown): Buffer | undefined {
  if (chunk === undefined || chunk === null || typeof chunk === 'function') {
    return undefined;
  }
  if (Buffer.isBuffer(chunk)) {
    return chunk;
  }
  if (typeof chunk === 'string') {
    return Buffer.from(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  }
  if (chunk instanceof Uint8Array) {
    return Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  return undefined;
}

/**
 * Records the bytes written to one response, whatever wrote them (the platform's serializer,
 * an exception filter, a handler using `@Res()`), and holds its end until `beforeEnd` is done.
 * Works at the Node.js level, so it is the same for Express and Fastify, and the recorded body
 * is what the client receives, byte for byte. `beforeEnd` gets the body when the response is
 * about to end; the response ends once the returned promise settles, so whatever it records
 * is in place before the client has the answer. It must not reject.
 */
export function captureResponse(
  raw: ServerResponse,
  beforeEnd: (body: Buffer) => Promise<void>,
): void {
  const chunks: Buffer[] = [];
  const write = raw.write;
  const end = raw.end;
  let ended = false;
  raw.write = function (this: ServerResponse, ...args: WriteArguments) {
    const bytes = toBuffer(args[0], args[1]);
    if (bytes) {
      chunks.push(Buffer.from(bytes));
    }
    return (write as (...a: WriteArguments) => boolean).apply(this, args);
  } as ServerResponse['write'];
  raw.end = function (this: ServerResponse, ...args: WriteArguments) {
    if (ended) {
      return (end as (...a: WriteArguments) => ServerResponse).apply(this, args);
    }
    ended = true;
    raw.write = write;
    raw.end = end;
    const bytes = toBuffer(args[0], args[1]);
    if (bytes) {
      chunks.push(Buffer.from(bytes));
    }
    // NOTE: the client gets the end of the response only after the outcome is recorded, so a
    // retry sent the moment the answer arrives already finds it.
    void beforeEnd(Buffer.concat(chunks)).finally(() =>
      (end as (...a: WriteArguments) => ServerResponse).apply(raw, args),
    );
    return raw;
  } as ServerResponse['end'];
}
