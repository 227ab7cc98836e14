import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import type {
  RegisteredWebhookHandler,
  WebhookHandlerRegistry,
} from '../handlers/webhook-handler.registry';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { BackfillFailure, BackfillJob, BackfillJobs } from '../store/ports/backfill-jobs.port';
import type { InboxEvent } from '../store/ports/inbox-event';
import { DispatchPauses } from '../dispatch/dispatch-pauses';
import { errorClassOf, errorFingerprint, readableError } from '../dispatch/error-fingerprint';
import type { HandlerRuns } from '../dispatch/handler-runs';
import { JobPoller } from '../replay/job-poller';
import { ReplayPace } from '../replay/replay-pace';
import { SafeLogger } from '../telemetry/safe-logger';
import { endpointOfEvent } from '../tenants/tenant-endpoint';

/** How the backfills are run. */
export interface BackfillJobSettings {
  /** How often an idle instance looks for a backfill to run (or carry on). */
  readonly pollMs: number;
  /** How long a run's holder keeps a backfill before another instance may carry it on. */
  readonly leaseMs: number;
  /** Most events read at once (a backfill with a rate reads fewer: see `ReplayPace`). */
  readonly batch: number;
  /** A backfill whose handler throws on this many events in a row fails: the handler is broken. */
  readonly failuresInRow: number;
}

export const BACKFILL_JOB_SETTINGS: BackfillJobSettings = {
  pollMs: 1_000,
  leaseMs: 30_000,
  batch: 100,
  failuresInRow: 50,
};

/** Where a backfill's batch left it. */
type BatchEnd = 'more' | 'finished' | 'stopped' | 'held' | 'failed';

/**
 * Runs the backfills (`WebhookBackfills.start()`, `events backfill`) on an instance that has
 * their handler: event by event, oldest first, each run in one transaction with its ledger row,
 * a `backfill` row in the event's history and the backfill's cursor, so a backfill carried on
 * after a crash, by this or another instance, runs the handler once per event. Only that handler
 * runs, and the events keep their status. A pause holding the handler on an event's endpoint
 * stops the backfill there until it is lifted; a handler that throws on too many events in a row
 * fails it.
 */
export class BackfillJobRunner {
  /** Identifies this instance's leases and its history rows. */
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new SafeLogger('WebhookBackfill');
  private readonly poller: JobPoller;

  constructor(
    private readonly jobs: BackfillJobs | undefined,
    private readonly registry: WebhookHandlerRegistry,
    private readonly endpoints: ReadonlyMap<string, WebhookEndpoint>,
    private readonly runs: HandlerRuns,
    private readonly pauses: DispatchPauses,
    private readonly settings: BackfillJobSettings = BACKFILL_JOB_SETTINGS,
  ) {
    this.poller = new JobPoller(settings.pollMs, (stopped) => this.runAll(jobs!, stopped));
  }

  /** Looks for backfills of this instance's handlers every `pollMs`, and at once. */
  start(): void {
    if (this.jobs) {
      this.poller.start();
    }
  }

  /** Looks for a backfill to run now (one was just started), once this instance runs handlers. */
  kick(): void {
    if (this.jobs && this.poller.started) {
      this.poller.kick();
    }
  }

  /** Stops after the run in progress and gives its backfill back, for any instance to carry on. */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  private async runAll(jobs: BackfillJobs, stopped: AbortSignal): Promise<void> {
    try {
      for (;;) {
        if (stopped.aborted) {
          return;
        }
        const job = await jobs.claimBackfillJob(
          this.holder,
          this.settings.leaseMs,
          this.registry.keys(),
        );
        if (!job) {
          return;
        }
        if (!(await this.run(jobs, job, stopped))) {
          // NOTE: held by a pause, or a batch failed: looked at again at the next poll.
          return;
        }
      }
    } catch (error) {
      this.logger.warn(`Looking for backfills to run failed: ${describe(error)}`);
    }
  }

  /** Runs a backfill until it ends, is canceled, or this instance stops; false to wait for the next poll. */
  private async run(jobs: BackfillJobs, job: BackfillJob, stopped: AbortSignal): Promise<boolean> {
    const pace =
      job.ratePerSecond === null
        ? null
        : new ReplayPace(job.ratePerSecond, {
            maxBatch: this.settings.batch,
            lastBatchAt: job.passed > 0 ? job.updatedAt : undefined,
          });
    const streak = { failures: 0 };
    try {
      for (;;) {
        if (pace) {
          await pace.next(stopped);
        }
        if (stopped.aborted) {
          await jobs.releaseBackfillJob(job.id, this.holder, null);
          return true;
        }
        const limit = pace?.batch ?? this.settings.batch;
        const end = await this.batch(jobs, job, limit, streak, stopped);
        if (end === 'finished') {
          this.logger.log(
            `Backfill ${job.id} of ${job.handler} is done${job.dryRun ? ' (dry run)' : ''}`,
          );
        }
        if (end !== 'more') {
          return end !== 'held';
        }
      }
    } catch (error) {
      this.logger.warn(`A batch of backfill ${job.id} failed (tried again): ${describe(error)}`);
      await jobs.releaseBackfillJob(job.id, this.holder, describe(error)).catch(() => undefined);
      return false;
    }
  }

