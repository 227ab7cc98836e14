import type { ConnectionOptions, JobsOptions, Queue, Worker } from 'bullmq';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { describeError } from '../dispatch/handler-failure';
import { shortText } from '../telemetry/safe-text';
import {
  OpenWebhookTransport,
  WebhookQueueCounts,
  WebhookTransport,
  WebhookTransportContext,
  WebhookTransportStatus,
} from '../dispatch/webhook-transport';
import { loadBullMq } from './bullmq.loader';
import {
  BOTH_CONNECTION_AND_QUEUE,
  INVALID_QUEUE_NAME,
  INVALID_TRANSPORT_OPTION,
  NO_CONNECTION,
  PROCESS_WITH_DISPATCH_OFF,
  QUEUE_NAME_MISMATCH,
  SQLITE_INBOX,
} from './bullmq.messages';
import { BullmqTransportOptions } from './bullmq-transport.options';
import { FailedAttemptError } from './failed-attempt.error';
import { InboxRelay } from './inbox-relay';
import { RelayQueue } from './queue-sweeper';
import { WebhookJobLike } from './webhook-job';
import { WebhookJobResult, WebhookJobRunner } from './webhook-job.runner';

export const DEFAULT_QUEUE_NAME = 'payment-webhooks';

/** Longest a Redis command of the relay or a health check may take. */
const REDIS_ANSWER_MS = 5000;
const STATUS_ANSWER_MS = 2000;
const STATUS_CACHE_MS = 1000;

/** How often the same Redis error is logged at most. */
const ERROR_LOG_INTERVAL_MS = 30_000;

/** The options, checked, with defaults. */
interface ResolvedBullmqOptions {
  readonly connection?: ConnectionOptions;
  readonly queue?: Queue;
  readonly queueName: string;
  readonly prefix?: string;
  readonly worker: boolean;
  readonly relay: boolean;
  readonly concurrency?: number;
  readonly limiter?: BullmqTransportOptions['limiter'];
  readonly jobOptions: JobsOptions;
  readonly redeliverAfterMs: number;
  readonly relayBatch: number;
}

function positiveInteger(option: string, value: number | undefined, fallback: number): number {
  const resolved = value ?? fallback;
  if (!Number.isSafeInteger(resolved) || resolved <= 0) {
    throw new WebhookConfigurationError(
      INVALID_TRANSPORT_OPTION(option, 'a positive integer', value),
    );
  }
  return resolved;
}

function resolveOptions(options: BullmqTransportOptions): ResolvedBullmqOptions {
  if (options.connection && options.queue) {
    throw new WebhookConfigurationError(BOTH_CONNECTION_AND_QUEUE);
  }
  if (!options.connection && !options.queue) {
    throw new WebhookConfigurationError(NO_CONNECTION);
  }
  const queueName = options.queueName ?? options.queue?.name ?? DEFAULT_QUEUE_NAME;
  if (typeof queueName !== 'string' || queueName.length === 0 || queueName.includes(':')) {
    throw new WebhookConfigurationError(INVALID_QUEUE_NAME(queueName));
  }
  if (options.queue && options.queue.name !== queueName) {
    throw new WebhookConfigurationError(QUEUE_NAME_MISMATCH(queueName, options.queue.name));
  }
  const { limiter } = options;
  if (
    limiter !== undefined &&
    (!Number.isSafeInteger(limiter.max) ||
      limiter.max <= 0 ||
      !Number.isSafeInteger(limiter.duration) ||
      limiter.duration <= 0)
  ) {
    throw new WebhookConfigurationError(
      INVALID_TRANSPORT_OPTION('limiter', '{ max, duration } of positive integers', limiter),
    );
  }
  return {
    connection: options.connection,
    queue: options.queue,
    queueName,
    prefix: options.prefix,
    worker: options.worker ?? true,
    relay: options.relay ?? true,
    concurrency:
      options.concurrency === undefined
        ? undefined
        : positiveInteger('concurrency', options.concurrency, 1),
    limiter,
    jobOptions: {
      attempts: 1,
      removeOnComplete: options.removeOnComplete ?? { age: 3600, count: 1000 },
      removeOnFail: options.removeOnFail ?? { age: 86_400, count: 5000 },
    },
    redeliverAfterMs: positiveInteger('redeliverAfterMs', options.redeliverAfterMs, 60_000),
    relayBatch: positiveInteger('relayBatch', options.relayBatch, 500),
  };
}

