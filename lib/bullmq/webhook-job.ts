import { INVALID_JOB } from './bullmq.messages';

/** Longest inbox id: the `webhook_events.id` column holds a UUID. */
const MAX_INBOX_ID_LENGTH = 36;

/** The name every webhook job is added under. */
export const WEBHOOK_JOB_NAME = 'payment-webhook';

/** What a webhook job carries: ids only; the worker loads the event from the inbox. */
export interface WebhookJobData {
  /** The inbox id of the event. */
  readonly event: string;
  /** The attempt the relay handed out (the event's `attempts` then). */
  readonly attempt: number;
}

/** The fields of a BullMQ job the worker reads (a `Job` satisfies it). */
export interface WebhookJobLike {
  readonly id?: string;
  readonly data: unknown;
  /** When the job was added, in ms since the epoch. */
  readonly timestamp: number;
  /** When a worker took it, in ms since the epoch. */
  readonly processedOn?: number;
  readonly opts?: { readonly delay?: number };
}

/**
 * The job id of an event's attempt: the inbox id, the attempt, and when the attempt fell due
 * (ms). One attempt has one job, so a second add of it is kept to that job; a later attempt,
 * or the same attempt number after a replay, gets a job of its own. No ":" (BullMQ's rule).
 */
export function webhookJobId(event: string, attempt: number, dueAt: Date | null): string {
  return `${event}-${attempt}-${dueAt?.getTime() ?? 0}`;
}

/** The data of a webhook job, checked. */
export function webhookJobData(job: WebhookJobLike): WebhookJobData {
  const data = job.data as Partial<WebhookJobData> | null | undefined;
  if (
    typeof data !== 'object' ||
    data === null ||
    typeof data.event !== 'string' ||
    data.event.length === 0 ||
    data.event.length > MAX_INBOX_ID_LENGTH ||
    !Number.isSafeInteger(data.attempt) ||
    (data.attempt as number) < 1
  ) {
    throw new Error(INVALID_JOB(job.id, job.data));
  }
  return { event: data.event, attempt: data.attempt as number };
}
