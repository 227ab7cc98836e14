import 'reflect-metadata';
import { Controller, Post } from '@nestjs/common';
import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import {
  PaymentWebhook,
  stripeEndpoint,
  WebhookConfigurationError,
  WebhookTelemetry,
} from 'nestjs-payment-webhooks';
import { DeliveryRecord } from 'nestjs-payment-webhooks/observability';
import { post } from '../support/http';
import { engineOf, WebhookEventEntity } from '../support/internals';
import { MatrixPlatform, startRouterApp, RouterTestApp } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import { startTestApp, TestApp } from '../support/test-app';

/**
 * What the URL, method and headers tell is answered before a byte of the body is read, and a
 * body is read within bounds of size and time: an unknown endpoint gets 404 and a method an
 * endpoint does not take 405 however large the body; a declared `Content-Length` over the limit
 * 413 without waiting for it; a sender that stalls mid-body 408 once `bodyTimeoutMs` passes.
 * Each closes the connection, so the server's memory stays flat. Real HTTP on `listen(0)`, for
 * Nest on Express and on Fastify and for the plain Express router.
 */

const SECRET = 'whsec_body_bounds';
const BODY_TIMEOUT_MS = 200;
/**
 * How late a 408 may come after `bodyTimeoutMs` on a busy machine: well under the default
 * `bodyTimeoutMs` (10 s), which is what a stall would meet if the endpoint's were not applied.
 */
const LATE_MS = 5_000;
const HUNDRED_MB = 100 * 1024 * 1024;

/** What came back: the status and headers, whether the server closed the connection, how fast. */
interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
  closed: boolean;
  elapsedMs: number;
  /** Bytes of the body the client got to write before the answer. */
  sent: number;
}

interface Sending {
  method?: string;
  path: string;
  contentType?: string;
  /** A declared length; chunked when unset. */
  contentLength?: number;
  /** The body, written chunk by chunk as the socket takes it. */
  chunks?: Iterable<Buffer>;
  /** Keep the request open after the chunks, as a sender that stalls. */
  stall?: boolean;
}

/** 64 KiB chunks up to `total` bytes, all one buffer: the client holds none of the body. */
function* chunksOf(total: number): Generator<Buffer> {
  const chunk = Buffer.alloc(64 * 1024, 'x');
  for (let sent = 0; sent < total; sent += chunk.length) {
    yield chunk;
  }
}

/** Sends a request over a fresh connection and resolves once the answer is in and the connection closed (or 3 s after the answer). */
function send(base: string, sending: Sending): Promise<Answer> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = {
      'content-type': sending.contentType ?? 'application/json',
      connection: 'keep-alive',
    };
    if (sending.contentLength !== undefined) {
      headers['content-length'] = sending.contentLength;
    }
    const request = httpRequest(`${base}${sending.path}`, {
      method: sending.method ?? 'POST',
      headers,
      agent: false,
    });
    let sent = 0;
    let answered = false;
    const chunks = (sending.chunks ?? [])[Symbol.iterator]();
    const pump = () => {
      while (!answered) {
        const next = chunks.next();
        if (next.done) {
          if (!sending.stall) request.end();
          return;
        }
        sent += next.value.length;
        if (!request.write(next.value)) {
          request.once('drain', pump);
          return;
        }
      }
    };
    request.on('response', (response) => {
      answered = true;
      const body: Buffer[] = [];
      response.on('data', (chunk: Buffer) => body.push(chunk));
      const socket = request.socket!;
      const answer = (closed: boolean) => ({
        status: response.statusCode!,
        headers: response.headers,
        body: Buffer.concat(body).toString(),
        closed,
        elapsedMs: Date.now() - started,
        sent,
      });
      const timer = setTimeout(() => {
        request.destroy();
        resolve(answer(false));
      }, 3_000);
      socket.once('close', () => {
        clearTimeout(timer);
        resolve(answer(true));
      });
      response.once('end', () => {
        // NOTE: a sender that stops writing once answered, as providers and load balancers do.
        if (!sending.stall && !request.writableEnded) request.destroy();
      });
    });
    request.on('error', (error) => {
      if (!answered) reject(error);
    });
    if (sending.contentLength === undefined || sending.chunks) {
      request.flushHeaders();
      pump();
    } else {
      request.flushHeaders();
    }
  });
}

