import { AbstractHttpAdapter, HttpAdapterHost, ModuleRef } from '@nestjs/core';
import { IncomingMessage, ServerResponse } from 'node:http';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { bodyStillComing, readingHere } from '../ingress/body-stream';
import { deliveryHead } from '../ingress/delivery-flow';
import { RequestSource, sourceIpOf } from '../ingress/raw-body';
import type { WebhookDeliveryHead } from '../ingress/webhook-delivery';
import { WebhookIngress } from '../ingress/webhook-ingress';
import { WebhookRefusal } from '../ingress/webhook-refusal';
import type { PlatformRoute } from './platform-deliveries';

/** The parts of an Express or Fastify request the gate reads. */
interface GateRequest extends RequestSource {
  headers: IncomingMessage['headers'];
  raw?: IncomingMessage;
}

/** An Express response or a Fastify reply, as far as the gate reads it. */
interface GateResponse {
  raw?: ServerResponse;
}

/** An Express app, as far as the gate uses it. */
interface ExpressInstance {
  use(
    middleware: (request: GateRequest, response: GateResponse, next: () => void) => void,
  ): unknown;
}

/** A Fastify instance, as far as the gate uses it. */
interface FastifyInstance {
  addHook(
    name: 'onRequest',
    hook: (request: GateRequest, reply: GateResponse) => Promise<unknown>,
  ): unknown;
}

/** What of Nest's container tells the app's global prefix and versioning. */
interface ContainerWithConfig {
  readonly container?: {
    readonly applicationConfig?: {
      getGlobalPrefix(): string;
      getVersioning(): unknown;
    };
  };
}

/**
 * The segments the app puts in front of every route (its global prefix), or undefined when
 * they cannot be told: versioning on, or a container that does not show its configuration.
 */
export function appRoutePrefix(moduleRef: ModuleRef): () => readonly string[] | undefined {
  // NOTE: as for `rawBody` (raw-body-option.ts), Nest keeps this on its container with no
  // public getter; it is read at each request, since `setGlobalPrefix()` comes after the module.
  return () => {
    const config = (moduleRef as unknown as ContainerWithConfig).container?.applicationConfig;
    if (!config || config.getVersioning() !== undefined) {
      return undefined;
    }
    return segmentsOf(config.getGlobalPrefix());
  };
}

function segmentsOf(path: string): string[] {
  return path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.toLowerCase());
}

/** The methods the module's controller serves: what the gate answers for. */
const ROUTE_METHODS: ReadonlySet<string> = new Set(['POST', 'GET', 'PUT', 'PATCH', 'DELETE']);

/**
 * Answers what the URL, method and headers of a request to the module's route already tell,
 * before the platform reads a byte of the body: 404 for an unknown endpoint, 405 (with `Allow`)
 * for a method it does not take, 403 for a sender outside its `allowedIps`, 413 for a declared
 * `Content-Length` over its `maxBodyBytes`; each closes the connection, so the body is neither
 * parsed, buffered nor waited for. A body the platform's parser is still reading past the
 * endpoint's `bodyTimeoutMs` is answered 408 the same way. The ingress checks all of it again
 * for anything that gets past here.
 *
 * NOTE: Nest registers the platform's body parsers when the app initializes, ahead of every
 * middleware, guard and route of its own, so the check cannot be one of those. It goes on the
 * platform as soon as the HTTP adapter exists (when the app is created, before it initializes):
 * on Express a middleware, which then runs before the parsers; on Fastify an `onRequest` hook,
 * which runs before any content parser. Both answer through the adapter, so the answer is the
 * same on either platform.
 */
export class WebhookHeadGate {
  private readonly path: readonly string[];

