import { IncomingMessage } from 'node:http';
import { WebhookAcknowledgement } from '../providers/webhook-provider.interface';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { bodyStillComing } from '../ingress/body-stream';
import { flattenHeaders, readRawBody, sourceIpOf } from '../ingress/raw-body';
import { httpExceptionOf } from './webhook-ingress.exceptions';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import type { VerifiedDelivery, WebhookDeliveryHead } from '../ingress/webhook-delivery';
import { WebhookIngress } from '../ingress/webhook-ingress';

/** The parts of an Express or Fastify request a delivery is read from. */
export interface PlatformRequest {
  rawBody?: Buffer;
  headers: IncomingMessage['headers'];
  ip?: string;
  url?: string;
  originalUrl?: string;
  socket?: { remoteAddress?: string };
  raw?: IncomingMessage;
}

/** What of the app's HTTP adapter (Nest's `AbstractHttpAdapter`) an answer is written with. */
export interface PlatformResponder {
  getType(): string;
  setHeader(response: unknown, name: string, value: string): unknown;
  reply(response: unknown, body: unknown, statusCode?: number): unknown;
}

/**
 * Deliveries as Express and Fastify carry them: read off the request, verified, committed and
 * answered on the response. One path for the module's own route and for `@PaymentWebhook()`
 * routes of the app, so both answer alike.
 */
export class PlatformDeliveries {
  /**
   * @param responder the app's HTTP adapter; a function, as a testing module creates its
   * providers before the adapter exists.
   * @param keepsRawBody the app's `rawBody` option, undefined when it cannot be read.
   */
  constructor(
    private readonly ingress: WebhookIngress,
    private readonly options: ResolvedWebhooksOptions,
    private readonly responder: () => PlatformResponder,
    private readonly keepsRawBody: boolean | undefined,
  ) {}

  /**
   * Refuses what the URL, method and headers already tell (unknown endpoint, method, source,
   * declared size) before a byte of the body is read, then reads the raw bytes (for a GET
   * delivery, the query string) within the endpoint's size and time bounds and verifies them.
   * A refusal is thrown as the Nest exception of the ingress's refusal; a 405 also sets `Allow`
   * on the response, and an answer sent before the whole body arrived closes the connection.
   */
  async verify(
    endpoint: string,
    method: string,
    request: PlatformRequest,
    response: unknown,
  ): Promise<VerifiedDelivery> {
    const head: WebhookDeliveryHead = {
      endpoint,
      method,
      headers: flattenHeaders(request.headers),
      sourceIp: sourceIpOf(request, this.options.trustProxy),
      receivedAt: new Date(),
    };
    try {
      const refusal = this.ingress.refuseHead(head);
      if (refusal) {
        throw refusal;
      }
      const rawBody = method === 'GET' ? queryOf(request) : await this.readBody(head, request);
      return await this.ingress.verify({ ...head, rawBody });
    } catch (error) {
      throw this.nestError(error, request, response);
    }
  }

  /** Commits a verified delivery and writes the provider's exact success answer. */
  async answer(verified: VerifiedDelivery, response: unknown): Promise<void> {
    const acknowledgement = await this.ingress
      .commit(verified)
      .catch((error: unknown) => Promise.reject(this.nestError(error, undefined, response)));
    this.write(response, acknowledgement);
  }

  /**
   * A refusal as the Nest exception the app's filters know; a 405 also sets `Allow` on the
   * response, and a refusal of a request whose body is still coming closes the connection, so
   * the rest is neither read nor waited for. Anything else is passed on as it is.
   */
  private nestError(
    error: unknown,
    request: PlatformRequest | undefined,
    response: unknown,
  ): unknown {
    if (!(error instanceof WebhookRefusal)) {
      return error;
    }
    if (error.allow !== undefined) {
      this.responder().setHeader(response, 'Allow', error.allow);
    }
    if (request && bodyStillComing(request.raw ?? (request as IncomingMessage))) {
      this.responder().setHeader(response, 'Connection', 'close');
    }
    return httpExceptionOf(error);
  }

  /** The body within the endpoint's bounds; a refusal met on the way is journaled. */
  private async readBody(head: WebhookDeliveryHead, request: PlatformRequest): Promise<Buffer> {
    const { maxBodyBytes, bodyTimeoutMs } = this.options.endpoints.get(head.endpoint)!;
    try {
      return await readRawBody(
        request,
        { limit: maxBodyBytes, timeoutMs: bodyTimeoutMs },
        { keepsRawBody: this.keepsRawBody, platform: this.responder().getType() },
      );
    } catch (error) {
      throw error instanceof WebhookRefusal ? this.ingress.bodyRefused(head, error) : error;
    }
  }

  private write(response: unknown, acknowledgement: WebhookAcknowledgement): void {
    const responder = this.responder();
    responder.setHeader(response, 'Content-Type', acknowledgement.contentType);
    responder.setHeader(response, 'Cache-Control', 'no-store');
    responder.reply(response, acknowledgement.body, acknowledgement.status);
  }
}

/** A GET delivery's notification (Sber callbacks): its query string, as the provider signed it. */
function queryOf(request: PlatformRequest): Buffer {
  const url = request.originalUrl ?? request.raw?.url ?? request.url ?? '';
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1) : '';
  return Buffer.from(query, 'latin1');
}
