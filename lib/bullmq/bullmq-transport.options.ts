import type { ConnectionOptions, KeepJobs, Queue, RateLimiterOptions } from 'bullmq';

/** Options of {@link bullmqTransport}. */
export interface BullmqTransportOptions {
  /**
   * Where Redis is: a BullMQ connection (`{ host, port }`, ioredis options, or an ioredis
   * instance). The transport opens its queue and worker on it and closes them on shutdown.
   * Give this or {@link queue}.
   */
  connection?: ConnectionOptions;
  /**
   * An existing BullMQ `Queue` to add the jobs to, such as the one `@nestjs/bullmq` registers
   * (`getQueueToken(name)`). Its connection and prefix are used for the worker too; the app
   * keeps closing it.
   */
  queue?: Queue;
  /**
   * The queue's name; with {@link queue}, its name.
   * @default 'payment-webhooks'
   * @advanced
   */
  queueName?: string;
  /**
   * BullMQ's key prefix in Redis (ignored with {@link queue}, which has its own).
   * @default 'bull'
   * @advanced
   */
  prefix?: string;
  /**
   * Run a BullMQ worker for the queue in this process. Turn off where a `@nestjs/bullmq`
   * `WorkerHost` processor calls `process(job)` of the open transport (`WEBHOOKS_TRANSPORT`),
   * or where only the relay runs.
   * @default true
   * @advanced
   */
  worker?: boolean;
  /**
   * Move due events from the inbox to the queue in this process, and look for events whose
   * job vanished. Any number of processes may relay at once: each claims its own events.
   * @default true
   * @advanced
   */
  relay?: boolean;
  /**
   * Jobs this process's worker runs at once. On PostgreSQL each holds a pooled connection
   * while its handler's transaction is open.
   * @default dispatch.concurrency
   * @advanced
   */
  concurrency?: number;
  /**
   * BullMQ's rate limit for this worker: at most `max` jobs per `duration` ms.
   * @advanced
   */
  limiter?: RateLimiterOptions;
  /**
   * Which completed jobs BullMQ keeps (the inbox keeps every event in any case).
   * @default { age: 3600, count: 1000 }
   * @advanced
   */
  removeOnComplete?: boolean | number | KeepJobs;
  /**
   * Which failed jobs BullMQ keeps: one per attempt that failed, its `failedReason` saying why.
   * BullMQ never retries them; the inbox does (a new job for the next attempt), and keeps each
   * failure in the event's history and its failure group whatever BullMQ removes.
   * @default { age: 86400, count: 5000 }
   * @advanced
   */
  removeOnFail?: boolean | number | KeepJobs;
  /**
   * How long an event handed to the queue waits before the relay checks its job is still
   * there, in ms: a job lost to a Redis flush or eviction is added again after at most this.
   * @default 60000
   * @advanced
   */
  redeliverAfterMs?: number;
  /**
   * Most events moved to the queue in one claim (one `addBulk`).
   * @default 500
   * @advanced
   */
  relayBatch?: number;
}
