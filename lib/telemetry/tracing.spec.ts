import {
  context,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  ReadableSpan,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { parseTraceparent } from './trace-context';
import { MESSAGING_SYSTEM, TracedAttempt, WebhookTracing } from './tracing';
import type { DeliveryRecord } from './webhook-telemetry';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN_ID = '00f067aa0ba902b7';
const TRACEPARENT = `00-${TRACE_ID}-${SPAN_ID}-01`;
const receivedAt = new Date(Date.now() - 5);

function delivery(headers: Record<string, string> = {}) {
  return { endpoint: 'stripe', headers, receivedAt };
}

function record(fields: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    requestId: 'r-1',
    endpoint: 'stripe',
    provider: 'stripe',
    decision: 'accepted',
    status: 200,
    latencyMs: 5,
    receivedAt,
    eventIds: ['evt_1'],
    ...fields,
  };
}

const ATTEMPT: TracedAttempt = {
  inboxId: 'inbox-1',
  endpoint: 'stripe',
  tenant: null,
  provider: 'stripe',
  eventId: 'evt_1',
  type: 'payment.succeeded',
  handler: 'Orders.onPaid',
  attempt: 2,
};

describe('WebhookTracing without @opentelemetry/api', () => {
  it('traces nothing, and tries to load the API once', () => {
    const load = jest.fn(() => {
      throw Object.assign(new Error("Cannot find module '@opentelemetry/api'"), {
        code: 'MODULE_NOT_FOUND',
      });
    });
    const tracing = new WebhookTracing(load);
    expect(tracing.delivery(delivery({ traceparent: TRACEPARENT }))).toBeUndefined();
    expect(tracing.attempt(parseTraceparent(TRACEPARENT), ATTEMPT)).toBeUndefined();
    expect(load).toHaveBeenCalledTimes(1);
  });
});

describe('WebhookTracing with the API and no SDK', () => {
  it('traces nothing and asks the no-op provider for no tracer', () => {
    const getTracer = jest.spyOn(ProxyTracerProvider.prototype, 'getTracer');
    try {
      const tracing = new WebhookTracing();
      expect(tracing.delivery(delivery({ traceparent: TRACEPARENT }))).toBeUndefined();
      expect(tracing.attempt(undefined, ATTEMPT)).toBeUndefined();
      expect(getTracer).not.toHaveBeenCalled();
    } finally {
      getTracer.mockRestore();
    }
  });
});

