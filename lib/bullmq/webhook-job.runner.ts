import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Clock } from '../dispatch/clock';
import { DispatchLogger } from '../dispatch/dispatch-logger';
import { describeError } from '../dispatch/handler-failure';
import { EventLease } from '../dispatch/webhook-event.processor';
import { WebhookTransportContext } from '../dispatch/webhook-transport';
import { shortText } from '../telemetry/safe-text';
import type { WorkQueue } from '../store/ports';
import { FailedAttemptError } from './failed-attempt.error';
import { webhookJobData, WebhookJobLike } from './webhook-job';

/** What running one job came to. */
export type WebhookJobResult =
  /** The event was taken from the inbox and settled: processed or ignored. */
  | 'processed'
  /** The event was given back to the inbox unsettled; it runs again under a job of its own. */
  | 'released'
  /** Nothing to do: the event is settled, at a later attempt, or held by a live worker. */
  | 'stale';

/**
 * Runs webhook jobs: takes the event from the inbox with a lease (from the relay, or from a
 * holder whose lease ran out), processes it as the in-process worker does (each handler in the
 * transaction that writes its ledger row), and only then lets the job end: completed, or failed
 * with a {@link FailedAttemptError} once a failed attempt's `retrying` or `dead` is committed. A
 * job that runs twice (stalled, a Redis failover, a worker killed after its commit) finds the
 * event settled or the handler in the ledger, and does nothing again.
 */
export class WebhookJobRunner {
  /** Identifies this worker's leases. */
  readonly workerId = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;

  private readonly worker: Pick<WorkQueue, 'extendLease' | 'release' | 'takeOver'>;
  private readonly processor: WebhookTransportContext['processor'];
  private readonly logger: DispatchLogger;
  private readonly clock: Clock;
  private readonly leaseMs: number;
  private readonly held = new Set<string>();
  private readonly released = new Set<string>();
  private readonly lease: EventLease;
  private readonly waitListeners = new Set<(waitedMs: number) => void>();
  private readonly idleWaiters = new Set<() => void>();
  private runs = 0;
  private heartbeat?: NodeJS.Timeout;

  constructor(
    context: WebhookTransportContext,
    private readonly holder: string,
  ) {
    this.worker = context.worker;
    this.processor = context.processor;
    this.logger = context.logger;
    this.clock = context.clock;
    this.leaseMs = context.options.dispatch.leaseMs;
    this.lease = { workerId: this.workerId, released: (id) => this.released.has(id) };
  }

  /** Events this worker holds now. */
  get running(): number {
    return this.held.size;
  }

  /** Renews the leases of the held events every third of `dispatch.leaseMs`. */
  start(): void {
    this.released.clear();
    if (this.heartbeat) {
      return;
    }
    this.heartbeat = setInterval(
      () => void this.renewLeases(),
      Math.max(50, Math.floor(this.leaseMs / 3)),
    );
    this.heartbeat.unref();
  }

  /**
   * Runs one job to its end. Rejects with a {@link FailedAttemptError} when the attempt failed
   * (the event is committed `retrying` or `dead`; the inbox runs the next attempt under a job of
   * its own). Rejects too when the inbox could not be read or the event's state written; the
   * event, still held, is handed out again once its lease runs out.
   */
  async run(job: WebhookJobLike): Promise<WebhookJobResult> {
    this.runs += 1;
    try {
      return await this.take(job);
    } finally {
      this.runs -= 1;
      if (this.runs === 0) {
        this.idleWaiters.forEach((resolve) => resolve());
        this.idleWaiters.clear();
      }
    }
  }

  /** Resolves once no job runs here. */
  idle(): Promise<void> {
    if (this.runs === 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => this.idleWaiters.add(resolve));
  }

  private async take(job: WebhookJobLike): Promise<WebhookJobResult> {
    const { event: id, attempt } = webhookJobData(job);
    const startedAt = job.processedOn ?? this.clock.now().getTime();
    const waited = Math.max(0, startedAt - job.timestamp - (job.opts?.delay ?? 0));
    this.waitListeners.forEach((listener) => listener(waited));
    const event = await this.worker.takeOver(
      id,
      attempt,
      this.holder,
      this.workerId,
      this.leaseMs,
      this.clock.now(),
    );
    if (!event) {
      this.logger.debug(
        `Job ${shortText(job.id ?? id)}: event ${id} is not at attempt ${attempt} to run; ` +
          'nothing to do',
      );
      return 'stale';
    }
    this.held.add(id);
    let settled;
    try {
      settled = await this.processor.process(event, this.lease);
    } finally {
      this.held.delete(id);
    }
    if (!settled) {
      return 'released';
    }
    if (settled.status === 'retrying' || settled.status === 'dead') {
      throw new FailedAttemptError(event, attempt, settled);
    }
    return 'processed';
  }

  /** Calls `listener` with how long each job waited in the queue, in ms. */
  onWait(listener: (waitedMs: number) => void): () => void {
    this.waitListeners.add(listener);
    return () => this.waitListeners.delete(listener);
  }

  /** Gives the events still running back to the inbox (shutdown timed out), as their next attempt. */
  async releaseHeld(): Promise<void> {
    clearInterval(this.heartbeat);
    this.heartbeat = undefined;
    const held = [...this.held];
    held.forEach((id) => this.released.add(id));
    if (held.length === 0) {
      return;
    }
    this.logger.warn(`Giving ${held.length} unfinished event(s) back to the inbox on shutdown`);
    // NOTE: the attempt stays counted, so the next job has an id of its own, never that of
    // the job still marked active in Redis.
    await this.worker
      .release(held, this.workerId, this.clock.now(), { countAttempt: true })
      .catch((error: unknown) => {
        this.logger.error(`Could not release events on shutdown: ${describeError(error)}`);
      });
  }

  private async renewLeases(): Promise<void> {
    const held = [...this.held];
    if (held.length === 0) {
      return;
    }
    try {
      await this.worker.extendLease(held, this.workerId, this.leaseMs, this.clock.now());
    } catch (error) {
      this.logger.warn(`Renewing leases failed: ${describeError(error)}`);
    }
  }
}
