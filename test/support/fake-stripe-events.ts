import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** The secret key the fake takes, as `Authorization: Bearer …`. */
export const FAKE_STRIPE_KEY = 'sk_test_recovery0000000000000000000000';

/** A request the fake received. */
export interface EventsRequest {
  readonly path: string;
  readonly query: URLSearchParams;
  readonly status: number;
  /** The key it was sent with (`Authorization: Bearer …`). */
  readonly apiKey: string | undefined;
}

/** An answer the fake gives instead of a page: its status and Stripe's error body. */
interface Outage {
  readonly status: number;
  readonly code: string;
}

/**
 * A local stand-in for Stripe's event logs on 127.0.0.1 (port chosen by the system), built from
 * their documented answers:
 * - `GET /v1/events`: `created[gte]`/`created[lte]` in Unix seconds, `limit` (at most 100),
 *   `starting_after`; newest first; `{ object: 'list', data, has_more, url }`;
 * - `GET /v2/core/events`: `created[gte]`/`created[lte]` as ISO times, `limit`, `page`;
 *   newest first; `{ data, next_page_url, previous_page_url }`.
 * Errors as Stripe gives them: `{ error: { type, code, message } }` with 401 for another key,
 * and 429 or 5xx for the requests {@link failAt} names. Each key is an account of its own (a
 * platform's merchants): {@link FAKE_STRIPE_KEY}'s log takes {@link add}, and each key given to
 * {@link addTo} has its own, which only that key reads.
 * @example
 * const api = await FakeStripeEvents.start();
 * api.add(JSON.parse(event.body));
 * stripeEndpoint({ name: 'stripe', secret, api: api.api() });
 */
export class FakeStripeEvents {
  /** Snapshot events (v1) by the key of their account, newest first once sorted. */
  private readonly snapshots = new Map<string, Record<string, unknown>[]>([[FAKE_STRIPE_KEY, []]]);
  /** Thin events (v2), as the v2 list returns them. */
  private readonly thin: Record<string, unknown>[] = [];
  /** Outages by the number of the request they answer (1 for the first). */
  private readonly outagesAt = new Map<number, Outage>();
  private received = 0;
  readonly requests: EventsRequest[] = [];
  /** Milliseconds every answer waits. */
  delayMs = 0;

  private constructor(private readonly server: Server) {}

  static async start(): Promise<FakeStripeEvents> {
    const server = createServer();
    const api = new FakeStripeEvents(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void api.answer(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  /** The `api` option of a Stripe endpoint that reads this fake. */
  api(apiKey = FAKE_STRIPE_KEY): { apiKey: string; apiUrl: string } {
    const { port } = this.server.address() as AddressInfo;
    return { apiKey, apiUrl: `http://127.0.0.1:${port}` };
  }

  /** Adds snapshot events (as their deliveries carry them) to the v1 log. */
  add(...events: Record<string, unknown>[]): void {
    this.addTo(FAKE_STRIPE_KEY, ...events);
  }

  /** Adds snapshot events to the v1 log of the account of `apiKey`, which it then takes. */
  addTo(apiKey: string, ...events: Record<string, unknown>[]): void {
    const log = this.snapshots.get(apiKey) ?? [];
    log.push(...events);
    this.snapshots.set(apiKey, log);
  }

  /** Adds thin events (`object: 'v2.core.event'`, `created` an ISO time) to the v2 log. */
  addThin(...events: Record<string, unknown>[]): void {
    this.thin.push(...events);
  }

  /** The requests numbered as keys (1 for the first) are answered with the status given. */
  failAt(statuses: Readonly<Record<number, number>>): void {
    for (const [at, status] of Object.entries(statuses)) {
      this.outagesAt.set(Number(at), { status, code: status === 429 ? 'rate_limit' : 'api_error' });
    }
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = new URL(request.url ?? '/', 'http://fake');
    const send = (status: number, body: unknown) => {
      this.requests.push({ path: url.pathname, query: url.searchParams, status, apiKey });
      response.writeHead(status, { 'content-type': 'application/json' });
      response.end(JSON.stringify(body));
    };
    if (this.delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    }
    const apiKey = request.headers.authorization?.replace(/^Bearer /, '');
    const snapshots = apiKey === undefined ? undefined : this.snapshots.get(apiKey);
    if (snapshots === undefined) {
      return send(401, {
        error: { type: 'invalid_request_error', message: 'Invalid API Key provided' },
      });
    }
    this.received += 1;
    const outage = this.outagesAt.get(this.received);
    if (outage) {
      return send(outage.status, { error: { type: 'api_error', code: outage.code } });
    }
    if (request.method === 'GET' && url.pathname === '/v1/events') {
      return send(200, this.v1Page(snapshots, url.searchParams));
    }
    if (request.method === 'GET' && url.pathname === '/v2/core/events') {
      return send(200, this.v2Page(url.searchParams));
    }
    send(404, { error: { type: 'invalid_request_error', message: 'Unrecognized request URL' } });
  }

  private v1Page(snapshots: readonly Record<string, unknown>[], query: URLSearchParams) {
    const gte = Number(query.get('created[gte]') ?? 0);
    const lte = Number(query.get('created[lte]') ?? Number.MAX_SAFE_INTEGER);
    const limit = Math.min(Number(query.get('limit') ?? 10), 100);
    const inWindow = newestFirst(snapshots, (event) => event.created as number).filter(
      (event) => (event.created as number) >= gte && (event.created as number) <= lte,
    );
    const after = query.get('starting_after');
    const start = after === null ? 0 : inWindow.findIndex((event) => event.id === after) + 1;
    const data = inWindow.slice(start, start + limit);
    return { object: 'list', url: '/v1/events', data, has_more: start + limit < inWindow.length };
  }

  private v2Page(query: URLSearchParams) {
    const time = (event: Record<string, unknown>) => Date.parse(event.created as string);
    const gte = Date.parse(query.get('created[gte]') ?? '1970-01-01T00:00:00Z');
    const lte = Date.parse(query.get('created[lte]') ?? '9999-12-31T00:00:00Z');
    const limit = Math.min(Number(query.get('limit') ?? 20), 100);
    const inWindow = newestFirst(this.thin, time).filter(
      (event) => time(event) >= gte && time(event) <= lte,
    );
    const start = Number(query.get('page') ?? 0);
    const data = inWindow.slice(start, start + limit);
    const next = start + limit < inWindow.length;
    const kept = new URLSearchParams(query);
    kept.set('page', String(start + limit));
    return {
      data,
      next_page_url: next ? `/v2/core/events?${kept.toString()}` : null,
      previous_page_url: null,
    };
  }
}

function newestFirst(
  events: readonly Record<string, unknown>[],
  time: (event: Record<string, unknown>) => number,
): Record<string, unknown>[] {
  return [...events].sort((a, b) => time(b) - time(a) || String(b.id).localeCompare(String(a.id)));
}
