import type { AddressInfo } from 'node:net';
import { SignedDelivery } from '../providers/signed-delivery';

/** What a delivery got back, as a provider would see it. */
export interface WebhookTestResponse {
  /** HTTP status. */
  readonly status: number;
  /** Response body as text. */
  readonly body: string;
  /** Response headers. */
  readonly headers: Headers;
}

/** Options of `WebhookTestClient`. */
export interface WebhookTestClientOptions {
  /**
   * The module's `path` extra.
   * @default 'webhooks'
   */
  path?: string;
}

/**
 * An app the client can make listen: a Nest application (`INestApplication`) has this shape.
 */
export interface WebhookTestApplication {
  getHttpServer(): unknown;
  listen(port: number, hostname: string): Promise<unknown>;
}

/**
 * Sends signed deliveries to a running app over real HTTP, the way the provider would:
 * the exact body bytes, the provider's headers, no redirects followed.
 * @example
 * const client = new WebhookTestClient(app);
 * const delivery = signTBankDelivery({ password, payload: tbankFixtures.confirmed({ orderId }) });
 * const response = await client.send('tbank', delivery);
 * expect(response.body).toBe('OK');
 */
export class WebhookTestClient {
  private readonly path: string;
  private baseUrl?: Promise<string>;

  /**
   * @param target a Nest application (it is made to listen on a free local port if it does
   * not listen yet) or the base URL of a running one, e.g. `http://127.0.0.1:3000`.
   */
  constructor(
    private readonly target: WebhookTestApplication | string,
    options: WebhookTestClientOptions = {},
  ) {
    this.path = (options.path ?? 'webhooks').replace(/^\/+|\/+$/g, '');
  }

  /** The URL deliveries for `endpoint` go to. */
  async urlOf(endpoint: string): Promise<string> {
    const base = await this.resolveBaseUrl();
    const path = this.path === '' ? '' : `/${this.path}`;
    return `${base}${path}/${encodeURIComponent(endpoint)}`;
  }

  /** Sends one delivery to `endpoint` and returns what the app answered. */
  async send(endpoint: string, delivery: SignedDelivery): Promise<WebhookTestResponse> {
    const url = await this.urlOf(endpoint);
    const response =
      delivery.method === 'GET'
        ? await fetch(delivery.body === '' ? url : `${url}?${delivery.body}`, {
            method: 'GET',
            headers: delivery.headers,
            redirect: 'manual',
          })
        : await fetch(url, {
            method: 'POST',
            body: delivery.body,
            headers: delivery.headers,
            redirect: 'manual',
          });
    return { status: response.status, body: await response.text(), headers: response.headers };
  }

  private resolveBaseUrl(): Promise<string> {
    this.baseUrl ??= this.computeBaseUrl();
    return this.baseUrl;
  }

  private async computeBaseUrl(): Promise<string> {
    if (typeof this.target === 'string') {
      return this.target.replace(/\/+$/, '');
    }
    const server = this.target.getHttpServer() as { address(): AddressInfo | string | null };
    let address = server.address();
    if (address === null) {
      await this.target.listen(0, '127.0.0.1');
      address = server.address();
    }
    if (address === null || typeof address === 'string') {
      throw new Error(
        'WebhookTestClient needs an app listening on a TCP port; pass its base URL instead.',
      );
    }
    const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    const reachable = host === '0.0.0.0' ? '127.0.0.1' : host === '[::]' ? '[::1]' : host;
    return `http://${reachable}:${address.port}`;
  }
}