/**
 * Runs handlers on BullMQ workers, in any number of processes, while the inbox and the handler
 * ledger stay the source of truth. Ingress is unchanged: it commits the event and answers. A
 * relay claims due events and adds one job per event and attempt, carrying ids only; a worker
 * takes the event from the inbox with a lease, runs each handler in the transaction that writes
 * its ledger row, and only then ends the job: completed, or failed when the attempt failed.
 * Retries and dead letters stay in the inbox (`attempts: 1` in BullMQ); a sweeper adds again
 * the jobs Redis lost. Needs the inbox on
 * PostgreSQL, shared by every process.
 *
 * @example
 * ```ts
 * WebhooksModule.forRoot({
 *   endpoints: [stripeEndpoint({ name: 'stripe', secret: process.env.STRIPE_WEBHOOK_SECRET! })],
 *   dispatch: {
 *     transport: bullmqTransport({ connection: { host: '127.0.0.1', port: 6379 }, concurrency: 16 }),
 *   },
 * });
 * ```
 * @throws WebhookConfigurationError naming the fix when an option is wrong.
 */
export function bullmqTransport(options: BullmqTransportOptions): WebhookTransport {
  const resolved = resolveOptions(options);
  return {
    kind: 'bullmq',
    open: (context) => new BullmqWebhookTransport(resolved, context),
  };
}

/**
 * The BullMQ transport open in one process: its relay and worker, as its options ask. Injected
 * as `WEBHOOKS_TRANSPORT` in a Nest app, so a `@nestjs/bullmq` `WorkerHost` can run the jobs
 * with {@link process} (with `worker: false`).
 */
export class BullmqWebhookTransport implements OpenWebhookTransport {
  readonly kind = 'bullmq';
  /** The queue's name. */
  readonly queueName: string;
  /** Who holds an event in the inbox while its job is queued. */
  readonly holder: string;
  private readonly runner: WebhookJobRunner;
  private readonly relay?: InboxRelay;
  private readonly ownQueue: boolean;
  private queueInstance?: Queue;
  private bullWorker?: Worker;
  private started = false;
  /** Resolves when the engine first starts the transport: every handler is registered by then. */
  private readonly ready: Promise<void>;
  private markReady: () => void = () => undefined;
  private readonly lastLogged = new Map<string, number>();
  private lastStatus?: { readonly at: number; readonly status: Promise<WebhookTransportStatus> };

  /** @internal bullmqTransport() constructs it when the engine opens the transport. */
  constructor(
    private readonly settings: ResolvedBullmqOptions,
    private readonly context: WebhookTransportContext,
  ) {
    if (context.database !== 'postgres') {
      throw new WebhookConfigurationError(SQLITE_INBOX);
    }
    this.ready = new Promise((resolve) => (this.markReady = resolve));
    this.queueName = settings.queueName;
    this.holder = `bullmq:${settings.queueName}`;
    this.ownQueue = !settings.queue;
    this.runner = new WebhookJobRunner(context, this.holder);
    if (settings.relay) {
      this.relay = new InboxRelay(context, this.relayQueue(), {
        holder: this.holder,
        batch: settings.relayBatch,
        redeliverAfterMs: settings.redeliverAfterMs,
        jobOptions: settings.jobOptions,
      });
    }
  }

  get description(): string {
    const { relay, worker } = this.settings;
    const here = [relay && 'relays due events to it', worker && 'runs its jobs'].filter(Boolean);
    return (
      `Handlers run on BullMQ queue "${this.queueName}"; this process ` +
      (here.length > 0 ? here.join(' and ') : 'neither relays nor runs jobs')
    );
  }

  /** The queue the jobs go to (opened on first use when the transport was given a connection). */
  get queue(): Queue {
    if (!this.queueInstance) {
      const { Queue: QueueClass } = loadBullMq();
      this.queueInstance =
        this.settings.queue ??
        new QueueClass(this.settings.queueName, {
          connection: this.settings.connection as ConnectionOptions,
          ...(this.settings.prefix ? { prefix: this.settings.prefix } : {}),
        });
      this.queueInstance.on('error', this.onRedisError);
    }
    return this.queueInstance;
  }

  async start(): Promise<void> {
    if (this.started) {
      return;
    }
    this.started = true;
    this.markReady();
    this.runner.start();
    this.relay?.start();
    if (this.settings.worker) {
      this.bullWorker ??= this.openWorker();
      if (!this.bullWorker.isRunning()) {
        void this.bullWorker.run().catch(this.onRedisError);
      }
    }
  }

  /**
   * Stops relaying, lets the worker's running jobs finish for up to `dispatch.shutdownTimeoutMs`,
   * then gives the events still held back to the inbox.
   */
  async stop(): Promise<void> {
    if (!this.started) {
      return;
    }
    this.started = false;
    await this.relay?.stop();
    const worker = this.bullWorker;
    this.bullWorker = undefined;
    if (worker) {
      // NOTE: BullMQ's close() waits for the running jobs and for a Redis that may never answer,
      // and a close(true) after it only returns that same wait; so the worker takes no more
      // jobs, the deadline is kept here, and the close is forced.
      await worker.pause(true).catch(this.onRedisError);
      const finished = await Promise.race([
        this.runner.idle().then(() => true),
        delay(this.context.options.dispatch.shutdownTimeoutMs).then(() => false),
      ]);
      if (!finished) {
        await this.runner.releaseHeld();
      }
      await worker.close(true).catch(this.onRedisError);
    }
    await this.runner.releaseHeld();
  }

