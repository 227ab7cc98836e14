import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { InboxSignal } from '../store/inbox-signal';
import type { ReplayJob } from '../store/ports/event-history';
import { InboxQueries } from '../store/ports/inbox-queries.port';
import { SafeLogger } from '../telemetry/safe-logger';

/** How the replays in the background are run. */
export interface ReplayJobSettings {
  /** How often an idle instance looks for a replay to run (or carry on). */
  readonly pollMs: number;
  /** How long a batch's holder keeps a replay before another instance may carry it on. */
  readonly leaseMs: number;
  /** Most events one batch puts back. */
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
 * transaction, keeping to its rate, stopping at once when it is canceled. A replay whose
 * instance stopped or died is carried on by another, from its cursor, once its lease runs out
 * (at once after a clean stop).
 */
export class ReplayJobRunner {
  /** Identifies this instance's leases. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new SafeLogger('WebhookReplays');
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopping = false;

  constructor(
    private readonly queries: InboxQueries,
    private readonly signal: InboxSignal,
    private readonly settings: ReplayJobSettings = REPLAY_JOB_SETTINGS,
  ) {}

  /** Looks for replays to run every `pollMs`, and at once. */
  start(): void {
    this.stopping = false;
    if (!this.timer) {
      this.timer = setInterval(() => this.kick(), this.settings.pollMs);
      this.timer.unref();
    }
    this.kick();
  }

  /** Looks for a replay to run now (one was just started here). */
  kick(): void {
    if (this.stopping || this.running) {
      return;
    }
    this.running = this.runAll().finally(() => {
      this.running = undefined;
    });
  }

  /** Stops after the batch in progress and gives its replay back, for any instance to carry on. */
  async stop(): Promise<void> {
    this.stopping = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private async runAll(): Promise<void> {
    try {
      for (;;) {
        if (this.stopping) {
          return;
        }
        const job = await this.queries.claimReplayJob(this.holder, this.settings.leaseMs);
        if (!job) {
          return;
        }
        if (!(await this.run(job))) {
          // NOTE: a batch failed; the replay is tried again at the next poll, not at once.
          return;
        }
      }
    } catch (error) {
      this.logger.warn(`Looking for replays to run failed: ${describe(error)}`);
    }
  }

  /** Runs a replay until it ends, is canceled or this instance stops; false when a batch failed. */
  private async run(job: ReplayJob): Promise<boolean> {
    const limit = Math.max(1, Math.min(this.settings.batch, job.ratePerSecond ?? Infinity));
    try {
      for (;;) {
        if (this.stopping) {
          await this.queries.releaseReplayJob(job.id, this.holder, null);
          return true;
        }
        const started = Date.now();
        const batch = await this.queries.runReplayBatch(
          job.id,
          this.holder,
          limit,
          this.settings.leaseMs,
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
        if (job.ratePerSecond !== null) {
          await this.wait((limit / job.ratePerSecond) * 1000 - (Date.now() - started));
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

  /** Waits `ms`, less when stopped meanwhile. */
  private wait(ms: number): Promise<void> {
    if (ms <= 0) {
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const step = Math.min(ms, 250);
      let left = ms;
      const tick = () => {
        left -= step;
        if (left <= 0 || this.stopping) {
          resolve();
        } else {
          setTimeout(tick, Math.min(step, left)).unref();
        }
      };
      setTimeout(tick, step).unref();
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
