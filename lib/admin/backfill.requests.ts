import type { BackfillJob } from '../store/ports/backfill-jobs.port';
import { WebhookBackfillError, WebhookBackfills } from '../backfill/webhook-backfills';
import {
  badRequest,
  bodyOf,
  checked,
  parseEventId,
  WebhookAdminRequestError,
} from './admin-request-rules';
import { parseBackfillQuery, parseReplayListQuery } from './event-filter-rules';

/**
 * What the backfill routes do, whatever serves them: parameters checked, `WebhookBackfills`
 * called with the caller as the actor, a refusal thrown as a {@link WebhookAdminRequestError}.
 */
export class BackfillRequests {
  constructor(private readonly backfills: WebhookBackfills) {}

  /**
   * Starts a backfill (the query's `handler`, `since`, `until`, `endpoint`, `tenant`, `type`,
   * `dryRun`, `rate`) and returns it at once (the adapters answer 202); an unknown handler or
   * endpoint is a 400 naming the known ones.
   */
  async start(query: unknown, body: unknown, actor: string): Promise<BackfillJob> {
    const backfill = checked(() => parseBackfillQuery(query));
    bodyOf(body, 'backfills', []);
    try {
      return await this.backfills.start({ ...backfill, actor });
    } catch (error) {
      throw error instanceof WebhookBackfillError ? badRequest(error.message) : error;
    }
  }

  /** The backfills, newest first (`limit`, default 20). */
  list(query: unknown): Promise<BackfillJob[]> {
    const { limit } = checked(() => parseReplayListQuery(query));
    return this.backfills.list(limit);
  }

  /** One backfill with its progress; 404 when there is none. */
  async show(id: string): Promise<BackfillJob> {
    const job = await this.backfills.backfill(parseEventId(id));
    if (!job) {
      throw new WebhookAdminRequestError(404, `No backfill ${id}`);
    }
    return job;
  }

  /** Cancels a running backfill and returns it; 404 when there is none or it is not running. */
  async cancel(id: string, body: unknown): Promise<BackfillJob> {
    bodyOf(body, 'cancel', []);
    const job = await this.show(id);
    if (!(await this.backfills.cancel(id))) {
      throw new WebhookAdminRequestError(
        404,
        `Backfill ${id} is ${job.status} already: only a running backfill can be canceled`,
      );
    }
    return (await this.backfills.backfill(id)) ?? job;
  }
}
