import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { RecoveryJob, RecoveryJobs } from '../store/ports/recovery-jobs.port';
import { SafeLogger } from '../telemetry/safe-logger';
import { recoveryProblems } from './recovery.messages';

export type { RecoveryJob } from '../store/ports/recovery-jobs.port';

/** Most recoveries listed at once. */
const MAX_LIST_LIMIT = 1000;
/** Most events a recovery with a rate reads a second. */
const MAX_RATE = 100_000;

/** Options of `WebhookRecoveries.start()`. */
export interface WebhookRecoveryOptions {
  /** The endpoint whose provider's event log is read, with its API credentials. Required. */
  endpoint: string;
  /** The start of the window: events the provider created at or after it. Required. */
  since: Date;
  /**
   * The end of the window.
   * @default now
   */
  until?: Date;
  /** The tenant whose events are recovered, with its own credentials, on a tenant endpoint. */
  tenant?: string;
  /**
   * Stores nothing: reads the window and counts the events the inbox does not have.
   * @default false
   */
  dryRun?: boolean;
  /**
   * Most events read a second, a whole number.
   * @default no limit: page after page, as fast as the provider answers
   */
  ratePerSecond?: number;
  /** Who starts it, for each recovered event's history. */
  actor?: string;
}

/**
 * Why a recovery cannot start: no such endpoint, no event log, a window out of reach. A
 * `RangeError` to an app (the class itself is not exported); the admin routes answer it 400.
 */
export class WebhookRecoveryError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookRecoveryError';
  }
}

/**
 * Gets back events whose deliveries never arrived (the endpoint was unreachable longer than the
 * provider retries) from the provider's event log: a recovery reads a window of the log in the
 * background, on whichever instance takes it, and stores each event under the dedup key its
 * delivery would have had, so an event delivered already, or delivered late, is stored once and
 * its handlers run once. Follow one with `recovery(id)`, stop it with `cancel(id)`; it carries
 * on from its page after a restart, and is safe with several instances.
 */
export class WebhookRecoveries {
  private readonly logger = new SafeLogger('WebhookRecovery');

  /**
   * @param endpoints the app's endpoints, which a recovery is checked against before it starts;
   *   left out (the CLI), it is checked by the instance that runs it.
   * @internal the module constructs it; an app injects it.
   */
  constructor(
    private readonly jobs: RecoveryJobs | undefined,
    private readonly endpoints?: ReadonlyMap<string, WebhookEndpoint>,
    private readonly started: () => void = () => undefined,
  ) {}

  /**
   * Starts a recovery in the background and returns it at once.
   * @throws RangeError when the endpoint is unknown, has no event log (its provider
   *   keeps none, or it has no API credentials), or the window is out of the log's reach.
   */
  async start(options: WebhookRecoveryOptions): Promise<RecoveryJob> {
    const jobs = this.requireJobs();
    const until = options.until ?? new Date();
    const { endpoint, since, tenant, dryRun = false, ratePerSecond, actor } = options ?? {};
    if (typeof endpoint !== 'string' || endpoint === '') {
      throw new WebhookRecoveryError('name the endpoint whose events to recover (endpoint)');
    }
    if (!(since instanceof Date) || Number.isNaN(since.getTime())) {
      throw new WebhookRecoveryError('give the start of the window as a Date (since)');
    }
    if (!(until instanceof Date) || Number.isNaN(until.getTime())) {
      throw new WebhookRecoveryError(
        'give the end of the window as a Date (until), or leave it out for now',
      );
    }
    if (typeof dryRun !== 'boolean') {
      throw new WebhookRecoveryError(`dryRun must be true or false (got ${String(dryRun)})`);
    }
    if (
      ratePerSecond !== undefined &&
      !(Number.isInteger(ratePerSecond) && ratePerSecond > 0 && ratePerSecond <= MAX_RATE)
    ) {
      throw new WebhookRecoveryError(
        `ratePerSecond must be a whole number from 1 to ${MAX_RATE} (got ${ratePerSecond})`,
      );
    }
    if (tenant !== undefined && (typeof tenant !== 'string' || tenant === '')) {
      throw new WebhookRecoveryError('tenant must be a non-empty text when given');
    }
    const problem = this.endpoints
      ? recoveryProblems(
          endpoint,
          this.endpoints.get(endpoint),
          { since, until, tenant },
          new Date(),
        )
      : since < until
        ? undefined
        : `the window's start (${since.toISOString()}) is not before its end (${until.toISOString()})`;
    if (problem !== undefined) {
      throw new WebhookRecoveryError(`Cannot recover the events of "${endpoint}": ${problem}.`);
    }
    const job = await jobs.startRecoveryJob({
      endpoint,
      tenant: tenant ?? null,
      since,
      until,
      dryRun,
      ratePerSecond: ratePerSecond ?? null,
      actor: actor ?? null,
    });
    this.logger.log(
      `Recovery ${job.id} of "${endpoint}" started${dryRun ? ' (dry run)' : ''}: ` +
        `${since.toISOString()} to ${until.toISOString()}`,
    );
    this.started();
    return job;
  }

  /** The recoveries, newest first (at most `limit`, default 20). */
  list(limit = 20): Promise<RecoveryJob[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.requireJobs().recoveryJobs(limit);
  }

  /** One recovery, with its progress; null when there is none. */
  recovery(id: string): Promise<RecoveryJob | null> {
    return this.requireJobs().recoveryJob(id);
  }

  /** Cancels a running recovery: no page is read after this. False when it was not running. */
  cancel(id: string): Promise<boolean> {
    return this.requireJobs().cancelRecoveryJob(id);
  }

  private requireJobs(): RecoveryJobs {
    if (!this.jobs) {
      throw new WebhookRecoveryError(
        'this store keeps no recoveries: its InboxQueries has no `recoveries` (the TypeORM store has)',
      );
    }
    return this.jobs;
  }
}
