import { randomBytes } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { context, propagation, SpanStatusCode, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  IdGenerator,
  InMemorySpanExporter,
  ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import type { DataSource } from 'typeorm';
import {
  OnPaymentEvent,
  PaymentEvent,
  stripeEndpoint,
  WebhookContext,
  WebhooksModuleOptions,
} from 'nestjs-payment-webhooks';
import { bullmqTransport } from 'nestjs-payment-webhooks/bullmq';
import type { WebhookHandlerDefinition } from 'nestjs-payment-webhooks/express';
import { post } from '../support/http';
import { RecordingLogger } from '../support/recording-logger';
import { dropRedisPrefix, redisPrefix, redisUrl } from '../support/redis';
import { startRouterApp } from '../support/router-app';
import { signedStripeEvent } from '../support/stripe-event';
import { Database, eventually, startTestApp } from '../support/test-app';

const SECRET = 'whsec_tracing_e2e';
const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;

/** One call of the test handler: which attempt of which event, and the trace it was told. */
interface HandlerCall {
  readonly eventId: string;
  readonly attempt: number;
  readonly traceId: string | undefined;
}

/** Shared between a test and the handler of its app. */
class TraceLog {
  readonly calls: HandlerCall[] = [];
  /** Events whose first attempt fails. */
  readonly failOnce = new Set<string>();

  /** The calls for one event, once it has one that succeeded. */
  async settled(eventId: string): Promise<HandlerCall[]> {
    const calls = () => this.calls.filter((call) => call.eventId === eventId);
    const attempts = this.failOnce.has(eventId) ? 2 : 1;
    await eventually(() => calls().length === attempts);
    return calls();
  }
}

function handle(log: TraceLog, event: PaymentEvent, ctx: WebhookContext): void {
  log.calls.push({ eventId: event.eventId, attempt: ctx.attempt, traceId: ctx.traceId });
  if (log.failOnce.has(event.eventId) && ctx.attempt === 1) {
    throw new Error(`the order service is down for ${event.eventId}`);
  }
}

@Injectable()
class TracedHandlers {
  constructor(private readonly log: TraceLog) {}

  @OnPaymentEvent('payment.succeeded')
  async onPaid(event: PaymentEvent, ctx: WebhookContext): Promise<void> {
    handle(this.log, event, ctx);
  }
}

/** Where a case runs: which entrance, and where its handlers run. */
interface AppCase {
  readonly platform: 'nest' | 'router';
  /** `inline`: in-process, with fresh events settled on the answer path (`dispatch.inline`). */
  readonly dispatch: 'in-process' | 'inline' | 'bullmq';
}

const CASES: AppCase[] = [
  { platform: 'nest', dispatch: 'in-process' },
  { platform: 'router', dispatch: 'in-process' },
  { platform: 'nest', dispatch: 'inline' },
  { platform: 'nest', dispatch: 'bullmq' },
  { platform: 'router', dispatch: 'bullmq' },
];

/** A running app of a case, and what the test reads of it. */
interface TracedApp {
  readonly url: string;
  readonly log: TraceLog;
  /** The handler's key, as the registry names it. */
  readonly handler: string;
  /** The lines the app logged, as text. */
  lines(): string[];
  /** The headers stored with a provider event id. */
  storedHeaders(eventId: string): Promise<Record<string, string>>;
  close(): Promise<void>;
}

function connection() {
  const url = new URL(redisUrl());
  return { host: url.hostname, port: Number(url.port || 6379) };
}

function options(dispatch: AppCase['dispatch'], prefix: string): WebhooksModuleOptions {
  return {
    endpoints: [stripeEndpoint({ name: 'stripe', secret: SECRET })],
    dispatch: {
      pollIntervalMs: 50,
      retry: { maxAttempts: 3, baseDelayMs: 20, maxDelayMs: 50 },
      ...(dispatch === 'bullmq'
        ? { transport: bullmqTransport({ connection: connection(), prefix }) }
        : {}),
      ...(dispatch === 'inline' ? { inline: true } : {}),
    },
  };
}

/** Nest on Express or the plain router; SQLite with in-process workers, or PostgreSQL and BullMQ. */
async function startApp({ platform, dispatch }: AppCase): Promise<TracedApp> {
  const log = new TraceLog();
  const database: Database = dispatch === 'bullmq' ? 'postgres' : 'sqlite';
  const prefix = redisPrefix();
  const webhooks = options(dispatch, prefix);
  let app: { url: string; dataSource: DataSource; close(): Promise<void> };
  let lines: () => string[];
  let handler: string;
  if (platform === 'nest') {
    const logger = new RecordingLogger();
    app = await startTestApp({
      platform: 'express',
      database,
      webhooks,
      logger,
      handlers: [TracedHandlers],
      providers: [{ provide: TraceLog, useValue: log }],
    });
    lines = () => logger.lines.map((line) => line.text);
    handler = 'TracedHandlers.onPaid';
  } else {
    const logged: string[] = [];
    const keep = (message: unknown) => logged.push(String(message));
    const handlers: WebhookHandlerDefinition[] = [
      { on: 'payment.succeeded', name: 'orders', handle: async (e, ctx) => handle(log, e, ctx) },
    ];
    app = await startRouterApp({
      database,
      webhooks: { ...webhooks, logger: { log: keep, warn: keep, error: keep } },
      handlers,
    });
    lines = () => logged;
    handler = 'orders';
  }
  return {
    url: `${app.url}/webhooks/stripe`,
    log,
    handler,
    lines,
    async storedHeaders(eventId) {
      const rows = (await app.dataSource.query(
        `SELECT headers FROM webhook_events WHERE event_id = ${database === 'postgres' ? '$1' : '?'}`,
        [eventId],
      )) as { headers: string }[];
      return JSON.parse(rows[0].headers) as Record<string, string>;
    },
    async close() {
      await app.close();
      if (dispatch === 'bullmq') {
        await dropRedisPrefix(redisUrl(), prefix);
      }
    },
  };
}

/** The journal line of a delivery of `eventId`. */
function journalLine(app: TracedApp, eventId: string): string {
  const lines = app.lines().filter((line) => line.includes(`eventId=${eventId}`));
  expect(lines).toHaveLength(1);
  return lines[0];
}

/** Sends a signed Stripe delivery, with the extra headers given, and expects it stored. */
async function deliver(app: TracedApp, headers: Record<string, string> = {}, failOnce = false) {
  const event = signedStripeEvent(SECRET);
  if (failOnce) {
    app.log.failOnce.add(event.id);
  }
  const response = await post(app.url, event.body, { ...event.headers, ...headers });
  expect(response.status).toBe(200);
  return event.id;
}

describe.each(CASES)('with no tracer provider registered: $platform, $dispatch', (appCase) => {
  let app: TracedApp;

  beforeAll(async () => {
    app = await startApp(appCase);
  });
  afterAll(() => app?.close());

  it('runs the handler with no trace id, and journals none', async () => {
    const id = await deliver(app);
    expect(await app.log.settled(id)).toEqual([{ eventId: id, attempt: 1, traceId: undefined }]);
    expect(journalLine(app, id)).not.toContain('traceId=');
    expect(await app.storedHeaders(id)).not.toHaveProperty('traceparent');
  });

  it("hands the request's own traceparent on: stored, journaled, as every attempt's ctx.traceId", async () => {
    const id = await deliver(
      app,
      { traceparent: TRACEPARENT, tracestate: 'congo=t61rcWkgMzE' },
      true,
    );
    expect((await app.log.settled(id)).map((call) => call.traceId)).toEqual([TRACE_ID, TRACE_ID]);
    expect(journalLine(app, id)).toMatch(
      new RegExp(`^(\\[WebhookIngress\\] )?requestId=\\S+ traceId=${TRACE_ID} endpoint=stripe `),
    );
    expect(await app.storedHeaders(id)).toMatchObject({
      traceparent: TRACEPARENT,
      tracestate: 'congo=t61rcWkgMzE',
    });
  });

  it('keeps no traceparent that is not a valid W3C one', async () => {
    const id = await deliver(app, { traceparent: TRACEPARENT.toUpperCase(), tracestate: 'a=1' });
    expect((await app.log.settled(id))[0].traceId).toBeUndefined();
    const stored = await app.storedHeaders(id);
    expect(stored).not.toHaveProperty('traceparent');
    expect(stored).not.toHaveProperty('tracestate');
  });
});

/**
 * Random ids in which digits never run 13 long: the journal masks such a run as a card number,
 * and a test that reads a trace id back from the journal must not meet one by chance.
 */
const journalSafeIds: IdGenerator = {
  generateTraceId: () => lettered(16),
  generateSpanId: () => lettered(8),
};

function lettered(bytes: number): string {
  return [...randomBytes(bytes).toString('hex')]
    .map((digit, i) => (i % 4 === 3 ? 'abcdef'[parseInt(digit, 16) % 6] : digit))
    .join('');
}

describe('with an OpenTelemetry SDK registered', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({
    idGenerator: journalSafeIds,
    spanProcessors: [new SimpleSpanProcessor(exporter)],
  });
  const spansOf = (name: string, eventId: string) =>
    exporter
      .getFinishedSpans()
      .filter((span) => span.name === name && span.attributes['messaging.message.id'] === eventId);
  /** The delivery span of an event and its attempts' spans, once the attempts have all ended. */
  const spansFor = async (eventId: string, attempts: number) => {
    await eventually(() => spansOf('process stripe', eventId).length === attempts);
    const [receive] = spansOf('receive stripe', eventId);
    const processed = spansOf('process stripe', eventId).sort(
      (a, b) =>
        (a.attributes['payment_webhooks.attempt'] as number) -
        (b.attributes['payment_webhooks.attempt'] as number),
    );
    return { receive, processed };
  };

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterAll(async () => {
    trace.disable();
    propagation.disable();
    context.disable();
    await provider.shutdown();
  });

  describe.each(CASES)('$platform, $dispatch', (appCase) => {
    let app: TracedApp;

    beforeAll(async () => {
      app = await startApp(appCase);
    });
    afterAll(() => app?.close());

    /** What every attempt span of the event has: the same trace, the delivery as parent and link. */
    function expectContinued(receive: ReadableSpan, attempt: ReadableSpan, number: number): void {
      const { traceId, spanId } = receive.spanContext();
      expect(attempt.spanContext().traceId).toBe(traceId);
      expect(attempt.parentSpanContext?.spanId).toBe(spanId);
      expect(attempt.links.map((link) => link.context.spanId)).toEqual([spanId]);
      expect(attempt.attributes).toMatchObject({
        'messaging.operation.type': 'process',
        'payment_webhooks.handler': app.handler,
        'payment_webhooks.attempt': number,
        'payment_webhooks.event_type': 'payment.succeeded',
      });
    }

    it("continues the request's traceparent from the delivery to every handler attempt", async () => {
      const id = await deliver(app, { traceparent: TRACEPARENT }, true);
      const calls = await app.log.settled(id);
      const { receive, processed } = await spansFor(id, 2);

      expect(receive.spanContext().traceId).toBe(TRACE_ID);
      expect(receive.parentSpanContext?.spanId).toBe(SPAN_ID);
      expect(receive.events.map((event) => event.name)).toEqual(['verified', 'stored']);
      expect(receive.attributes).toMatchObject({
        'messaging.system': 'payment_webhooks',
        'messaging.operation.type': 'receive',
        'messaging.destination.name': 'stripe',
        'messaging.message.id': id,
        'payment_webhooks.provider': 'stripe',
        'payment_webhooks.decision': 'accepted',
        'http.response.status_code': 200,
      });
      // NOTE: the event keeps the delivery span's own context, which the attempts continue.
      expect((await app.storedHeaders(id)).traceparent).toBe(
        `00-${TRACE_ID}-${receive.spanContext().spanId}-01`,
      );

      expect(processed).toHaveLength(2);
      processed.forEach((attempt, i) => expectContinued(receive, attempt, i + 1));
      expect(processed[0].status.code).toBe(SpanStatusCode.ERROR);
      expect(processed[0].attributes['payment_webhooks.outcome']).toBe('failed');
      expect(processed[0].events.map((event) => event.name)).toEqual(['exception']);
      expect(processed[1].status.code).toBe(SpanStatusCode.UNSET);
      expect(processed[1].attributes['payment_webhooks.outcome']).toBe('ran');

      expect(calls.map((call) => call.traceId)).toEqual([TRACE_ID, TRACE_ID]);
      expect(journalLine(app, id)).toContain(` traceId=${TRACE_ID} `);
    });

    it('starts a trace of its own for a delivery without a traceparent', async () => {
      const id = await deliver(app);
      const [call] = await app.log.settled(id);
      const { receive, processed } = await spansFor(id, 1);
      const { traceId } = receive.spanContext();

      expect(receive.parentSpanContext).toBeUndefined();
      expect(traceId).not.toBe(TRACE_ID);
      expectContinued(receive, processed[0], 1);
      expect(call.traceId).toBe(traceId);
      expect(journalLine(app, id)).toContain(` traceId=${traceId} `);
    });

    it('ends the span of a refused delivery with the refusal', async () => {
      const event = signedStripeEvent('whsec_someone_else');
      const response = await post(app.url, event.body, {
        ...event.headers,
        traceparent: TRACEPARENT,
      });
      expect(response.status).toBe(400);
      await eventually(() =>
        exporter
          .getFinishedSpans()
          .some((span) => span.attributes['payment_webhooks.decision'] === 'rejected_signature'),
      );
      const refused = exporter
        .getFinishedSpans()
        .filter((span) => span.attributes['payment_webhooks.decision'] === 'rejected_signature');
      expect(refused).toHaveLength(1);
      expect(refused[0].parentSpanContext?.spanId).toBe(SPAN_ID);
      expect(refused[0].attributes['http.response.status_code']).toBe(400);
      expect(refused[0].events.map((e) => e.name)).toEqual(['refused']);
      exporter.reset();
    });
  });
});
