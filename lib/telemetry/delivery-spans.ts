import { parseTraceparent } from './trace-context';
import { DeliverySpan, TracedDelivery, webhookTracing, WebhookTracing } from './tracing';
import type { DeliveryRecord } from './webhook-telemetry';

/**
 * The spans of the deliveries an ingress is working on, each from the start of its verification
 * to its journal entry, by delivery (the object the adapter hands over, kept through `verify()`
 * and `commit()`).
 */
export class DeliverySpans {
  private readonly open = new WeakMap<TracedDelivery, DeliverySpan>();

  constructor(private readonly tracing: WebhookTracing = webhookTracing) {}

  /** Starts the span of a delivery about to be verified; undefined when nothing records it. */
  start(delivery: TracedDelivery): DeliverySpan | undefined {
    const span = this.tracing.delivery(delivery);
    if (span) {
      this.open.set(delivery, span);
    }
    return span;
  }

  /** The delivery's span, while it is open. */
  of(delivery: TracedDelivery): DeliverySpan | undefined {
    return this.open.get(delivery);
  }

  /**
   * Runs a step of a delivery with a span; a step that throws before the journal has ended the
   * span (every refusal is journaled first) ends it as failed.
   */
  async run<T>(delivery: TracedDelivery, step: () => Promise<T>): Promise<T> {
    const span = this.open.get(delivery);
    try {
      return await step();
    } catch (error) {
      if (span && this.open.get(delivery) === span) {
        this.open.delete(delivery);
        span.fail(error);
      }
      throw error;
    }
  }

  /**
   * Ends the delivery's span with its journal entry (for a delivery refused on its head alone,
   * one that has no span yet: started and ended here) and returns the delivery's trace id when
   * it is known: its span's, else the request's own `traceparent`'s.
   * @param verifying whether the delivery went through `start()`: then it has its span already,
   * or nothing records it.
   */
  finish(delivery: TracedDelivery, record: DeliveryRecord, verifying: boolean): string | undefined {
    const span =
      this.open.get(delivery) ?? (verifying ? undefined : this.tracing.delivery(delivery));
    this.open.delete(delivery);
    span?.end(record);
    return span?.traceId ?? parseTraceparent(delivery.headers.traceparent)?.traceId;
  }
}
