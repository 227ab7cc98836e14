import { SafeLogger } from '../telemetry/safe-logger';
import type { BodyBounds } from './body-stream';
import { acceptedAnswer, IngressAnswer, refusedAnswer } from './ingress-answer';
import { flattenHeaders } from './raw-body';
import type { VerifiedDelivery, WebhookDeliveryHead } from './webhook-delivery';
import type { WebhookIngress } from './webhook-ingress';
import { WebhookRefusal } from './webhook-refusal';

/**
 * One request as an adapter hands it to the flow: what its platform tells of the request, and
 * how an answer goes back. The Express router, the Nest controller and the `@PaymentWebhook`
 * guard and interceptor each supply one; everything else about a delivery is the flow's.
 */
export interface DeliveryIo {
  /** The endpoint the route names. */
  readonly endpoint: string;
  /** The tenant the route names (`…/{endpoint}/{tenant}`), when it names one. */
  readonly tenant?: string;
  /** The method the route serves (a GET route also serves HEAD on Express). */
  readonly method: string;
  /** The request's headers as the platform has them. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The sender's address: the platform's `ip` when `trustProxy` is on, else the socket's peer. */
  sourceIp(trustProxy: boolean): string | undefined;
  /** The request URL as sent, query included: a GET delivery's notification is its query. */
  url(): string;
  /**
   * The exact bytes of the body, within `bounds`.
   * @throws WebhookRefusal 413 over the limit, 408 past the time, 500 naming the fix when a
   * parser consumed the body and kept no bytes
   */
  readBody(bounds: BodyBounds): Promise<Buffer>;
  /** Whether the body is still arriving: a refusal then closes the connection. */
  bodyStillComing(): boolean;
  /**
   * Sends the answer. For a refusal, `refusal` is given as well, so an adapter whose framework
   * answers errors itself (Nest's exception filters) can throw it as its own error instead.
   */
  write(answer: IngressAnswer, refusal?: WebhookRefusal): void | Promise<void>;
}

/** What of the engine's ingress the flow calls. */
export type DeliveryIngress = Pick<
  WebhookIngress,
  'admit' | 'bodyRefused' | 'verify' | 'commit' | 'bodyBounds' | 'trustProxy' | 'takesTenants'
>;

const logger = new SafeLogger('WebhookIngress');

/** What is known of the request before its body is read. */
export function deliveryHead(
  io: Pick<DeliveryIo, 'endpoint' | 'tenant' | 'method' | 'headers' | 'sourceIp'>,
  trustProxy: boolean,
): WebhookDeliveryHead {
  return {
    endpoint: io.endpoint,
    ...(io.tenant === undefined ? {} : { tenant: io.tenant }),
    method: io.method,
    headers: flattenHeaders(io.headers),
    sourceIp: io.sourceIp(trustProxy),
    receivedAt: new Date(),
  };
}

/**
 * The first half of a delivery: what the URL, method and headers tell (404, 405, 403, a declared
 * size over the limit; a tenant the endpoint does not know, or cannot resolve now: 404, 503)
 * refused before a byte of the body is read, then the raw bytes read within
 * the endpoint's bounds (a GET delivery's query string) and verified. Resolves to the delivery
 * to commit, or to undefined once a refusal is written.
 */
export async function verifyDelivery(
  ingress: DeliveryIngress,
  io: DeliveryIo,
): Promise<VerifiedDelivery | undefined> {
  const head = deliveryHead(io, ingress.trustProxy);
  const admitted = await ingress.admit(head);
  if (admitted instanceof WebhookRefusal) {
    await refuse(io, admitted);
    return undefined;
  }
  let rawBody: Buffer;
  try {
    rawBody =
      io.method === 'GET'
        ? queryOf(io.url())
        : await io.readBody(ingress.bodyBounds(head.endpoint));
  } catch (error) {
    if (!(error instanceof WebhookRefusal)) {
      throw error;
    }
    if (error.kind === 'raw_body_unavailable') {
      logger.error(error.message);
    }
    await refuse(io, ingress.bodyRefused(head, error));
    return undefined;
  }
  return settled(io, () => ingress.verify({ ...head, rawBody }, admitted));
}

/** The second half: commits a verified delivery and writes the provider's exact answer (503 when the store fails). */
export async function answerDelivery(
  ingress: DeliveryIngress,
  verified: VerifiedDelivery,
  io: DeliveryIo,
): Promise<void> {
  const acknowledgement = await settled(io, () => ingress.commit(verified));
  if (acknowledgement !== undefined) {
    await io.write(acceptedAnswer(acknowledgement));
  }
}

/** A whole delivery, from its head to the answer: what an adapter's route calls. */
export async function handleDelivery(ingress: DeliveryIngress, io: DeliveryIo): Promise<void> {
  const verified = await verifyDelivery(ingress, io);
  if (verified !== undefined) {
    await answerDelivery(ingress, verified, io);
  }
}

/** What `step` resolves to, or undefined once the refusal it threw is written. */
async function settled<T>(io: DeliveryIo, step: () => Promise<T>): Promise<T | undefined> {
  try {
    return await step();
  } catch (error) {
    if (!(error instanceof WebhookRefusal)) {
      throw error;
    }
    await refuse(io, error);
    return undefined;
  }
}

/** Writes a refusal; closes the connection when the body is still coming. */
function refuse(io: DeliveryIo, refusal: WebhookRefusal): void | Promise<void> {
  const answer = refusedAnswer(refusal);
  // NOTE: closing keeps the unread body from being read or waited for before the connection
  // is reused: Node closes it once the answer is written.
  const closing = io.bodyStillComing()
    ? { ...answer, headers: { ...answer.headers, connection: 'close' } }
    : answer;
  return io.write(closing, refusal);
}

/** A GET delivery's notification (Sber callbacks): its query string, as the provider signed it. */
function queryOf(url: string): Buffer {
  return Buffer.from(url.includes('?') ? url.slice(url.indexOf('?') + 1) : '', 'latin1');
}
