import type { JobsOptions } from 'bullmq';
import { describeError } from '../dispatch/handler-failure';
import type { DispatchLogger } from '../dispatch/dispatch-logger';
import type { WorkQueue } from '../store/ports';
import type { ExpiredLease } from '../store/ports/inbox-worker.port';
import { WEBHOOK_JOB_NAME, WebhookJobData, webhookJobId } from './webhook-job';

/** The part of a BullMQ `Queue` the relay and the sweeper use. */
export interface RelayQueue {
  readonly name: string;
  add(name: string, data: WebhookJobData, opts: JobsOptions): Promise<unknown>;
  addBulk(jobs: { name: string; data: WebhookJobData; opts: JobsOptions }[]): Promise<unknown[]>;
  getJobState(jobId: string): Promise<string>;
  remove(jobId: string): Promise<number>;
}

/** States in which a job is still on its way to a worker, or running on one. */
const LIVE_STATES = new Set([
  'waiting',
  'wait',
  'delayed',
  'prioritized',
  'active',
  'waiting-children',
]);

/** Most expired leases looked at in one sweep. */
const SWEEP_LIMIT = 500;

/** What one sweep did. */
export interface SweepResult {
  /** Events whose job was still queued or running: their lease was renewed. */
  readonly renewed: number;
  /** Events whose job had vanished (or ended without settling them): added again. */
  readonly readded: number;
  /** Events a worker held when its lease ran out: handed out again as their next attempt. */
  readonly reclaimed: number;
}

/**
 * Keeps the queue honest with the inbox, which stays the source of truth. An event handed to
 * the queue is held by the relay (`holder`) for `redeliverAfterMs`; once that runs out the
 * sweeper asks Redis for its job: still queued or running, the lease is renewed; gone (a
 * flush, an eviction, a failover) or ended, the job is added again. An event whose worker died
 * holding it is handed out again as its next attempt, as the in-process worker does.
 */
export class QueueSweeper {
  constructor(
    private readonly worker: Pick<WorkQueue, 'expiredLeases' | 'handOver'>,
    private readonly queue: RelayQueue,
    private readonly holder: string,
    private readonly redeliverAfterMs: number,
    private readonly jobOptions: JobsOptions,
    private readonly logger: DispatchLogger,
  ) {}

  async sweep(now: Date): Promise<SweepResult> {
    const expired = await this.worker.expiredLeases(now, SWEEP_LIMIT);
    let renewed = 0;
    let readded = 0;
    let reclaimed = 0;
    for (const lease of expired) {
      try {
        const done = await this.check(lease, now);
        renewed += done === 'renewed' ? 1 : 0;
        readded += done === 'readded' ? 1 : 0;
        reclaimed += done === 'reclaimed' ? 1 : 0;
      } catch (error) {
        this.logger.warn(
          `Checking the job of event ${lease.id} (attempt ${lease.attempt}) failed; ` +
            `checked again at the next sweep: ${describeError(error)}`,
        );
      }
    }
    if (readded + reclaimed > 0) {
      this.logger.warn(
        `Queue "${this.queue.name}": added ${readded} vanished job(s) again and handed out ` +
          `${reclaimed} event(s) whose worker stopped holding them`,
      );
    }
    return { renewed, readded, reclaimed };
  }

  private async check(
    lease: ExpiredLease,
    now: Date,
  ): Promise<'renewed' | 'readded' | 'reclaimed' | 'moved'> {
    if (lease.lockedBy !== this.holder) {
      // NOTE: a worker took the job and stopped renewing: it died, or its job failed. The
      // handlers it committed are in the ledger; the next attempt runs the rest.
      if (!(await this.worker.handOver(lease, this.holder, this.redeliverAfterMs, now, true))) {
        return 'moved';
      }
      await this.add(lease, lease.attempt + 1);
      return 'reclaimed';
    }
    const jobId = webhookJobId(lease.id, lease.attempt, lease.dueAt);
    const state = await this.queue.getJobState(jobId);
    if (!(await this.worker.handOver(lease, this.holder, this.redeliverAfterMs, now, false))) {
      return 'moved';
    }
    if (LIVE_STATES.has(state)) {
      return 'renewed';
    }
    if (state !== 'unknown') {
      // NOTE: completed or failed without settling the event: a job of the same id would
      // not be added again while this one is kept.
      await this.queue.remove(jobId);
    }
    await this.add(lease, lease.attempt);
    return 'readded';
  }

  private add(lease: ExpiredLease, attempt: number): Promise<unknown> {
    return this.queue.add(
      WEBHOOK_JOB_NAME,
      { event: lease.id, attempt },
      { ...this.jobOptions, jobId: webhookJobId(lease.id, attempt, lease.dueAt) },
    );
  }
}