  /**
   * @param path the module's route path (the `path` extra); requests to `…/{path}/{endpoint}`
   * for a configured endpoint are checked, under whatever global prefix, module path or version
   * the app adds in front. A name that is no endpoint is answered 404 only at the module's own
   * route (`/{global prefix}/{path}/{name}`), so routes of the app under another prefix that
   * end the same way (an admin at `ops/webhooks/events`) reach the app.
   * @param routePrefix the app's global prefix, when it can be told.
   */
  constructor(
    private readonly host: HttpAdapterHost,
    private readonly ingress: WebhookIngress,
    private readonly options: ResolvedWebhooksOptions,
    path: string,
    private readonly routePrefix: () => readonly string[] | undefined = () => [],
  ) {
    this.path = segmentsOf(path);
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
        if (!this.check(adapter, request, response)) {
          next();
        }
      });
    } else if (adapter && type === 'fastify') {
      adapter.getInstance<FastifyInstance>().addHook('onRequest', async (request, reply) => {
        return this.check(adapter, request, reply) ? reply : undefined;
      });
    }
  }

  /** Answers a request refused from its head and returns true; otherwise bounds its body's time. */
  private check(adapter: AbstractHttpAdapter, request: GateRequest, response: GateResponse) {
    const head = this.headOf(adapter, request);
    if (head === undefined) {
      return false;
    }
    const refusal = this.ingress.refuseHead(head);
    if (refusal) {
      this.answer(adapter, response, refusal);
      return true;
    }
    this.boundBodyTime(adapter, head, request.raw ?? (request as IncomingMessage), response);
    return false;
  }

  /**
   * Answers 408 when the body has not all arrived within the endpoint's `bodyTimeoutMs`, for the
   * bodies the platform's parser reads; the module reads the others within the same bound.
   */
  private boundBodyTime(
    adapter: AbstractHttpAdapter,
    head: WebhookDeliveryHead,
    raw: IncomingMessage,
    response: GateResponse,
  ): void {
    const { timeoutMs } = this.ingress.bodyBounds(head.endpoint);
    const rawResponse = response.raw ?? (response as ServerResponse);
    if (!bodyStillComing(raw) || typeof rawResponse.once !== 'function') {
      return;
    }
    const timer = setTimeout(() => {
      if (bodyStillComing(raw) && !readingHere(raw) && !adapter.isHeadersSent(response)) {
        const refusal = WebhookRefusal.bodyTimeout(timeoutMs);
        this.answer(adapter, response, this.ingress.bodyRefused(head, refusal));
      }
    }, timeoutMs);
    rawResponse.once('close', () => clearTimeout(timer));
  }

  /** The head of a request to `…/{path}/{endpoint}` with a method the route serves. */
  private headOf(
    adapter: AbstractHttpAdapter,
    request: GateRequest,
  ): WebhookDeliveryHead | undefined {
    const method = String(adapter.getRequestMethod(request)).toUpperCase();
    if (!ROUTE_METHODS.has(method)) {
      return undefined;
    }
    const route = this.routeIn(String(adapter.getRequestUrl(request) ?? ''));
    if (route === undefined) {
      return undefined;
    }
    const sourceIp = (trustProxy: boolean) => sourceIpOf(request, trustProxy);
    return deliveryHead(
      { ...route, method, headers: request.headers, sourceIp },
      this.ingress.trustProxy,
    );
  }

  private answer(adapter: AbstractHttpAdapter, response: unknown, refusal: WebhookRefusal): void {
    adapter.setHeader(response, 'Cache-Control', 'no-store');
    if (refusal.allow !== undefined) {
      adapter.setHeader(response, 'Allow', refusal.allow);
    }
    // NOTE: closing keeps the unread body from being read or waited for before the connection
    // is reused: Node closes it once the answer is written.
    adapter.setHeader(response, 'Connection', 'close');
    adapter.reply(response, refusal.body, refusal.status);
  }

  /**
   * The endpoint of a `…/{path}/{endpoint}` URL (a trailing `/` allowed), or the endpoint and
   * tenant of a `…/{path}/{endpoint}/{tenant}` URL of a tenant endpoint.
   */
  private routeIn(url: string): PlatformRoute | undefined {
    const segments = url.split('?')[0].split('/');
    if (segments.at(-1) === '') {
      segments.pop();
    }
    try {
      const endpoint = this.endpointAt(segments);
      if (endpoint !== undefined) {
        return { endpoint };
      }
      const tenant = segments.pop();
      const tenantEndpoint = this.endpointAt(segments);
      return tenant !== undefined &&
        tenantEndpoint !== undefined &&
        this.ingress.takesTenants(tenantEndpoint)
        ? { endpoint: tenantEndpoint, tenant: decodeURIComponent(tenant) }
        : undefined;
    } catch {
      return undefined;
    }
  }

  /**
   * The endpoint name the last of `segments` is: a configured endpoint's under any prefix, any
   * other name only at the module's own route.
   * @throws URIError for a segment that is not URL-encoded text
   */
  private endpointAt(segments: readonly string[]): string | undefined {
    const raw = segments.at(-1);
    const before = segments.slice(0, -1).filter((segment) => segment !== '');
    if (raw === undefined || raw === '' || before.length < this.path.length) {
      return undefined;
    }
    const name = decodeURIComponent(raw);
    const tail = before.slice(before.length - this.path.length).map(decodeURIComponent);
    // NOTE: case-insensitive, as Express routes are by default.
    if (!tail.every((segment, i) => segment.toLowerCase() === this.path[i])) {
      return undefined;
    }
    if (this.options.endpoints.has(name)) {
      return name;
    }
    const prefix = this.routePrefix();
    const front = before.slice(0, before.length - this.path.length).map(decodeURIComponent);
    return prefix !== undefined &&
      this.path.length > 0 &&
      front.length === prefix.length &&
      front.every((segment, i) => segment.toLowerCase() === prefix[i])
      ? name
      : undefined;
  }
}
