import { AbstractHttpAdapter, HttpAdapterHost } from '@nestjs/core';
import { IncomingMessage } from 'node:http';
import { ResolvedWebhooksOptions } from '../webhooks-options.resolver';
import { flattenHeaders, RequestSource, sourceIpOf } from './raw-body';
import { WebhookIngress } from './webhook-ingress.service';
import { WebhookRefusal } from './webhook-refusal';

/** The parts of an Express or Fastify request the gate reads. */
interface GateRequest extends RequestSource {
  headers: IncomingMessage['headers'];
}

/** An Express app, as far as the gate uses it. */
interface ExpressInstance {
  use(middleware: (request: GateRequest, response: unknown, next: () => void) => void): unknown;
}

/** A Fastify instance, as far as the gate uses it. */
interface FastifyInstance {
  addHook(
    name: 'onRequest',
    hook: (request: GateRequest, reply: unknown) => Promise<unknown>,
  ): unknown;
}

/**
 * Answers 403 to a sender outside an endpoint's `allowedIps` before the platform reads the body:
 * nothing of a refused delivery is parsed (no 413 for its size, no 400 for broken JSON), waited
 * for or drained. The ingress checks the allowlist again for anything that gets past here.
 *
 * NOTE: Nest registers the platform's body parsers when the app initializes, ahead of every
 * middleware, guard and route of its own, so the check cannot be one of those. It goes on the
 * platform as soon as the HTTP adapter exists (when the app is created, before it initializes):
 * on Express a middleware, which then runs before the parsers; on Fastify an `onRequest` hook,
 * which runs before any content parser. Both answer through the adapter, so the answer is the
 * same on either platform.
 */
export class WebhookSourceGate {
  private readonly path: readonly string[];

  /**
   * @param path the module's route path (the `path` extra); requests to `…/{path}/{endpoint}`
   * are checked, under whatever global prefix, module path or version the app adds in front.
   */
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly ingress: WebhookIngress,
    private readonly options: ResolvedWebhooksOptions,
    path: string,
  ) {
    this.path = path
      .split('/')
      .filter((segment) => segment !== '')
      .map((segment) => segment.toLowerCase());
    if (![...options.endpoints.values()].some((endpoint) => endpoint.allowedSources)) {
      return;
    }
    if (host.httpAdapter) {
      this.install(host.httpAdapter);
    } else {
      // NOTE: a testing module creates its providers before its HTTP adapter exists.
      const later = host as Partial<Pick<HttpAdapterHost, 'init$'>>;
      later.init$?.subscribe(() => this.install(this.host.httpAdapter));
    }
  }

  private install(adapter: AbstractHttpAdapter | undefined): void {
    const type = adapter?.getType();
    if (adapter && type === 'express') {
      adapter.getInstance<ExpressInstance>().use((request, response, next) => {
        const refusal = this.refusal(adapter, request);
        if (refusal) {
          this.answer(adapter, response, refusal);
        } else {
          next();
        }
      });
    } else if (adapter && type === 'fastify') {
      adapter.getInstance<FastifyInstance>().addHook('onRequest', async (request, reply) => {
        const refusal = this.refusal(adapter, request);
        if (refusal) {
          this.answer(adapter, reply, refusal);
          return reply;
        }
        return undefined;
      });
    }
  }

  /** The 403 for a request to an endpoint that does not take deliveries from its sender. */
  private refusal(adapter: AbstractHttpAdapter, request: GateRequest): WebhookRefusal | undefined {
    const method = String(adapter.getRequestMethod(request)).toUpperCase();
    if (method !== 'POST' && method !== 'GET') {
      return undefined;
    }
    const endpoint = this.endpointIn(String(adapter.getRequestUrl(request) ?? ''));
    if (endpoint === undefined || !this.options.endpoints.get(endpoint)?.allowedSources) {
      return undefined;
    }
    return this.ingress.refuseSource({
      endpoint,
      method,
      headers: flattenHeaders(request.headers),
      sourceIp: sourceIpOf(request, this.options.trustProxy),
      receivedAt: new Date(),
    });
  }

  private answer(adapter: AbstractHttpAdapter, response: unknown, refusal: WebhookRefusal): void {
    adapter.setHeader(response, 'Cache-Control', 'no-store');
    // NOTE: closing keeps the unread body from being drained before the connection is reused.
    adapter.setHeader(response, 'Connection', 'close');
    adapter.reply(response, refusal.body, refusal.status);
  }

  /** The endpoint name of a `…/{path}/{endpoint}` URL (a trailing `/` allowed), if it is one. */
  private endpointIn(url: string): string | undefined {
    const segments = url.split('?')[0].split('/');
    if (segments.at(-1) === '') {
      segments.pop();
    }
    const name = segments.pop();
    if (name === undefined || segments.length < this.path.length) {
      return undefined;
    }
    try {
      const tail = segments.slice(segments.length - this.path.length).map(decodeURIComponent);
      // NOTE: case-insensitive, as Express routes are by default.
      return tail.every((segment, i) => segment.toLowerCase() === this.path[i])
        ? decodeURIComponent(name)
        : undefined;
    } catch {
      return undefined;
    }
  }
}
