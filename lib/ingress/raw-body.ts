import { IncomingMessage } from 'node:http';
import {
  RAW_BODY_MISSING,
  RAW_BODY_OR_APP_PARSER,
  RAW_BODY_PARSED_BY_APP,
} from './ingress.messages';
import { BodyBounds, readBodyStream } from './body-stream';
import { WebhookRefusal } from './webhook-refusal';

interface RequestWithRawBody {
  rawBody?: Buffer;
  raw?: IncomingMessage;
}

/** How the app hands request bodies over, for the message when the raw bytes are missing. */
export interface RawBodySetup {
  /** The app's `rawBody` option; undefined when it cannot be read. */
  readonly keepsRawBody?: boolean;
  /** The HTTP adapter's type: `express` or `fastify`. */
  readonly platform?: string;
}

/** Content types whose raw bytes Nest keeps with `rawBody: true`, on Express and Fastify. */
const KEPT_BY_RAW_BODY =
  /^\s*(application\/([\w.+-]*\+)?json|application\/x-www-form-urlencoded)\b/i;

/**
 * The exact bytes of the request body. Uses the buffer Nest keeps with `rawBody: true`; when no
 * body parser touched the stream (a content type the app does not parse), reads it here. When a
 * parser consumed the body without keeping the bytes, fails with a 500 refusal that names the fix: the
 * signature cannot be checked, and a "bad signature" 400 would send the team hunting a wrong secret.
 */
export async function readRawBody(
  request: unknown,
  bounds: BodyBounds,
  setup: RawBodySetup = {},
): Promise<Buffer> {
  const candidate = request as RequestWithRawBody & Partial<IncomingMessage>;
  if (Buffer.isBuffer(candidate.rawBody)) {
    return candidate.rawBody;
  }
  const stream = (candidate.raw ?? candidate) as IncomingMessage;
  if (typeof stream.on === 'function' && stream.readable && !stream.readableEnded) {
    return readBodyStream(stream, bounds);
  }
  const contentType = stream.headers?.['content-type'];
  if (!KEPT_BY_RAW_BODY.test(contentType ?? '')) {
    // NOTE: the platform parsed a type Nest keeps no raw bytes for (Fastify's text/plain):
    // the sender's choice, not the app's configuration, so a 4xx and no error log.
    throw WebhookRefusal.unsupportedMediaType(contentType);
  }
  throw WebhookRefusal.rawBodyUnavailable(rawBodyMissingMessage(contentType, setup));
}

/**
 * With `rawBody: true` the platform's own parser keeps the bytes, so when they are missing
 * another parser read the body first; without it, the option is the fix.
 */
function rawBodyMissingMessage(contentType: string | undefined, setup: RawBodySetup): string {
  if (setup.keepsRawBody === true) {
    return RAW_BODY_PARSED_BY_APP(contentType, setup.platform ?? 'express');
  }
  const missing = RAW_BODY_MISSING(contentType);
  return setup.keepsRawBody === false ? missing : `${missing} ${RAW_BODY_OR_APP_PARSER}`;
}

/** Header values by lower-cased name, repeated headers joined the way HTTP folds them. */
export function flattenHeaders(
  headers: Readonly<Record<string, string | string[] | undefined>>,
): Record<string, string | undefined> {
  const flat: Record<string, string | undefined> = {};
  for (const [name, value] of Object.entries(headers)) {
    flat[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  return flat;
}

/** The parts of an Express or Fastify request that tell where it came from. */
export interface RequestSource {
  ip?: string;
  socket?: { remoteAddress?: string };
  raw?: { socket?: { remoteAddress?: string } };
}

/**
 * The sender's address: the platform's `ip` (which follows its trust-proxy setting) when the
 * module's `trustProxy` is on, otherwise the socket's peer.
 */
export function sourceIpOf(request: RequestSource, trustProxy: boolean): string | undefined {
  return trustProxy
    ? request.ip
    : (request.socket?.remoteAddress ?? request.raw?.socket?.remoteAddress);
}
