import { IncomingHttpHeaders, Server, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

/** One request as the fake saw it. */
export interface FakeEventLogRequest {
  readonly method: string;
  /** The path without the query. */
  readonly path: string;
  readonly query: URLSearchParams;
  readonly headers: IncomingHttpHeaders;
  /** The body, parsed as JSON when it is JSON. */
  readonly body: unknown;
}

/** An answer of the fake: the status and the JSON body. */
export interface FakeEventLogAnswer {
  readonly status: number;
  readonly body: unknown;
}

/**
 * A provider's events API on `listen(0)`, answering as `respond` says (each spec writes its
 * provider's documented behaviour there), recording every request. `failNext()` puts an answer
 * before the next one `respond` would give.
 */
export class FakeEventLogApi {
  /** Every request, in order. */
  readonly requests: FakeEventLogRequest[] = [];
  private readonly queued: FakeEventLogAnswer[] = [];

  private constructor(
    private readonly server: Server,
    readonly url: string,
    private readonly respond: (request: FakeEventLogRequest) => FakeEventLogAnswer,
  ) {}

  static async start(
    respond: (request: FakeEventLogRequest) => FakeEventLogAnswer,
  ): Promise<FakeEventLogApi> {
    const holder: { fake?: FakeEventLogApi } = {};
    const server = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const url = new URL(request.url ?? '/', 'http://fake.invalid');
        const text = Buffer.concat(chunks).toString();
        let body: unknown = text;
        try {
          body = text === '' ? undefined : JSON.parse(text);
        } catch {
          // NOTE: kept as text; a spec asserting on it sees what was sent.
        }
        const seen: FakeEventLogRequest = {
          method: request.method ?? '',
          path: url.pathname,
          query: url.searchParams,
          headers: request.headers,
          body,
        };
        const fake = holder.fake!;
        fake.requests.push(seen);
        const answer = fake.queued.shift() ?? fake.respond(seen);
        response.writeHead(answer.status, { 'content-type': 'application/json' });
        response.end(typeof answer.body === 'string' ? answer.body : JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return (holder.fake = new FakeEventLogApi(server, url, respond));
  }

  /** The next request gets this answer instead of `respond`'s. */
  failNext(status: number, body: unknown = {}): void {
    this.queued.push({ status, body });
  }

  /** Forgets requests and queued answers. */
  reset(): void {
    this.requests.length = 0;
    this.queued.length = 0;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
