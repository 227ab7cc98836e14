import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { InboxSignal } from '../store/work/inbox-signal';
import type { ReplayJob } from '../store/ports/replay-jobs.port';
import type { ReplayJobs } from '../store/ports/replay-jobs.port';
import { SafeLogger } from '../telemetry/safe-logger';
import { JobPoller } from './job-poller';
import { ReplayPace } from './replay-pace';

/** How the replays in the background are run. */
export interface ReplayJobSettings {
  /** How often an idle instance looks for a replay to run (or carry on). */
  readonly pollMs: number;
  /** How long a batch's holder keeps a replay before another instance may carry it on. */
  readonly leaseMs: number;
  /** Most events one batch puts back (a replay with a rate puts back fewer: see `ReplayPace`). */
  readonly batch: number;
}

export const REPLAY_JOB_SETTINGS: ReplayJobSettings = {
  pollMs: 1_000,
  leaseMs: 15_000,
  batch: 500,
};

/**
 * Runs the replays started in the background (`WebhookAdmin.startReplay()`) on whichever
 * instance takes one first: batch by batch, each moving the replay's cursor in its own
 * transaction, keeping to its rate (see {@link ReplayPace}), stopping at once when it is
 * canceled. A replay whose instance stopped or died is carried on by another, from its cursor
 * and at its rate, once its lease runs out (at once after a clean stop).
 */
export class ReplayJobRunner {
  /** Identifies this instance's leases. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new SafeLogger('WebhookReplays');
  /** Its stop aborts the look under way: a batch waiting for its turn stops waiting. */
  private readonly poller: JobPoller;

  constructor(
    private readonly queries: Pick<
      ReplayJobs,
      'claimReplayJob' | 'releaseReplayJob' | 'runReplayBatch'
    >,
    private readonly signal: InboxSignal,
    private readonly settings: ReplayJobSettings = REPLAY_JOB_SETTINGS,
  ) {
    this.poller = new JobPoller(settings.pollMs, (stopped) => this.runAll(stopped));
  }

  /** Looks for replays to run every `pollMs`, and at once. */
  start(): void {
    this.poller.start();
  }

  /** Looks for a replay to run now (one was just started here). */
  kick(): void {
    this.poller.kick();
  }

  /** Stops after the batch in progress and gives its replay back, for any instance to carry on. */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  private async runAll(stopped: AbortSignal): Promise<void> {
    try {
      for (;;) {
        if (stopped.aborted) {
          return;
        }
        const job = await this.queries.claimReplayJob(this.holder, this.settings.leaseMs);
        if (!job) {
          return;
        }
        if (!(await this.run(job, stopped))) {
          // NOTE: a batch failed; the replay is tried again at the next poll, not at once.
          return;
        }
      }
    } catch (error) {
      this.logger.warn(`Looking for replays to run failed: ${describe(error)}`);
    }
  }

  /** Runs a replay until it ends, is canceled or this instance stops; false when a batch failed. */
  private async run(job: ReplayJob, stopped: AbortSignal): Promise<boolean> {
    const pace = this.paceOf(job);
    const limit = pace?.batch ?? this.settings.batch;
    try {
      for (;;) {
        const at = pace ? await pace.next(stopped) : undefined;
        if (stopped.aborted) {
          await this.queries.releaseReplayJob(job.id, this.holder, null);
          return true;
        }
        const batch = await this.queries.runReplayBatch(
          job.id,
          this.holder,
          limit,
          this.settings.leaseMs,
          at ?? undefined,
        );
        if (batch.replayed > 0) {
          this.signal.notify();
        }
        if (batch.status !== 'running') {
          if (batch.status === 'done' || batch.status === 'canceled') {
            this.logger.log(`Replay ${job.id} is ${batch.status}`);
          }
          return true;
        }
      }
    } catch (error) {
      this.logger.warn(`A batch of replay ${job.id} failed (tried again): ${describe(error)}`);
      await this.queries
        .releaseReplayJob(job.id, this.holder, describe(error))
        .catch(() => undefined);
      return false;
    }
  }

  /**
   * The pace of a replay with a rate; one carried on from another instance (or from before a
   * restart) waits its turn after the batch recorded there last.
   */
  private paceOf(job: ReplayJob): ReplayPace | null {
    if (job.ratePerSecond === null) {
      return null;
    }
    return new ReplayPace(job.ratePerSecond, {
      maxBatch: this.settings.batch,
      lastBatchAt: job.replayed > 0 ? job.updatedAt : undefined,
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
