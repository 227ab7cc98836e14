import type {
  Attributes,
  Span,
  SpanContext,
  Tracer,
  TracerProvider,
  ProxyTracerProvider,
} from '@opentelemetry/api';
import { loadOpenTelemetry, OpenTelemetryApi } from './opentelemetry.loader';
import { safeText, shortText } from './safe-text';
import {
  boundedTracestate,
  formatTraceparent,
  StoredTraceContext,
  TraceParent,
} from './trace-context';
import type { DeliveryRecord } from './webhook-telemetry';

/** The instrumentation scope of the package's spans. */
export const TRACER_NAME = 'nestjs-payment-webhooks';

/** `messaging.system` of the package's spans: the inbox is the system the events pass through. */
export const MESSAGING_SYSTEM = 'payment_webhooks';

/** What a delivery's span starts from: the head of the request. */
export interface TracedDelivery {
  readonly endpoint: string;
  /** Lower-cased names, as the adapters flatten them: the propagator reads `traceparent` here. */
  readonly headers: Readonly<Record<string, string | undefined>>;
  readonly receivedAt: Date;
}

/** What one handler attempt's span describes. */
export interface TracedAttempt {
  readonly inboxId: string;
  readonly endpoint: string;
  readonly tenant: string | null;
  readonly provider: string;
  readonly eventId: string;
  readonly type: string;
  readonly handler: string;
  readonly attempt: number;
}

/** A span of the package's that records: what the ingress and the handler runs do with it. */
interface TracedSpan {
  /** The span's trace id. */
  readonly traceId: string;
  /** Runs `work` with this span active, so what it traces (a database call) is a child. */
  within<T>(work: () => Promise<T>): Promise<T>;
  /** Ends the span as failed by `error`. */
  fail(error: unknown): void;
}

/** The span of one delivery, `receive <endpoint>`: from receipt to the answer decided. */
export interface DeliverySpan extends TracedSpan {
  /** The context to keep with the delivery's events: this span's own. */
  storedContext(): StoredTraceContext;
  /** The signature and the envelope passed. */
  verified(): void;
  /** The events are committed (or found stored already). */
  stored(): void;
  /** Ends the span with what the journal says of the delivery. */
  end(record: DeliveryRecord): void;
}

/** The span of one handler attempt, `process <endpoint>`. */
export interface AttemptSpan extends TracedSpan {
  /** Ends the span with the attempt's outcome. */
  end(outcome: string): void;
}

class RecordingSpan implements TracedSpan {
  constructor(
    protected readonly api: OpenTelemetryApi,
    protected readonly span: Span,
  ) {}

  get traceId(): string {
    return this.span.spanContext().traceId;
  }

  within<T>(work: () => Promise<T>): Promise<T> {
    const { context, trace } = this.api;
    return context.with(trace.setSpan(context.active(), this.span), work);
  }

  fail(error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.span.recordException({
      name: error instanceof Error ? error.name : 'Error',
      message: safeText(message),
      ...(error instanceof Error && error.stack ? { stack: safeText(error.stack) } : {}),
    });
    this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: shortText(message) });
    this.span.end();
  }
}

class RecordingDeliverySpan extends RecordingSpan implements DeliverySpan {
  storedContext(): StoredTraceContext {
    const context = this.span.spanContext();
    const traceparent = formatTraceparent(context);
    const tracestate = boundedTracestate(context.traceState?.serialize());
    return tracestate === undefined ? { traceparent } : { traceparent, tracestate };
  }

  verified(): void {
    this.span.addEvent('verified');
  }

  stored(): void {
    this.span.addEvent('stored');
  }

  end(record: DeliveryRecord): void {
    this.span.setAttributes(deliveryAttributes(record));
    if (record.status >= 400) {
      this.span.addEvent('refused', {
        'payment_webhooks.decision': record.decision,
        ...(record.reason === undefined
          ? {}
          : { 'payment_webhooks.reason': shortText(record.reason) }),
      });
    }
    // NOTE: as on HTTP server spans, a 4xx is the sender's fault and not an error of this side.
    if (record.status >= 500) {
      this.span.setStatus({ code: this.api.SpanStatusCode.ERROR, message: record.decision });
    }
    this.span.end();
  }
}

class RecordingAttemptSpan extends RecordingSpan implements AttemptSpan {
  end(outcome: string): void {
    this.span.setAttribute('payment_webhooks.outcome', outcome);
    this.span.end();
  }

  override fail(error: unknown): void {
    this.span.setAttribute('payment_webhooks.outcome', 'failed');
    super.fail(error);
  }
}

/**
 * The package's spans, made through `@opentelemetry/api` when it is installed and an SDK has
 * registered a tracer provider; otherwise every method returns undefined and costs a lookup.
 */
export class WebhookTracing {
  private api: OpenTelemetryApi | null | undefined;

  /** @param load how the API is loaded (`require` unless given). */
  constructor(private readonly load?: (id: string) => unknown) {}

