import { randomBytes } from 'node:crypto';
import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** The REST app credentials the fake accepts. */
export const FAKE_PAYPAL_CREDENTIALS = Object.freeze({
  clientId: 'AeFakePayPalClientId-5kq3Zr1xT0aLmN',
  clientSecret: 'EFakePayPalClientSecret-9wB2vY7uH4jKd',
});

/** One request as the fake saw it. */
export interface FakePayPalRequest {
  readonly method: string;
  readonly path: string;
  /** Whether it carried the credentials or a token the fake issued and has not revoked. */
  readonly authorized: boolean;
}

const EVENT_LIST_PATH = '/v1/notifications/webhooks-events';

type ResourceKind = 'captures' | 'refunds' | 'orders';

const RESOURCE_PATHS: Readonly<Record<string, ResourceKind>> = {
  '/v2/payments/captures/': 'captures',
  '/v2/payments/refunds/': 'refunds',
  '/v2/checkout/orders/': 'orders',
};

/**
 * PayPal's REST API as far as the status client uses it, on `listen(0)`: OAuth2 client
 * credentials (`POST /v1/oauth2/token`, HTTP Basic with the app's id and secret), webhook
 * events (`GET /v1/notifications/webhooks-events/{id}`), and captures, refunds and checkout
 * orders, each GET only with a Bearer token it issued. Unknown ids get PayPal's 404. The list of
 * webhook events (`GET /v1/notifications/webhooks-events`) serves the events set, newest first,
 * filtered by `start_time`/`end_time`, `page_size` at a time, with a `rel: "next"` link on
 * PayPal's host (`https://api-m.paypal.com`) while more follow.
 */
export class FakePayPalApi {
  /** Every request, in order. */
  readonly requests: FakePayPalRequest[] = [];
  private readonly tokens = new Set<string>();
  private readonly events = new Map<string, Record<string, unknown>>();
  private readonly resources = new Map<string, Record<string, unknown>>();
  /** `expires_in` of the tokens issued, in seconds. */
  expiresIn = 32_400;
  private readonly failures: { status: number; body: unknown }[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(): Promise<FakePayPalApi> {
    const holder: { fake?: FakePayPalApi } = {};
    const server = createServer((request, response) => holder.fake!.handle(request, response));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return (holder.fake = new FakePayPalApi(server, url));
  }

  /** The status client options that reach this fake. */
  clientOptions(): { clientId: string; clientSecret: string; apiUrl: string } {
    return { ...FAKE_PAYPAL_CREDENTIALS, apiUrl: this.url };
  }

  /** PayPal's own copy of a webhook event, served by id. */
  setEvent(event: { readonly id: string }): void {
    this.events.set(event.id, structuredClone(event) as Record<string, unknown>);
  }

  /** A capture, refund or checkout order, served by id. */
  setResource(
    kind: ResourceKind,
    resource: { readonly id: string; readonly [field: string]: unknown },
  ): void {
    this.resources.set(
      `${kind}/${resource.id}`,
      structuredClone(resource) as Record<string, unknown>,
    );
  }

  /** The next request after a token answers `status` with `body` (a failure, or a 200 of another shape). */
  failNext(status: number, body: unknown = { name: 'INTERNAL_SERVER_ERROR' }): void {
    this.failures.push({ status, body });
  }

  /** Makes every token issued so far invalid, as an expired or revoked one is. */
  revokeTokens(): void {
    this.tokens.clear();
  }

  /** Forgets requests, events, resources and tokens. */
  reset(): void {
    this.requests.length = 0;
    this.events.clear();
    this.resources.clear();
    this.tokens.clear();
    this.failures.length = 0;
    this.expiresIn = 32_400;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(request: IncomingMessage, response: ServerResponse): void {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const path = request.url ?? '';
      const method = request.method ?? '';
      const answer = (status: number, body: unknown, authorized: boolean) => {
        this.requests.push({ method, path, authorized });
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(body));
      };
      const auth = request.headers.authorization ?? '';
      if (method === 'POST' && path === '/v1/oauth2/token') {
        const { clientId, clientSecret } = FAKE_PAYPAL_CREDENTIALS;
        const basic = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
        const form =
          request.headers['content-type'] === 'application/x-www-form-urlencoded' &&
          Buffer.concat(chunks).toString() === 'grant_type=client_credentials';
        if (auth !== basic || !form) {
          return answer(
            401,
            { error: 'invalid_client', error_description: 'Client Authentication failed' },
            false,
          );
        }
        const token = `A21AA${randomBytes(24).toString('hex')}`;
        this.tokens.add(token);
        return answer(
          200,
          {
            scope: 'https://uri.paypal.com/services/payments',
            access_token: token,
            token_type: 'Bearer',
            app_id: 'APP-80W284485P519543T',
            expires_in: this.expiresIn,
            nonce: randomBytes(8).toString('hex'),
          },
          true,
        );
      }
      const authorized =
        auth.startsWith('Bearer ') && this.tokens.has(auth.slice('Bearer '.length));
      if (method !== 'GET' || !authorized) {
        return answer(
          401,
          { error: 'invalid_token', error_description: 'Token signature verification failed' },
          false,
        );
      }
      const failure = this.failures.shift();
      if (failure !== undefined) {
        return answer(failure.status, failure.body, true);
      }
      if (path.startsWith(`${EVENT_LIST_PATH}?`)) {
        return answer(200, this.eventList(new URL(path, this.url).searchParams), true);
      }
      const found = this.lookup(path);
      if (found === undefined) {
        return answer(
          404,
          {
            name: 'RESOURCE_NOT_FOUND',
            message: 'The specified resource does not exist.',
            details: [{ issue: 'INVALID_RESOURCE_ID' }],
          },
          true,
        );
      }
      return answer(200, found, true);
    });
  }

  /** A page of the events created in the asked window, newest first, as PayPal lists them. */
  private eventList(query: URLSearchParams): Record<string, unknown> {
    const since = Date.parse(query.get('start_time') ?? '');
    const until = Date.parse(query.get('end_time') ?? '');
    const pageSize = Number(query.get('page_size') ?? '10');
    const offset = Number(query.get('offset') ?? '0');
    const inWindow = [...this.events.values()]
      .filter((event) => {
        const created = Date.parse(String(event.create_time));
        return created >= since && created <= until;
      })
      .sort((a, b) => Date.parse(String(b.create_time)) - Date.parse(String(a.create_time)));
    const events = inWindow.slice(offset, offset + pageSize);
    const links: Record<string, string>[] = [];
    if (offset + pageSize < inWindow.length) {
      const next = new URLSearchParams(query);
      next.set('move_to', 'next');
      next.set('offset', String(offset + pageSize));
      links.push({
        href: `https://api-m.paypal.com${EVENT_LIST_PATH}?${next.toString()}`,
        rel: 'next',
        method: 'GET',
      });
    }
    return { events, count: events.length, links };
  }

  private lookup(path: string): Record<string, unknown> | undefined {
    const eventPrefix = '/v1/notifications/webhooks-events/';
    if (path.startsWith(eventPrefix)) {
      return this.events.get(decodeURIComponent(path.slice(eventPrefix.length)));
    }
    for (const [prefix, kind] of Object.entries(RESOURCE_PATHS)) {
      if (path.startsWith(prefix)) {
        return this.resources.get(`${kind}/${decodeURIComponent(path.slice(prefix.length))}`);
      }
    }
    return undefined;
  }
}
