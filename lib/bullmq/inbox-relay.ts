import type { JobsOptions } from 'bullmq';
import { Clock } from '../dispatch/clock';
import { DispatchLogger } from '../dispatch/dispatch-logger';
import { describeError } from '../dispatch/handler-failure';
import { LocalInsertSignal } from '../dispatch/webhook.dispatcher';
import { WebhookTransportContext } from '../dispatch/webhook-transport';
import { InboxWorker } from '../store/ports';
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
  private readonly worker: InboxWorker;
  private readonly signal: LocalInsertSignal;
  private readonly logger: DispatchLogger;
  private readonly clock: Clock;
  private readonly sweeper: QueueSweeper;
  private readonly orderedEndpoints: readonly string[];
  private readonly pollIntervalMs: number;
  private running = false;
  private loop?: Promise<void>;
  private wakeRequested = false;
  private wakeSleeper?: () => void;
  private unsubscribe?: () => void;
  private unwatch?: Promise<() => Promise<void>>;

  constructor(
    context: WebhookTransportContext,
    private readonly queue: RelayQueue,
    private readonly settings: RelaySettings,
  ) {
    this.worker = context.worker;
    this.signal = context.signal;
    this.logger = context.logger;
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
    this.unsubscribe = this.signal.subscribe(() => this.wake());
    this.unwatch = this.worker
      .watch(() => this.wake())
      .catch((error: unknown) => {
        this.logger.warn(
          `Listening for other instances' events failed; polling only: ${describeError(error)}`,
        );
        return async () => undefined;
      });
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    if (!this.running) {
      return;
    }
    this.running = false;
    this.unsubscribe?.();
    await (
      await this.unwatch
    )?.();
    this.wake();
    await this.loop;
  }

  wake(): void {
    this.wakeRequested = true;
    this.wakeSleeper?.();
  }

  private async run(): Promise<void> {
    let sweptAt = 0;
    while (this.running) {
      this.wakeRequested = false;
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
      if (!this.wakeRequested) {
        await this.sleep(this.pollIntervalMs);
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

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wakeSleeper = undefined;
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.wakeSleeper = done;
    });
  }
}