/** The largest growth of this process's RSS over its value at the start, while `work` runs. */
async function rssGrowthDuring<T>(
  work: () => Promise<T>,
): Promise<{ result: T; growthMb: number }> {
  const baseline = process.memoryUsage().rss;
  let peak = baseline;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 10);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().rss);
    return { result, growthMb: (peak - baseline) / (1024 * 1024) };
  } finally {
    clearInterval(sampler);
  }
}

/** A route of the app's own at the root, beside the module's. */
@Controller()
class RootRoute {
  @Post('orders')
  orders(): string {
    return 'the app answered';
  }
}

interface BoundsApp {
  url: string;
  stored(endpoint: string): Promise<number>;
  refusals: DeliveryRecord[];
  close(): Promise<void>;
}

const endpoints = () => [
  stripeEndpoint({ name: 'stripe', secret: SECRET, bodyTimeoutMs: BODY_TIMEOUT_MS }),
  stripeEndpoint({ name: 'office', secret: SECRET, allowedIps: ['10.0.0.0/8'] }),
];

async function startBoundsApp(
  platform: MatrixPlatform,
): Promise<BoundsApp & { ingestFrom?: RouterTestApp }> {
  const webhooks = { endpoints: endpoints(), dispatch: { enabled: false } };
  const refusals: DeliveryRecord[] = [];
  const listen = (telemetry: WebhookTelemetry) =>
    telemetry.subscribe({
      delivery: (record) => {
        if (record.status >= 400) refusals.push(record);
      },
    });
  let started: TestApp | RouterTestApp;
  if (platform === 'router') {
    const router = await startRouterApp({ database: 'sqlite', webhooks });
    listen(engineOf(router.router).telemetry);
    started = router;
  } else {
    const nest = await startTestApp({
      platform,
      database: 'sqlite',
      webhooks,
      controllers: [RootRoute],
    });
    listen(nest.app.get(WebhookTelemetry));
    started = nest;
  }
  return {
    url: started.url,
    refusals,
    stored: (endpoint) =>
      started.dataSource.getRepository(WebhookEventEntity).countBy({ endpoint }),
    close: () => started.close(),
    ingestFrom: platform === 'router' ? (started as RouterTestApp) : undefined,
  };
}

