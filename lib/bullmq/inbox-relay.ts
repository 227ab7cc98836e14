import type { JobsOptions } from 'bullmq';
import { Clock } from '../dispatch/clock';
import { DispatchLogger } from '../dispatch/dispatch-logger';
import { describeError } from '../dispatch/handler-failure';
import { InboxWakeups } from '../dispatch/inbox-wakeups';
import { WebhookTransportContext } from '../dispatch/webhook-transport';
import type { WorkQueue } from '../store/ports';
import { QueueSweeper, RelayQueue } from './queue-sweeper';
import { WEBHOOK_JOB_NAME, webhookJobId } from './webhook-job';

/** How the relay hands events out. */
export interface RelaySettings {
  /** Who holds an event while its job is in the queue (`bullmq:<queue>`). */
  readonly holder: string;
  /** Most events claimed and added in one round. */
  readonly batch: number;
  /** How long a handed-out event is held before the sweeper checks its job. */
  readonly redeliverAfterMs: number;
  /** `attempts: 1` and job retention. */
  readonly jobOptions: JobsOptions;
}

/**
 * Moves due events from the inbox to the queue: claims them as the relay (`holder`), adds
 * one job per event and attempt carrying ids only, and leaves them held while their job waits.
 * Wakes like the in-process worker: on a local insert, on another instance's insert
 * (PostgreSQL LISTEN/NOTIFY) and by polling; sweeps for vanished jobs once per poll interval.
 * Retries wait in the inbox (`next_attempt_at`), so a flushed Redis loses none of them.
 */
export class InboxRelay {
  private readonly worker: WorkQueue;
  private readonly logger: DispatchLogger;
  private readonly clock: Clock;
  private readonly sweeper: QueueSweeper;
  private readonly orderedEndpoints: readonly string[];
  private readonly pollIntervalMs: number;
  private running = false;
  private loop?: Promise<void>;
  private readonly wakeups: InboxWakeups;

  constructor(
    context: WebhookTransportContext,
    private readonly queue: RelayQueue,
    private readonly settings: RelaySettings,
  ) {
    this.worker = context.worker;
    this.logger = context.logger;
    this.wakeups = new InboxWakeups(context.signal, context.worker, context.logger);
    this.clock = context.clock;
    this.pollIntervalMs = context.options.dispatch.pollIntervalMs;
    this.orderedEndpoints = [...context.options.endpoints.values()]
      .filter((endpoint) => endpoint.orderPerPayment)
      .map((endpoint) => endpoint.name);
    this.sweeper = new QueueSweeper(
      context.worker,
      queue,
      settings.holder,
      settings.redeliverAfterMs,
      settings.jobOptions,
      context.logger,
    );
  }

  start(): void {
    if (this.running) {
      return;
    }
    this.running = true;
    this.wakeups.listen();
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) {
      return;
    }
    this.running = false;
    await this.wakeups.close();
    await this.loop;
  }

  wake(): void {
    this.wakeups.wake();
  }

  private async run(): Promise<void> {
    let sweptAt = 0;
    while (this.running) {
      this.wakeups.clear();
      const moved = await this.relay();
      const now = this.clock.now();
      if (this.running && now.getTime() - sweptAt >= this.pollIntervalMs) {
        sweptAt = now.getTime();
        await this.sweeper.sweep(now).catch((error: unknown) => {
          this.logger.error(`Sweeping queue "${this.queue.name}" failed: ${describeError(error)}`);
        });
      }
      if (!this.running) {
        break;
      }
      if (moved === this.settings.batch) {
        continue;
      }
      if (!this.wakeups.requested) {
        await this.wakeups.sleep(this.pollIntervalMs);
      }
    }
  }

  /** Claims due events and adds their jobs; how many went to the queue. */
  private async relay(): Promise<number> {
    const { holder, batch, redeliverAfterMs } = this.settings;
    const now = this.clock.now();
    let events;
    try {
      events = await this.worker.claim(holder, batch, redeliverAfterMs, now, {
        orderedEndpoints: this.orderedEndpoints,
        expired: false,
      });
    } catch (error) {
      this.logger.error(
        `Claiming events for queue "${this.queue.name}" failed: ${describeError(error)}`,
      );
      return 0;
    }
    if (events.length === 0) {
      return 0;
    }
    const jobs = events.map((event) => ({
      name: WEBHOOK_JOB_NAME,
      data: { event: event.id, attempt: event.attempts },
      opts: {
        ...this.settings.jobOptions,
        jobId: webhookJobId(event.id, event.attempts, event.nextAttemptAt),
      },
    }));
    try {
      await this.queue.addBulk(jobs);
      return events.length;
    } catch (error) {
      // NOTE: given back without counting the attempt, and claimed again once Redis answers;
      // a job that was added all the same keeps its id and runs once.
      this.logger.warn(
        `Adding ${events.length} job(s) to queue "${this.queue.name}" failed; the events stay ` +
          `in the inbox and are added again: ${describeError(error)}`,
      );
      await this.worker
        .release(
          events.map((event) => event.id),
          holder,
          this.clock.now(),
        )
        .catch((released: unknown) => {
          this.logger.error(
            `Giving events back to the inbox failed; the sweeper adds their jobs after ` +
              `${redeliverAfterMs} ms: ${describeError(released)}`,
          );
        });
      return 0;
    }
  }
}