  async close(): Promise<void> {
    await this.bullWorker?.close(true).catch(this.onRedisError);
    this.bullWorker = undefined;
    const queue = this.queueInstance;
    this.queueInstance = undefined;
    queue?.off('error', this.onRedisError);
    if (queue && this.ownQueue) {
      await queue.close().catch(this.onRedisError);
    }
  }

  /**
   * Runs one webhook job: for a `@nestjs/bullmq` `WorkerHost` processor's `process(job)`, with
   * the transport's own worker off (`worker: false`). Resolves once the event is settled in the
   * inbox as processed or ignored (or found already settled). Rejects, so the job fails, once a
   * failed attempt is committed as `retrying` or `dead` (the message says which; the inbox runs
   * the next attempt under a job of its own), and when the inbox could not be written (the
   * event is handed out again once its lease runs out). A job given before the app has started
   * waits for it; in a process with `dispatch.enabled: false` every job is refused.
   */
  async process(job: WebhookJobLike): Promise<WebhookJobResult> {
    if (!this.context.options.dispatch.enabled) {
      throw new WebhookConfigurationError(PROCESS_WITH_DISPATCH_OFF(this.queueName));
    }
    // NOTE: @nestjs/bullmq starts its workers when its module initializes, which may be before
    // the @OnPaymentEvent handlers are registered; a job run then would match no handler and
    // settle its event as ignored.
    await this.ready;
    return this.runner.run(job);
  }

  /** The broker's answer, shared by the checks and scrapes of one second. */
  status(): Promise<WebhookTransportStatus> {
    const now = Date.now();
    if (!this.lastStatus || now - this.lastStatus.at >= STATUS_CACHE_MS) {
      this.lastStatus = { at: now, status: this.askStatus() };
    }
    return this.lastStatus.status;
  }

  private async askStatus(): Promise<WebhookTransportStatus> {
    const base = { kind: this.kind, queue: this.queueName };
    try {
      const counts = await withTimeout(
        this.queue.getJobCounts('waiting', 'active', 'delayed', 'failed', 'completed'),
        STATUS_ANSWER_MS,
      );
      return { ...base, up: true, counts: counts as unknown as WebhookQueueCounts };
    } catch (error) {
      return { ...base, up: false, error: describeError(error) };
    }
  }

  onWait(listener: (queue: string, waitedMs: number) => void): () => void {
    return this.runner.onWait((waited) => listener(this.queueName, waited));
  }

  private relayQueue(): RelayQueue {
    // NOTE: the queue opens on first use, so building the transport connects to nothing.
    return {
      name: this.settings.queueName,
      // NOTE: bounded, so a Redis that does not answer never holds the relay (or shutdown) up.
      add: (name, data, opts) => withTimeout(this.queue.add(name, data, opts), REDIS_ANSWER_MS),
      addBulk: (jobs) => withTimeout(this.queue.addBulk(jobs), REDIS_ANSWER_MS),
      getJobState: (jobId) => withTimeout(this.queue.getJobState(jobId), REDIS_ANSWER_MS),
      remove: (jobId) => withTimeout(this.queue.remove(jobId), REDIS_ANSWER_MS),
    };
  }

  private openWorker(): Worker {
    const { Worker: WorkerClass } = loadBullMq();
    const queue = this.settings.queue;
    const connection = (queue?.opts.connection ?? this.settings.connection) as ConnectionOptions;
    const prefix = queue?.opts.prefix ?? this.settings.prefix;
    const worker = new WorkerClass(this.settings.queueName, (job) => this.runner.run(job), {
      connection,
      ...(prefix ? { prefix } : {}),
      concurrency: this.settings.concurrency ?? this.context.options.dispatch.concurrency,
      ...(this.settings.limiter ? { limiter: this.settings.limiter } : {}),
      autorun: false,
    });
    worker.on('error', this.onRedisError);
    worker.on('failed', (job, error) => {
      if (error instanceof FailedAttemptError) {
        // NOTE: the handler's failure was logged where the event settled; the failed job is
        // BullMQ's count of it, not a job to run again.
        return;
      }
      this.context.logger.warn(
        `Job ${job?.id === undefined ? '(unknown)' : shortText(job.id)} of queue ` +
          `"${this.queueName}" failed; its event stays in ` +
          `the inbox and runs again: ${describeError(error)}`,
      );
    });
    return worker;
  }

  private readonly onRedisError = (error: unknown): void => {
    const text = describeError(error);
    const now = Date.now();
    if (now - (this.lastLogged.get(text) ?? 0) < ERROR_LOG_INTERVAL_MS) {
      return;
    }
    this.lastLogged.set(text, now);
    this.context.logger.warn(`BullMQ queue "${this.queueName}": ${text}`);
  };
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}

/** `work`, or a rejection once `ms` pass first. */
function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer from Redis within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}