describe.each<MatrixPlatform>(['express', 'fastify', 'router'])('body bounds on %s', (platform) => {
  let app: BoundsApp;

  beforeAll(async () => {
    app = await startBoundsApp(platform);
  });

  afterAll(() => app.close());

  it.each(['application/json', 'application/octet-stream'])(
    'answers 404 to a 100 MB chunked %s body for an unknown endpoint before reading it, memory flat',
    async (contentType) => {
      const { result, growthMb } = await rssGrowthDuring(() =>
        send(app.url, { path: '/webhooks/nope', contentType, chunks: chunksOf(HUNDRED_MB) }),
      );
      expect(result.status).toBe(404);
      expect(JSON.parse(result.body)).toMatchObject({ statusCode: 404 });
      expect(result.closed).toBe(true);
      expect(result.sent).toBeLessThan(HUNDRED_MB / 2);
      expect(growthMb).toBeLessThan(30);
      expect(app.refusals.at(-1)).toMatchObject({ endpoint: 'nope', decision: 'unknown_endpoint' });
    },
  );

  it('answers 405 with Allow to a 100 MB chunked body with another method, memory flat', async () => {
    const { result, growthMb } = await rssGrowthDuring(() =>
      send(app.url, { method: 'PUT', path: '/webhooks/stripe', chunks: chunksOf(HUNDRED_MB) }),
    );
    expect(result.status).toBe(405);
    expect(result.headers.allow).toBe('POST');
    expect(result.closed).toBe(true);
    expect(growthMb).toBeLessThan(30);
  });

  it.each(['PUT', 'PATCH', 'DELETE', 'GET'])(
    'answers %s on a POST endpoint 405 with Allow: POST, and 404 on an unknown one',
    async (method) => {
      const known = await send(app.url, { method, path: '/webhooks/stripe' });
      expect(known.status).toBe(405);
      expect(known.headers.allow).toBe('POST');
      expect(JSON.parse(known.body)).toMatchObject({
        statusCode: 405,
        error: 'Method Not Allowed',
      });
      expect((await send(app.url, { method, path: '/webhooks/nope' })).status).toBe(404);
    },
  );

  it('answers a declared Content-Length of 300 MB at once: 404 unknown, 413 known', async () => {
    const unknown = await send(app.url, { path: '/webhooks/nope', contentLength: 300_000_000 });
    expect(unknown.status).toBe(404);
    expect(unknown.closed).toBe(true);
    expect(unknown.elapsedMs).toBeLessThan(2_000);
    const known = await send(app.url, { path: '/webhooks/stripe', contentLength: 300_000_000 });
    expect(known.status).toBe(413);
    expect(known.closed).toBe(true);
    expect(known.elapsedMs).toBeLessThan(2_000);
    expect(app.refusals.at(-1)).toMatchObject({ endpoint: 'stripe', decision: 'too_large' });
  });

  it('answers 403 to a refused source before reading its 300 MB declared body', async () => {
    const answer = await send(app.url, { path: '/webhooks/office', contentLength: 300_000_000 });
    expect(answer.status).toBe(403);
    expect(answer.closed).toBe(true);
  });

  const stalls: [string, string, number | undefined][] = [
    ['a declared length', 'application/json', 4_000],
    ['a chunked body', 'application/json', undefined],
  ];
  // NOTE: Fastify parses no other content type (415): only on Express does the module read a body.
  if (platform !== 'fastify') {
    stalls.push(['a body the module reads itself', 'application/octet-stream', 4_000]);
  }

  it.each(stalls)(
    'answers 408 to a sender that stalls mid-body (%s) once bodyTimeoutMs passes, closing',
    async (_label, contentType, contentLength) => {
      const refusals = app.refusals.length;
      const answer = await send(app.url, {
        path: '/webhooks/stripe',
        contentType,
        contentLength,
        chunks: [Buffer.from(`{"id":"evt_slow","pad":"${'x'.repeat(1_000)}`)],
        stall: true,
      });
      expect(answer.status).toBe(408);
      expect(JSON.parse(answer.body)).toMatchObject({ statusCode: 408, error: 'Request Timeout' });
      expect(answer.elapsedMs).toBeGreaterThanOrEqual(BODY_TIMEOUT_MS - 50);
      expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + LATE_MS);
      expect(answer.closed).toBe(true);
      expect(app.refusals.slice(refusals)).toEqual([
        expect.objectContaining({ endpoint: 'stripe', decision: 'body_timeout', status: 408 }),
      ]);
      expect(await app.stored('stripe')).toBe(0);
    },
  );

  if (platform !== 'router') {
    it("leaves the app's own routes to the app", async () => {
      const answer = await send(app.url, { path: '/orders', chunks: [Buffer.from('{}')] });
      expect(answer.status).toBe(201);
      expect(answer.body).toBe('the app answered');
    });
  }

  it('still answers a signed delivery 200 and stores it after all that', async () => {
    const event = signedStripeEvent(SECRET);
    const answer = await post(`${app.url}/webhooks/stripe`, event.body, event.headers);
    expect(answer.status).toBe(200);
    expect(await app.stored('stripe')).toBe(1);
  });
});

/** An app's own route for the `stripe` endpoint, at the URL a dashboard already points at. */
@Controller('api')
class OwnHook {
  @Post('stripe/hook')
  @PaymentWebhook('stripe')
  stripe(): void {}
}

