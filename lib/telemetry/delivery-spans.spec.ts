import { SpanStatusCode, trace } from '@opentelemetry/api';
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  SimpleSpanProcessor,
} from '@opentelemetry/sdk-trace-base';
import { DeliverySpans } from './delivery-spans';
import type { DeliveryRecord } from './webhook-telemetry';

const TRACE_ID = '4bf92f3577b34da6a3ce929d0e0e4736';
const TRACEPARENT = `00-${TRACE_ID}-00f067aa0ba902b7-01`;

function head(headers: Record<string, string> = {}) {
  return { endpoint: 'stripe', headers, receivedAt: new Date() };
}

function record(decision: DeliveryRecord['decision'], status: number): DeliveryRecord {
  return {
    requestId: 'r',
    endpoint: 'stripe',
    decision,
    status,
    latencyMs: 0,
    receivedAt: new Date(),
  };
}

describe('DeliverySpans without an SDK', () => {
  it("finishes with the request's own trace id, or none", () => {
    const spans = new DeliverySpans();
    const delivery = head({ traceparent: TRACEPARENT });
    expect(spans.start(delivery)).toBeUndefined();
    expect(spans.finish(delivery, record('accepted', 200), true)).toBe(TRACE_ID);
    expect(
      spans.finish(head({ traceparent: 'junk' }), record('accepted', 200), true),
    ).toBeUndefined();
  });
});

describe('DeliverySpans with an SDK', () => {
  const exporter = new InMemorySpanExporter();
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
  const spans = new DeliverySpans();

  beforeAll(() => trace.setGlobalTracerProvider(provider));
  afterEach(() => exporter.reset());
  afterAll(async () => {
    trace.disable();
    await provider.shutdown();
  });

  it('gives a delivery refused on its head a span of its own when it is journaled', () => {
    const delivery = head();
    const traceId = spans.finish(delivery, record('unknown_endpoint', 404), false);
    const [ended] = exporter.getFinishedSpans();
    expect(ended.spanContext().traceId).toBe(traceId);
    expect(ended.attributes['payment_webhooks.decision']).toBe('unknown_endpoint');
    expect(spans.of(delivery)).toBeUndefined();
  });

  it('ends the span of a step that throws as failed, and one journaled first only once', async () => {
    const broken = head();
    spans.start(broken);
    await expect(
      spans.run(broken, async () => {
        throw new Error('a bug');
      }),
    ).rejects.toThrow('a bug');
    const refused = head();
    spans.start(refused);
    await expect(
      spans.run(refused, async () => {
        spans.finish(refused, record('rejected_signature', 400), true);
        throw new Error('the refusal');
      }),
    ).rejects.toThrow('the refusal');
    const [failed, journaled] = exporter.getFinishedSpans();
    expect(failed.status).toEqual({ code: SpanStatusCode.ERROR, message: 'a bug' });
    expect(journaled.status.code).toBe(SpanStatusCode.UNSET);
    expect(journaled.attributes['payment_webhooks.decision']).toBe('rejected_signature');
    expect(exporter.getFinishedSpans()).toHaveLength(2);
  });
});