  /** Passes the next `limit` events of a backfill, running its handler on those it takes. */
  private async batch(
    jobs: BackfillJobs,
    job: BackfillJob,
    limit: number,
    streak: { failures: number },
    stopped: AbortSignal,
  ): Promise<BatchEnd> {
    const { leaseMs } = this.settings;
    const events = await jobs.nextBackfilled(job.id, this.holder, limit);
    const last = events.length < limit;
    /** Events passed since the cursor last moved, and those a dry run would run on. */
    let passed = 0;
    let through: InboxEvent | undefined;
    let wouldRun = 0;
    for (const event of events) {
      if (stopped.aborted) {
        break;
      }
      const handler = this.registry.match(event).find((match) => match.key === job.handler);
      if (handler && (await this.pauses.held(event.endpoint, [handler.key])).size > 0) {
        await this.flush(jobs, job, { passed, through, wouldRun }, false);
        await jobs.releaseBackfillJob(
          job.id,
          this.holder,
          `waiting: dispatch of ${job.handler} is paused on "${event.endpoint}"`,
        );
        return 'held';
      }
      passed += 1;
      through = event;
      if (!handler) {
        continue;
      }
      if (job.dryRun) {
        wouldRun += 1;
        continue;
      }
      const ran = await this.runOne(jobs, job, event, handler, passed);
      if (ran === 'stopped') {
        return 'stopped';
      }
      if (ran === 'ran') {
        streak.failures = 0;
        passed = 0;
        continue;
      }
      if (ran !== 'already_done') {
        streak.failures += 1;
        const state = await jobs.advanceBackfill(
          job.id,
          this.holder,
          { through: event, passed, failed: [ran] },
          leaseMs,
          false,
        );
        passed = 0;
        if (state !== 'running') {
          return 'stopped';
        }
        if (streak.failures >= this.settings.failuresInRow) {
          await jobs.failBackfillJob(
            job.id,
            this.holder,
            `${job.handler} threw on ${streak.failures} events in a row; the last: ${ran.error.split('\n')[0]}`,
          );
          this.logger.warn(
            `Backfill ${job.id} failed: ${job.handler} threw on ${streak.failures} events in a row`,
          );
          return 'failed';
        }
      }
    }
    if (stopped.aborted) {
      await this.flush(jobs, job, { passed, through, wouldRun }, false);
      return 'more';
    }
    const state = await this.flush(jobs, job, { passed, through, wouldRun }, last);
    if (state !== 'running' && state !== 'done') {
      return 'stopped';
    }
    return last ? 'finished' : 'more';
  }

  /** Moves the cursor over the events passed without a run (or a dry run's); `done` with `finished`. */
  private async flush(
    jobs: BackfillJobs,
    job: BackfillJob,
    pending: { passed: number; through: InboxEvent | undefined; wouldRun: number },
    finished: boolean,
  ): Promise<string> {
    const { passed, through, wouldRun } = pending;
    if (passed === 0 && !finished) {
      return 'running';
    }
    return jobs.advanceBackfill(
      job.id,
      this.holder,
      { through, passed, ran: wouldRun },
      this.settings.leaseMs,
      finished,
    );
  }

  /** Runs the backfill's handler on one event; what it threw, for the event's history. */
  private async runOne(
    jobs: BackfillJobs,
    job: BackfillJob,
    event: InboxEvent,
    handler: RegisteredWebhookHandler,
    passed: number,
  ): Promise<'ran' | 'already_done' | 'stopped' | BackfillFailure> {
    let stopped = false;
    const startedAt = new Date();
    try {
      const endpoint = await endpointOfEvent(this.endpoints, event);
      const outcome = await this.runs.runAlone(
        {
          entity: event,
          endpoint,
          attempt: 1,
          handlers: [handler],
          verified: null,
          workerId: this.holder,
          released: () => false,
          runHandler: async (_id, _key, _attempt, work) => {
            const ran = await jobs.runBackfilled(
              job.id,
              this.holder,
              event,
              passed,
              this.settings.leaseMs,
              work,
            );
            if (ran === 'lost' || ran === 'canceled') {
              stopped = true;
              return 'already_done';
            }
            return ran;
          },
        },
        handler,
      );
      if (stopped) {
        return 'stopped';
      }
      return outcome === 'already_done' ? 'already_done' : 'ran';
    } catch (error) {
      return {
        eventId: event.id,
        startedAt,
        finishedAt: new Date(),
        errorClass: errorClassOf(error),
        error: readableError(error),
        fingerprint: errorFingerprint(error),
        worker: this.holder,
      };
    }
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