describe('an app route with @PaymentWebhook() on express', () => {
  let app: TestApp;

  beforeAll(async () => {
    app = await startTestApp({
      platform: 'express',
      database: 'sqlite',
      webhooks: { endpoints: endpoints(), dispatch: { enabled: false } },
      controllers: [OwnHook],
    });
  });

  afterAll(() => app.close());

  it('answers a declared Content-Length of 300 MB with 413 at once, closing', async () => {
    const answer = await send(app.url, {
      path: '/api/stripe/hook',
      contentType: 'application/octet-stream',
      contentLength: 300_000_000,
    });
    expect(answer.status).toBe(413);
    expect(answer.closed).toBe(true);
    expect(answer.elapsedMs).toBeLessThan(2_000);
  });

  it('answers 408 to a sender that stalls mid-body once bodyTimeoutMs passes, closing', async () => {
    const answer = await send(app.url, {
      path: '/api/stripe/hook',
      contentType: 'application/octet-stream',
      contentLength: 4_000,
      chunks: [Buffer.from('{"id":"evt_slow"')],
      stall: true,
    });
    expect(answer.status).toBe(408);
    expect(answer.elapsedMs).toBeLessThan(BODY_TIMEOUT_MS + LATE_MS);
    expect(answer.closed).toBe(true);
    expect(await app.dataSource.getRepository(WebhookEventEntity).count()).toBe(0);
  });
});

/** A route of the app's own whose URL ends like the module's: `/api/ops/webhooks/events`. */
@Controller('ops/webhooks')
class OwnRoutes {
  @Post('events')
  events(): string {
    return 'the app answered';
  }
}

describe.each<'express' | 'fastify'>(['express', 'fastify'])(
  'under a global prefix on %s',
  (platform) => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp({
        platform,
        database: 'sqlite',
        webhooks: { endpoints: endpoints(), dispatch: { enabled: false } },
        controllers: [OwnRoutes],
        configure: (nest) => nest.setGlobalPrefix('api'),
      });
    });

    afterAll(() => app.close());

    it('answers an unknown endpoint 404 before reading its declared 300 MB body', async () => {
      const answer = await send(app.url, {
        path: '/api/webhooks/nope',
        contentLength: 300_000_000,
      });
      expect(answer.status).toBe(404);
      expect(answer.closed).toBe(true);
      expect(answer.elapsedMs).toBeLessThan(2_000);
    });

    it("leaves the app's own routes that end like the module's to the app", async () => {
      const answer = await send(app.url, {
        path: '/api/ops/webhooks/events',
        chunks: [Buffer.from('{}')],
      });
      expect(answer.status).toBe(201);
      expect(answer.body).toBe('the app answered');
    });
  },
);

describe('the ingress behind the gate', () => {
  let app: BoundsApp & { ingestFrom?: RouterTestApp };

  beforeAll(async () => {
    app = await startBoundsApp('router');
  });

  afterAll(() => app.close());

  it('refuses an empty body from a refused address given to ingest() directly: 403, rejected_ip', async () => {
    const answer = await engineOf(app.ingestFrom!.router).ingest({
      endpoint: 'office',
      method: 'POST',
      headers: {},
      sourceIp: '203.0.113.9',
      receivedAt: new Date(),
      rawBody: Buffer.alloc(0),
    });
    expect(answer.status).toBe(403);
    expect(app.refusals.at(-1)).toMatchObject({ endpoint: 'office', decision: 'rejected_ip' });
    expect(await app.stored('office')).toBe(0);
  });
});

describe('bodyTimeoutMs', () => {
  it.each([0, 50, 1.5, 600_000, Number.NaN])(
    'refuses %p at startup, naming the option',
    (value) => {
      const build = () => stripeEndpoint({ name: 'stripe', secret: SECRET, bodyTimeoutMs: value });
      expect(build).toThrow(WebhookConfigurationError);
      expect(build).toThrow(
        /bodyTimeoutMs must be a whole number of milliseconds between 100 and 120000/,
      );
    },
  );
});