  /**
   * Starts the span of a delivery (kind CONSUMER), at its receipt: a child of the request's
   * `traceparent` as the registered propagator reads it, else of the active context.
   * Undefined when nothing would record it.
   */
  delivery(delivery: TracedDelivery): DeliverySpan | undefined {
    const tracer = this.tracer();
    if (!tracer) {
      return undefined;
    }
    const api = this.api!;
    const active = api.context.active();
    const parent = api.propagation.extract(active, delivery.headers);
    // NOTE: parented on the sender's context, the span keeps the request's own span (an HTTP
    // server span) as a link, as the messaging conventions ask of a span that leaves its
    // ambient context.
    const ambient = parent === active ? undefined : api.trace.getSpanContext(active);
    // NOTE: CONSUMER: the conventions give the consuming side of a pushed message that kind
    // (CLIENT is for a receive the application pulls); SERVER would count the request twice
    // under the HTTP instrumentation's own SERVER span.
    const span = tracer.startSpan(
      `receive ${delivery.endpoint}`,
      {
        kind: api.SpanKind.CONSUMER,
        startTime: delivery.receivedAt,
        attributes: messagingAttributes('receive', delivery.endpoint),
        links: ambient && api.isSpanContextValid(ambient) ? [{ context: ambient }] : [],
      },
      parent,
    );
    return span.isRecording() ? new RecordingDeliverySpan(api, span) : undefined;
  }

  /**
   * Starts the span of one handler attempt (kind CONSUMER): a child of the trace context stored
   * with the event, linked to it as well; the root of a trace of its own when none was stored.
   * Undefined when nothing would record it.
   */
  attempt(stored: TraceParent | undefined, attempt: TracedAttempt): AttemptSpan | undefined {
    const tracer = this.tracer();
    if (!tracer) {
      return undefined;
    }
    const api = this.api!;
    const creation: SpanContext | undefined = stored && {
      traceId: stored.traceId,
      spanId: stored.spanId,
      traceFlags: stored.traceFlags,
      isRemote: true,
      ...(stored.traceState ? { traceState: api.createTraceState(stored.traceState) } : {}),
    };
    // NOTE: never the active context: the worker's own (a delivery that woke it, a job) is not
    // the event's.
    const parent = creation
      ? api.trace.setSpanContext(api.ROOT_CONTEXT, creation)
      : api.ROOT_CONTEXT;
    const span = tracer.startSpan(
      `process ${attempt.endpoint}`,
      {
        kind: api.SpanKind.CONSUMER,
        attributes: attemptAttributes(attempt),
        links: creation ? [{ context: creation }] : [],
      },
      parent,
    );
    return span.isRecording() ? new RecordingAttemptSpan(api, span) : undefined;
  }

  /** The tracer of the registered SDK; undefined without the API or without an SDK. */
  private tracer(): Tracer | undefined {
    if (this.api === undefined) {
      this.api = loadOpenTelemetry(this.load);
    }
    if (this.api === null) {
      return undefined;
    }
    const provider: TracerProvider & Partial<Pick<ProxyTracerProvider, 'getDelegateTracer'>> =
      this.api.trace.getTracerProvider();
    // NOTE: until an SDK registers one, the global provider is the API's proxy without a
    // delegate: asking for the delegate's tracer allocates nothing, where the proxy's own tracer
    // would make a no-op span per delivery. Asked each time, so an SDK registered later counts.
    return provider.getDelegateTracer
      ? provider.getDelegateTracer(TRACER_NAME)
      : provider.getTracer(TRACER_NAME);
  }
}

/** The tracing every engine uses: the API is loaded at the first delivery, once per process. */
export const webhookTracing = new WebhookTracing();

function messagingAttributes(operation: 'receive' | 'process', endpoint: string): Attributes {
  return {
    'messaging.system': MESSAGING_SYSTEM,
    'messaging.operation.type': operation,
    'messaging.operation.name': operation,
    'messaging.destination.name': endpoint,
  };
}

function deliveryAttributes(record: DeliveryRecord): Attributes {
  const ids = record.eventIds ?? [];
  return {
    'payment_webhooks.decision': record.decision,
    'http.response.status_code': record.status,
    ...(record.provider === undefined ? {} : { 'payment_webhooks.provider': record.provider }),
    ...(record.tenant === undefined ? {} : { 'payment_webhooks.tenant': record.tenant }),
    ...(ids.length === 1 ? { 'messaging.message.id': safeText(ids[0]) } : {}),
    ...(ids.length > 1 ? { 'messaging.batch.message_count': ids.length } : {}),
  };
}

function attemptAttributes(attempt: TracedAttempt): Attributes {
  return {
    ...messagingAttributes('process', attempt.endpoint),
    'messaging.message.id': safeText(attempt.eventId),
    'payment_webhooks.provider': attempt.provider,
    'payment_webhooks.inbox_id': attempt.inboxId,
    'payment_webhooks.event_type': attempt.type,
    'payment_webhooks.handler': attempt.handler,
    'payment_webhooks.attempt': attempt.attempt,
    ...(attempt.tenant === null ? {} : { 'payment_webhooks.tenant': attempt.tenant }),
  };
}
