import type { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { OpenWebhookTransport } from '../dispatch/webhook-transport';
import { InboxSampler, SAMPLED_STATUSES } from './inbox-sampler';
import { PromClient } from './prom-client.loader';

const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const DURATION_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const SETTLE_BUCKETS = [0.05, 0.25, 1, 5, 15, 60, 300, 900, 3600, 10_800, 43_200, 86_400];
const PER_PAYMENT_BUCKETS = [1, 2, 3, 4, 5, 7, 10, 15, 20, 30, 50, 100];
const QUEUE_WAIT_BUCKETS = [0.005, 0.025, 0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600];
const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed', 'completed'] as const;

/** Every metric's name, without the prefix. */
export const METRIC_NAMES = [
  'deliveries_total',
  'ack_latency_seconds',
  'events_settled_total',
  'processing_duration_seconds',
  'handler_failures_total',
  'retries_total',
  'dead_letters_total',
  'time_to_settle_seconds',
  'events_per_payment',
  'inbox_depth',
  'oldest_pending_age_seconds',
  'last_delivery_age_seconds',
  'database_up',
  'dispatch_paused',
] as const;

/** The names of the metrics a transport adds (`dispatch.transport`), without the prefix. */
export const TRANSPORT_METRIC_NAMES = ['queue_jobs', 'queue_wait_seconds', 'queue_up'] as const;

export type MetricName = (typeof METRIC_NAMES)[number] | (typeof TRANSPORT_METRIC_NAMES)[number];

type EventLabels = 'endpoint' | 'provider' | 'type';

/** The metrics, once registered. */
export interface WebhookMetricSet {
  deliveries: Counter<'endpoint' | 'provider' | 'decision'>;
  ackLatency: Histogram<'endpoint' | 'provider' | 'decision'>;
  settled: Counter<EventLabels | 'status'>;
  processingDuration: Histogram<EventLabels | 'outcome'>;
  handlerFailures: Counter<EventLabels | 'handler'>;
  retries: Counter<EventLabels>;
  deadLetters: Counter<EventLabels>;
  timeToSettle: Histogram<'endpoint' | 'provider' | 'status'>;
  eventsPerPayment: Histogram<'endpoint' | 'provider'>;
  inboxDepth: Gauge<'endpoint' | 'status'>;
  oldestPendingAge: Gauge<'endpoint'>;
  lastDeliveryAge: Gauge<'endpoint'>;
  databaseUp: Gauge<string>;
  dispatchPaused: Gauge<'endpoint' | 'handler'>;
  /** With a transport. */
  queueJobs?: Gauge<'queue' | 'state'>;
  queueUp?: Gauge<'queue'>;
  queueWait?: Histogram<'queue'>;
}

/** Gives a metric its prefixed name and the registry it goes in. */
export type MetricNaming = <T extends { name: MetricName }>(
  config: T,
) => T & { registers: Registry[] };

/** The counters and histograms, which follow the telemetry stream. */
export function eventMetrics(prom: PromClient, named: MetricNaming) {
  return {
    deliveries: new prom.Counter(
      named({
        name: 'deliveries_total',
        help: 'Webhook deliveries by decision: accepted, duplicate, ignored, skipped, rejected_signature, rejected_timestamp, rejected_ip, unconfirmed, api_budget_spent, invalid, too_large, body_timeout, unknown_endpoint, unknown_tenant, tenant_unavailable, method_not_allowed, store_failed.',
        labelNames: ['endpoint', 'provider', 'decision'] as const,
      }),
    ),
    ackLatency: new prom.Histogram(
      named({
        name: 'ack_latency_seconds',
        help: 'Time from receiving a delivery to deciding its answer (after the commit when stored).',
        labelNames: ['endpoint', 'provider', 'decision'] as const,
        buckets: LATENCY_BUCKETS,
      }),
    ),
    settled: new prom.Counter(
      named({
        name: 'events_settled_total',
        help: 'Processing attempts by the status they left the event in: processed, ignored, retrying, dead.',
        labelNames: ['endpoint', 'provider', 'type', 'status'] as const,
      }),
    ),
    processingDuration: new prom.Histogram(
      named({
        name: 'processing_duration_seconds',
        help: 'Duration of one handler run, by outcome: ran, already_done, failed, or the outcome the handler reported.',
        labelNames: ['endpoint', 'provider', 'type', 'outcome'] as const,
        buckets: DURATION_BUCKETS,
      }),
    ),
    handlerFailures: new prom.Counter(
      named({
        name: 'handler_failures_total',
        help: 'Handler runs that threw.',
        labelNames: ['endpoint', 'provider', 'type', 'handler'] as const,
      }),
    ),
    retries: new prom.Counter(
      named({
        name: 'retries_total',
        help: 'Events scheduled for another attempt after a failure.',
        labelNames: ['endpoint', 'provider', 'type'] as const,
      }),
    ),
    deadLetters: new prom.Counter(
      named({
        name: 'dead_letters_total',
        help: 'Events moved to the dead-letter state.',
        labelNames: ['endpoint', 'provider', 'type'] as const,
      }),
    ),
    timeToSettle: new prom.Histogram(
      named({
        name: 'time_to_settle_seconds',
        help: 'Time from the first receipt of an event to its settlement, by the status it settled in.',
        labelNames: ['endpoint', 'provider', 'status'] as const,
        buckets: SETTLE_BUCKETS,
      }),
    ),
    eventsPerPayment: new prom.Histogram(
      named({
        name: 'events_per_payment',
        help: 'Events stored for a payment (per endpoint), observed each time a new event of the payment is stored.',
        labelNames: ['endpoint', 'provider'] as const,
        buckets: PER_PAYMENT_BUCKETS,
      }),
    ),
  };
}

/**
 * The gauges read from the inbox when scraped, through the sampler's cached sample.
 * @param configured the configured endpoint names, each reported even when it has no event
 */
export function inboxGauges(
  prom: PromClient,
  named: MetricNaming,
  sampler: InboxSampler,
  configured: readonly string[],
) {
  const inboxDepth: Gauge<'endpoint' | 'status'> = new prom.Gauge(
    named({
      name: 'inbox_depth',
      help: 'Events in the inbox per endpoint and status (pending, processing, retrying, dead), sampled from the database.',
      labelNames: ['endpoint', 'status'] as const,
      async collect() {
        const sample = await sampler.sample();
        inboxDepth.reset();
        for (const [endpoint, counts] of sample.depth) {
          for (const status of SAMPLED_STATUSES) {
            inboxDepth.set({ endpoint, status }, counts[status]);
          }
        }
      },
    }),
  );
  const oldestPendingAge: Gauge<'endpoint'> = new prom.Gauge(
    named({
      name: 'oldest_pending_age_seconds',
      help: 'Age of the oldest event waiting for its first run (status pending) per endpoint; 0 when none waits.',
      labelNames: ['endpoint'] as const,
      async collect() {
        const sample = await sampler.sample();
        const now = Date.now();
        oldestPendingAge.reset();
        for (const endpoint of new Set([...configured, ...sample.oldestPendingAt.keys()])) {
          const at = sample.oldestPendingAt.get(endpoint);
          oldestPendingAge.set({ endpoint }, at ? Math.max(0, (now - at.getTime()) / 1000) : 0);
        }
      },
    }),
  );
  const lastDeliveryAge: Gauge<'endpoint'> = new prom.Gauge(
    named({
      name: 'last_delivery_age_seconds',
      help: 'Seconds since the last acknowledged delivery per endpoint (since the process start when none is stored).',
      labelNames: ['endpoint'] as const,
      async collect() {
        await sampler.sample();
        const now = Date.now();
        lastDeliveryAge.reset();
        for (const endpoint of configured) {
          const at = sampler.lastDeliveryAt(endpoint) ?? sampler.startedAt;
          lastDeliveryAge.set({ endpoint }, Math.max(0, (now - at.getTime()) / 1000));
        }
      },
    }),
  );
  const databaseUp: Gauge<string> = new prom.Gauge(
    named({
      name: 'database_up',
      help: '1 when the last sample of the webhook inbox succeeded, 0 when the database could not be read.',
      async collect() {
        databaseUp.set((await sampler.sample()).databaseUp ? 1 : 0);
      },
    }),
  );
  const dispatchPaused: Gauge<'endpoint' | 'handler'> = new prom.Gauge(
    named({
      name: 'dispatch_paused',
      help: '1 for each pause of dispatch in force, by endpoint and handler (* for every one), sampled from the database.',
      labelNames: ['endpoint', 'handler'] as const,
      async collect() {
        const sample = await sampler.sample();
        dispatchPaused.reset();
        for (const pause of sample.paused) {
          dispatchPaused.set({ endpoint: pause.endpoint, handler: pause.handler }, 1);
        }
      },
    }),
  );
  return { inboxDepth, oldestPendingAge, lastDeliveryAge, databaseUp, dispatchPaused };
}

/**
 * The queue's metrics, with a transport: its job counts and whether its broker answered, read
 * when scraped, and how long the jobs this process ran waited in the queue.
 */
export function transportMetrics(
  prom: PromClient,
  named: MetricNaming,
  transport: Pick<OpenWebhookTransport, 'status'>,
) {
  const queueJobs: Gauge<'queue' | 'state'> = new prom.Gauge(
    named({
      name: 'queue_jobs',
      help: "Jobs in the transport's queue by state (waiting, active, delayed, failed, completed), read from the broker when scraped.",
      labelNames: ['queue', 'state'] as const,
      async collect() {
        const status = await transport.status();
        queueJobs.reset();
        for (const state of QUEUE_STATES) {
          const count = status.counts?.[state];
          if (count !== undefined) {
            queueJobs.set({ queue: status.queue, state }, count);
          }
        }
      },
    }),
  );
  const queueUp: Gauge<'queue'> = new prom.Gauge(
    named({
      name: 'queue_up',
      help: "1 when the transport's broker answered the last scrape, 0 when it did not.",
      labelNames: ['queue'] as const,
      async collect() {
        const status = await transport.status();
        queueUp.reset();
        queueUp.set({ queue: status.queue }, status.up ? 1 : 0);
      },
    }),
  );
  const queueWait: Histogram<'queue'> = new prom.Histogram(
    named({
      name: 'queue_wait_seconds',
      help: 'Time a job waited in the queue before a worker of this process took it (its queue lag).',
      labelNames: ['queue'] as const,
      buckets: QUEUE_WAIT_BUCKETS,
    }),
  );
  return { queueJobs, queueUp, queueWait };
}