describe('WebhookTracing with an SDK', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const tracing = new WebhookTracing();
  const spans = () => exporter.getFinishedSpans();
  const only = (): ReadableSpan => {
    expect(spans()).toHaveLength(1);
    return spans()[0];
  };

  beforeAll(() => {
    trace.setGlobalTracerProvider(provider);
    propagation.setGlobalPropagator(new W3CTraceContextPropagator());
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  afterEach(() => exporter.reset());
  afterAll(async () => {
    trace.disable();
    propagation.disable();
    context.disable();
    await provider.shutdown();
  });

  it("starts a delivery's CONSUMER span at its receipt, a child of its traceparent", () => {
    const span = tracing.delivery(delivery({ traceparent: TRACEPARENT }))!;
    span.verified();
    span.stored();
    span.end(record());
    const ended = only();
    expect(ended.name).toBe('receive stripe');
    expect(ended.kind).toBe(SpanKind.CONSUMER);
    expect(ended.spanContext().traceId).toBe(TRACE_ID);
    expect(ended.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(ended.startTime).toEqual([Math.floor(receivedAt.getTime() / 1000), expect.any(Number)]);
    expect(ended.events.map((event) => event.name)).toEqual(['verified', 'stored']);
    expect(ended.attributes).toEqual({
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.operation.type': 'receive',
      'messaging.operation.name': 'receive',
      'messaging.destination.name': 'stripe',
      'messaging.message.id': 'evt_1',
      'payment_webhooks.provider': 'stripe',
      'payment_webhooks.decision': 'accepted',
      'http.response.status_code': 200,
    });
    expect(ended.status.code).toBe(SpanStatusCode.UNSET);
  });

  it("keeps the span's own context for the events, and its trace id", () => {
    const span = tracing.delivery(delivery())!;
    const stored = parseTraceparent(span.storedContext().traceparent)!;
    span.end(record());
    const ended = only();
    expect(ended.parentSpanContext).toBeUndefined();
    expect(stored).toEqual({
      traceId: ended.spanContext().traceId,
      spanId: ended.spanContext().spanId,
      traceFlags: 1,
    });
    expect(span.traceId).toBe(ended.spanContext().traceId);
  });

  it('is a child of the active span without a traceparent, and links it with one', async () => {
    const outer = trace.getTracer('test').startSpan('POST /webhooks/stripe');
    await context.with(trace.setSpan(context.active(), outer), async () => {
      tracing.delivery(delivery())!.end(record());
      tracing.delivery(delivery({ traceparent: TRACEPARENT }))!.end(record());
    });
    outer.end();
    const [child, continued] = spans();
    expect(child.parentSpanContext?.spanId).toBe(outer.spanContext().spanId);
    expect(child.links).toEqual([]);
    expect(continued.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(continued.links.map((link) => link.context.spanId)).toEqual([
      outer.spanContext().spanId,
    ]);
  });

  it('counts a batch, names the tenant, and marks a refusal and a 5xx', () => {
    tracing.delivery(delivery())!.end(record({ eventIds: ['a', 'b', 'c'], tenant: 'acme' }));
    tracing
      .delivery(delivery())!
      .end(record({ decision: 'rejected_signature', status: 400, reason: 'No signature' }));
    tracing.delivery(delivery())!.end(record({ decision: 'store_failed', status: 503 }));
    const [batch, refused, failed] = spans();
    expect(batch.attributes).toMatchObject({
      'messaging.batch.message_count': 3,
      'payment_webhooks.tenant': 'acme',
    });
    expect(batch.attributes['messaging.message.id']).toBeUndefined();
    expect(refused.events).toEqual([
      expect.objectContaining({
        name: 'refused',
        attributes: {
          'payment_webhooks.decision': 'rejected_signature',
          'payment_webhooks.reason': 'No signature',
        },
      }),
    ]);
    expect(refused.status.code).toBe(SpanStatusCode.UNSET);
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'store_failed' });
  });

  it('runs work under the span, so what it traces is a child', async () => {
    const span = tracing.delivery(delivery())!;
    await span.within(async () => trace.getTracer('test').startSpan('INSERT').end());
    span.end(record());
    const [insert, receive] = spans();
    expect(insert.parentSpanContext?.spanId).toBe(receive.spanContext().spanId);
  });

  it("makes a handler attempt's span a child of the stored context, linked to it", () => {
    const stored = parseTraceparent(TRACEPARENT)!;
    const span = tracing.attempt({ ...stored, traceState: 'congo=1' }, ATTEMPT)!;
    span.end('applied');
    const ended = only();
    expect(ended.name).toBe('process stripe');
    expect(ended.kind).toBe(SpanKind.CONSUMER);
    expect(ended.spanContext().traceId).toBe(TRACE_ID);
    expect(ended.spanContext().traceState?.serialize()).toBe('congo=1');
    expect(ended.parentSpanContext?.spanId).toBe(SPAN_ID);
    expect(ended.links.map((link) => link.context.spanId)).toEqual([SPAN_ID]);
    expect(ended.attributes).toEqual({
      'messaging.system': MESSAGING_SYSTEM,
      'messaging.operation.type': 'process',
      'messaging.operation.name': 'process',
      'messaging.destination.name': 'stripe',
      'messaging.message.id': 'evt_1',
      'payment_webhooks.provider': 'stripe',
      'payment_webhooks.inbox_id': 'inbox-1',
      'payment_webhooks.event_type': 'payment.succeeded',
      'payment_webhooks.handler': 'Orders.onPaid',
      'payment_webhooks.attempt': 2,
      'payment_webhooks.outcome': 'applied',
    });
  });

  it('starts a trace of its own for an event stored without one, whatever is active', async () => {
    const outer = trace.getTracer('test').startSpan('poll');
    await context.with(trace.setSpan(context.active(), outer), async () => {
      tracing.attempt(undefined, ATTEMPT)!.end('ran');
    });
    outer.end();
    const [attempt] = spans();
    expect(attempt.parentSpanContext).toBeUndefined();
    expect(attempt.links).toEqual([]);
    expect(attempt.spanContext().traceId).not.toBe(outer.spanContext().traceId);
  });

  it("marks a failed attempt's span as an error, with the exception masked", () => {
    const span = tracing.attempt(undefined, ATTEMPT)!;
    span.fail(new TypeError('card 4111111111111111 declined'));
    const ended = only();
    expect(ended.status).toEqual({
      code: SpanStatusCode.ERROR,
      message: 'card 411111******1111 declined',
    });
    expect(ended.attributes['payment_webhooks.outcome']).toBe('failed');
    expect(ended.events[0].name).toBe('exception');
    expect(ended.events[0].attributes).toMatchObject({
      'exception.type': 'TypeError',
      'exception.message': 'card 411111******1111 declined',
    });
    expect(JSON.stringify(ended.events)).not.toContain('4111111111111111');
  });
});
