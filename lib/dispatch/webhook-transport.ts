import type { InboxWorker } from '../store/ports';
import type { Clock } from './clock';
import type { DispatchSettings } from './dispatch-settings';
import type { DispatchLogger } from './dispatch-logger';
import type { LocalInsertSignal } from './inbox-wakeups';
import type { EventLease } from './webhook-event.processor';
import type { Settlement } from './settlement';
import type { InboxEvent } from '../store/ports/inbox-event';

/** How one claimed event runs: what a transport calls for each event it was handed. */
export interface ClaimedEventProcessor {
  /**
   * Runs the handlers of a claimed event and settles it; resolves once it is settled, with the
   * settlement (`retrying` or `dead` for a failed attempt), or with nothing when the event was
   * given back to the inbox unsettled.
   */
  process(claimed: InboxEvent, lease: EventLease): Promise<Settlement | void>;
}

/** What a transport is opened with: the inbox's worker side and how one event is processed. */
export interface WebhookTransportContext {
  readonly worker: InboxWorker;
  readonly processor: ClaimedEventProcessor;
  /** Fires when this process stored an event. */
  readonly signal: LocalInsertSignal;
  readonly options: DispatchSettings;
  /** The inbox's database, which decides whether a transport can share it over processes. */
  readonly database: 'postgres' | 'sqlite';
  readonly logger: DispatchLogger;
  readonly clock: Clock;
}

/** Job counts of a broker's queue, by state. */
export interface WebhookQueueCounts {
  readonly waiting: number;
  readonly active: number;
  readonly delayed: number;
  readonly failed: number;
  readonly completed: number;
}

/** What a transport reports to health checks and metrics. */
export interface WebhookTransportStatus {
  /** The transport's kind, such as `bullmq`. */
  readonly kind: string;
  /** The queue's name. */
  readonly queue: string;
  /** Whether the broker answered. */
  readonly up: boolean;
  /** Why it did not. */
  readonly error?: string;
  /** The queue's job counts, when the broker answered. */
  readonly counts?: WebhookQueueCounts;
}

/** A transport at work in one process: started with the engine, stopped before it closes. */
export interface OpenWebhookTransport {
  /** Where this process's part of the work goes, for the startup summary. */
  readonly description: string;
  start(): Promise<void>;
  /** Stops taking work and lets running handlers finish (up to `dispatch.shutdownTimeoutMs`). */
  stop(): Promise<void>;
  /** Closes the broker connections the transport opened itself. */
  close(): Promise<void>;
  /** Asks the broker how it is; never throws. */
  status(): Promise<WebhookTransportStatus>;
  /** Observes how long each job waited in the queue before a worker took it, in ms. */
  onWait(listener: (queue: string, waitedMs: number) => void): () => void;
}

/**
 * Where claimed events run when not in this process's claim loop: a broker such as BullMQ
 * carries their ids to worker processes, while the inbox and the handler ledger stay the
 * source of truth. Made by a factory such as `bullmqTransport()` from
 * `nestjs-payment-webhooks/bullmq`, and given as `dispatch.transport`.
 */
export interface WebhookTransport {
  /** The transport's kind, such as `bullmq`. */
  readonly kind: string;
  /**
   * Opens the transport over the inbox.
   * @throws WebhookConfigurationError when it cannot run on this inbox or these options.
   */
  open(context: WebhookTransportContext): OpenWebhookTransport;
}
