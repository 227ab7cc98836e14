import { IncomingMessage } from 'node:http';
import {
  WebhookAcknowledgement,
  WebhookDeliveryMethod,
} from '../providers/webhook-provider.interface';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { flattenHeaders, readRawBody, sourceIpOf } from './raw-body';
import { httpExceptionOf } from './webhook-ingress.exceptions';
import { WebhookRefusal } from './webhook-refusal';
import { VerifiedDelivery, WebhookIngress } from './webhook-ingress.service';

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
   * Reads the raw bytes (for a GET delivery, the query string) and verifies them. A refusal
   * is thrown as the Nest exception of the ingress's refusal; a 405 also sets `Allow` on the response.
   */
  async verify(
    endpoint: string,
    method: WebhookDeliveryMethod,
    request: PlatformRequest,
    response: unknown,
  ): Promise<VerifiedDelivery> {
    const receivedAt = new Date();
    const head = {
      endpoint,
      method,
      headers: flattenHeaders(request.headers),
      sourceIp: sourceIpOf(request, this.options.trustProxy),
      receivedAt,
    };
    try {
      const refusal = this.ingress.refuseSource(head);
      if (refusal) {
        throw refusal;
      }
      const rawBody = method === 'GET' ? queryOf(request) : await this.readBody(endpoint, request);
      return await this.ingress.verify({ ...head, rawBody });
    } catch (error) {
      throw this.nestError(error, response);
    }
  }

  /** Commits a verified delivery and writes the provider's exact success answer. */
  async answer(verified: VerifiedDelivery, response: unknown): Promise<void> {
    const acknowledgement = await this.ingress
      .commit(verified)
      .catch((error: unknown) => Promise.reject(this.nestError(error, response)));
    this.write(response, acknowledgement);
  }

  /**
   * A refusal as the Nest exception the app's filters know; a 405 also sets `Allow` on the
   * response. Anything else is passed on as it is.
   */
  private nestError(error: unknown, response: unknown): unknown {
    if (!(error instanceof WebhookRefusal)) {
      return error;
    }
    if (error.allow !== undefined) {
      this.responder().setHeader(response, 'Allow', error.allow);
    }
    return httpExceptionOf(error);
  }

  private readBody(endpoint: string, request: PlatformRequest): Promise<Buffer> {
    const limit = this.options.endpoints.get(endpoint)?.maxBodyBytes;
    return readRawBody(request, limit, {
      keepsRawBody: this.keepsRawBody,
      platform: this.responder().getType(),
    });
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
