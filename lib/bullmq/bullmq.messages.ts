import { shortText } from '../telemetry/safe-text';

/** Error texts of the BullMQ transport. Each one says what went wrong and how to fix it. */

export const BULLMQ_MISSING =
  'The BullMQ transport (`nestjs-payment-webhooks/bullmq`) needs the optional peer dependency ' +
  '`bullmq`: run `npm i bullmq` (BullMQ 6 also needs its Redis client: `npm i ioredis`).';

export const NO_CONNECTION =
  'bullmqTransport() needs where the queue lives: give `connection` (a BullMQ connection, such ' +
  "as { host: '127.0.0.1', port: 6379 } or an ioredis instance) or `queue` (an existing BullMQ " +
  'Queue, for example from @nestjs/bullmq: inject getQueueToken(name) in forRootAsync).';

export const BOTH_CONNECTION_AND_QUEUE =
  'bullmqTransport() takes `connection` or `queue`, not both: the queue already has its connection.';

export const INVALID_QUEUE_NAME = (name: unknown) =>
  `bullmqTransport() option \`queueName\` must be a non-empty string without ":" (BullMQ uses ":" ` +
  `to build its Redis keys), got ${JSON.stringify(name)}.`;

export const QUEUE_NAME_MISMATCH = (given: string, queue: string) =>
  `bullmqTransport() was given the queue "${queue}" and \`queueName\` "${given}": leave ` +
  '`queueName` out, or pass the queue of that name.';

export const INVALID_TRANSPORT_OPTION = (option: string, expected: string, value: unknown) =>
  `bullmqTransport() option \`${option}\` must be ${expected}, got ${JSON.stringify(value)}.`;

export const SQLITE_INBOX =
  'The BullMQ transport runs handlers in other processes, which must share the inbox: put it ' +
  'on PostgreSQL. A SQLite inbox lives in one process; leave `dispatch.transport` out to run ' +
  'handlers in that process.';

export const PROCESS_WITH_DISPATCH_OFF = (queue: string) =>
  `A job of queue "${queue}" was given to process() in a process with \`dispatch.enabled: false\`, ` +
  "which runs no handlers: remove the queue's processor (WorkerHost) from this process, or turn " +
  'dispatch on. The event stays in the inbox and its job is added again.';

export const INVALID_JOB = (id: string | undefined, data: unknown) =>
  `BullMQ job ${id === undefined ? '(no id)' : shortText(id)} is not a webhook job: its data ` +
  'must be { event: <inbox id>, attempt: <positive integer> }, got ' +
  `${shortText(JSON.stringify(data))}. Only the relay of nestjs-payment-webhooks should add ` +
  'jobs to this queue.';
