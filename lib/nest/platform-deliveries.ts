import { IncomingMessage } from 'node:http';
import { bodyStillComing } from '../ingress/body-stream';
import {
  DeliveryIo,
  answerDelivery,
  handleDelivery,
  verifyDelivery,
} from '../ingress/delivery-flow';
import { IngressAnswer } from '../ingress/ingress-answer';
import { readRawBody, sourceIpOf } from '../ingress/raw-body';
import type { VerifiedDelivery } from '../ingress/webhook-delivery';
import { WebhookIngress } from '../ingress/webhook-ingress';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import { httpExceptionOf } from './webhook-ingress.exceptions';

/** The parts of an Express or Fastify request a delivery is read from. */
export interface PlatformRequest {
  rawBody?: Buffer;
  headers: IncomingMessage['headers'];
  ip?: string;
  url?: string;
  originalUrl?: string;
  socket?: { remoteAddress?: string };
  raw?: IncomingMessage;
  /** The route's parameters: `tenant` for a tenant endpoint's route. */
  params?: Readonly<Record<string, string | undefined>>;
}

/** The endpoint a route delivers to, and the tenant for a tenant endpoint. */
export type PlatformRoute = Pick<DeliveryIo, 'endpoint' | 'tenant'>;

/** What of the app's HTTP adapter (Nest's `AbstractHttpAdapter`) an answer is written with. */
export interface PlatformResponder {
  getType(): string;
  setHeader(response: unknown, name: string, value: string): unknown;
  reply(response: unknown, body: unknown, statusCode?: number): unknown;
}

/** The headers of a refusal that the Nest exception, written by the app's filters, cannot carry. */
const REFUSAL_HEADERS = ['allow', 'retry-after', 'connection'] as const;

/**
 * Deliveries as Express and Fastify carry them under Nest, through the one request flow: the
 * module's own route runs it whole, the `@PaymentWebhook()` guard its first half and the
 * interceptor its second, so both answer alike. A refusal is thrown as the Nest exception of
 * its kind, here and nowhere else, so the app's exception filters see the classes they know.
 */
export class PlatformDeliveries {
  /**
   * @param responder the app's HTTP adapter; a function, as a testing module creates its
   * providers before the adapter exists.
   * @param keepsRawBody the app's `rawBody` option, undefined when it cannot be read.
   */
  constructor(
    private readonly ingress: WebhookIngress,
    private readonly responder: () => PlatformResponder,
    private readonly keepsRawBody: boolean | undefined,
  ) {}

  /** Receives a delivery to the module's route: verified, committed and answered. */
  receive(route: PlatformRoute, method: string, request: PlatformRequest, response: unknown) {
    return handleDelivery(this.ingress, this.io(route, method, request, response));
  }

  /** Verifies a delivery to an app's `@PaymentWebhook()` route; a refusal is thrown. */
  async verify(
    route: PlatformRoute,
    method: string,
    request: PlatformRequest,
    response: unknown,
  ): Promise<VerifiedDelivery> {
    const verified = await verifyDelivery(this.ingress, this.io(route, method, request, response));
    // NOTE: this adapter's `write` throws every refusal, so the flow resolves verified deliveries only.
    return verified!;
  }

  /** Commits what `verify()` passed and writes the provider's exact success answer. */
  answer(verified: VerifiedDelivery, request: PlatformRequest, response: unknown): Promise<void> {
    const { endpoint, tenant, method = 'POST' } = verified.delivery;
    const io = this.io({ endpoint, tenant }, method, request, response);
    return answerDelivery(this.ingress, verified, io);
  }

  private io(
    route: PlatformRoute,
    method: string,
    request: PlatformRequest,
    response: unknown,
  ): DeliveryIo {
    const stream = request.raw ?? (request as IncomingMessage);
    return {
      ...route,
      method,
      headers: request.headers,
      sourceIp: (trustProxy) => sourceIpOf(request, trustProxy),
      url: () => request.originalUrl ?? request.raw?.url ?? request.url ?? '',
      readBody: (bounds) =>
        readRawBody(request, bounds, {
          keepsRawBody: this.keepsRawBody,
          platform: this.responder().getType(),
        }),
      bodyStillComing: () => bodyStillComing(stream),
      write: (answer, refusal) => this.write(response, answer, refusal),
    };
  }

  private write(response: unknown, answer: IngressAnswer, refusal?: WebhookRefusal): void {
    const responder = this.responder();
    if (refusal) {
      for (const name of REFUSAL_HEADERS) {
        const value = answer.headers[name];
        if (value !== undefined) {
          responder.setHeader(response, name, value);
        }
      }
      throw httpExceptionOf(refusal);
    }
    for (const [name, value] of Object.entries(answer.headers)) {
      responder.setHeader(response, name, value);
    }
    responder.reply(response, answer.body, answer.status);
  }
}
