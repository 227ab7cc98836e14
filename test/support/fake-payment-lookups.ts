import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** The APIs the fake serves payment lookups of. */
export type LookupApiKind = 'mollie' | 'mercado-pago';

/** The credentials each API takes, as `Authorization: Bearer …`. */
export const LOOKUP_API_CREDENTIALS: Readonly<Record<LookupApiKind, string>> = Object.freeze({
  mollie: 'test_dHar4XY7LxsDOtmnkVtjNVWXLSlXsM',
  'mercado-pago': 'APP_USR-5183442017561235-030215-6e3f7b1c2d9a4e8f0b5c1d7a3e9f2b4c-1197520450',
});

const PATHS: Readonly<Record<LookupApiKind, RegExp>> = {
  mollie: /^\/mollie\/v2\/payments\/([^/?]+)/,
  'mercado-pago': /^\/mercado-pago\/v1\/payments\/([^/?]+)$/,
};

/** A lookup the fake received. */
export interface LookupRequest {
  readonly kind: LookupApiKind | undefined;
  /** The payment id asked for. */
  readonly id: string | undefined;
  readonly receivedAt: number;
}

/**
 * A local stand-in for `GET /v2/payments/{id}` of the Mollie API and `GET /v1/payments/{id}` of
 * the Mercado Pago API, on 127.0.0.1 (port chosen by the system): answers from in-memory
 * payments, counts every request, and can answer late or be down. A late answer carries the
 * payment as it was when the request arrived, as a real API read before a change would.
 * @example
 * const api = await FakePaymentLookups.start();
 * api.setPayment('mollie', payment.id, payment);
 * mollieEndpoint({ name: 'mollie', api: api.mollieApi() });
 * api.count('mollie'); // lookups made so far
 */
export class FakePaymentLookups {
  /** Milliseconds every answer waits. */
  delayMs = 0;
  /** While false, every lookup is answered 503. */
  up = true;

  private readonly payments = new Map<string, unknown>();
  private readonly received: LookupRequest[] = [];

  private constructor(private readonly server: Server) {}

  /** Starts a fake on a free port. Close it with {@link close}. */
  static async start(): Promise<FakePaymentLookups> {
    const server = createServer();
    const api = new FakePaymentLookups(server);
    server.on('request', (request: IncomingMessage, response: ServerResponse) => {
      void api.answer(request, response);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return api;
  }

  /** The `api` of a Mollie endpoint that asks this fake. */
  mollieApi(): { apiKey: string; apiUrl: string } {
    return { apiKey: LOOKUP_API_CREDENTIALS.mollie, apiUrl: `${this.url}/mollie/v2` };
  }

  /** The `api` of a Mercado Pago endpoint that asks this fake. */
  mercadoPagoApi(): { accessToken: string; apiUrl: string; timeoutMs: number } {
    const accessToken = LOOKUP_API_CREDENTIALS['mercado-pago'];
    return { accessToken, apiUrl: `${this.url}/mercado-pago`, timeoutMs: 5000 };
  }

  /** Puts (or replaces) the payment a lookup of `id` is answered with. */
  setPayment(kind: LookupApiKind, id: string, payment: unknown): this {
    this.payments.set(`${kind}:${id}`, payment);
    return this;
  }

  /** The lookups made of `kind`'s API, of one payment id when given. */
  count(kind: LookupApiKind, id?: string): number {
    return this.received.filter((r) => r.kind === kind && (id === undefined || r.id === id)).length;
  }

  /** Every lookup received so far, oldest first. */
  get requests(): readonly LookupRequest[] {
    return [...this.received];
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  private async answer(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const url = request.url ?? '';
    const kind = (Object.keys(PATHS) as LookupApiKind[]).find((k) => PATHS[k].test(url));
    const id = kind === undefined ? undefined : decodeURIComponent(PATHS[kind].exec(url)![1]);
    this.received.push({ kind, id, receivedAt: Date.now() });
    // NOTE: read now: a late answer tells the state the payment had when it was asked for.
    const payment = kind === undefined ? undefined : this.payments.get(`${kind}:${id}`);
    const up = this.up;
    if (this.delayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, this.delayMs));
    }
    const [status, body] =
      kind === undefined
        ? [404, { message: `no fake at ${url}` }]
        : !up
          ? [503, { status: 503, title: 'Service Unavailable', message: 'unavailable' }]
          : request.headers.authorization !== `Bearer ${LOOKUP_API_CREDENTIALS[kind]}`
            ? [401, { status: 401, title: 'Unauthorized Request', message: 'unauthorized' }]
            : payment === undefined
              ? [404, { status: 404, title: 'Not Found', message: 'not_found', error: 'not_found' }]
              : [200, payment];
    if (response.destroyed) {
      return;
    }
    response.writeHead(status, {
      'content-type': kind === 'mollie' ? 'application/hal+json' : 'application/json',
    });
    response.end(JSON.stringify(body));
  }
}
