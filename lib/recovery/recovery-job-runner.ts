import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { ProviderStatusError } from '../core/webhook-errors';
import type { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { newEventOf } from '../ingress/new-event';
import { snapshotPairsOf } from '../options/snapshot-pairs';
import { sanitizeHeaders } from '../ingress/sanitize-headers';
import type { LoggedEvent, ProviderEventLog } from '../providers/event-log.interface';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { InboxWriter, NewWebhookEvent } from '../store/ports/inbox-writer.port';
import type { RecoveryJob, RecoveryJobs } from '../store/ports/recovery-jobs.port';
import { InboxSignal } from '../store/work/inbox-signal';
import { SafeLogger } from '../telemetry/safe-logger';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';
import { JobPoller } from '../replay/job-poller';
import { recoveryProblems, TENANT_UNKNOWN } from './recovery.messages';

/** How the recoveries are run. */
export interface RecoveryJobSettings {
  /** How often an idle instance looks for a recovery to run (or carry on). */
  readonly pollMs: number;
  /** How long a page's holder keeps a recovery before another instance may carry it on. */
  readonly leaseMs: number;
}

export const RECOVERY_JOB_SETTINGS: RecoveryJobSettings = { pollMs: 1_000, leaseMs: 30_000 };

/** An event of the log, read as its delivery would have been, or why it could not be. */
type ReadEvent = { readonly event: NewWebhookEvent } | { readonly unreadable: string };

/**
 * Runs the recoveries (`WebhookAdmin.startRecovery()`, `events recover`) on whichever instance
 * takes one first: reads the endpoint's event log page by page with its credentials, stores
 * each event under the dedup key its delivery would have had (a late delivery of it is then a
 * duplicate, and an event already delivered is not stored twice), marks the new ones
 * `recover` in their history, and moves the recovery's cursor. A page that fails (the provider
 * is down, or limits the rate) is read again at the next poll, by this or another instance; a
 * recovery whose endpoint cannot be read at all fails with why.
 */
export class RecoveryJobRunner {
  readonly holder = `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
  private readonly logger = new SafeLogger('WebhookRecovery');
  private readonly poller: JobPoller;

  constructor(
    private readonly jobs: RecoveryJobs | undefined,
    private readonly store: Pick<InboxWriter, 'record'>,
    private readonly endpoints: ReadonlyMap<string, WebhookEndpoint>,
    private readonly registry: Pick<WebhookHandlerRegistry, 'match'>,
    private readonly signal: InboxSignal,
    private readonly settings: RecoveryJobSettings = RECOVERY_JOB_SETTINGS,
  ) {
    this.poller = new JobPoller(settings.pollMs, (stopped) => this.runAll(jobs!, stopped));
  }

  /** Looks for recoveries to run every `pollMs`, and at once. */
  start(): void {
    if (this.jobs) {
      this.poller.start();
    }
  }

  /** Looks for a recovery to run now (one was just started here). */
  kick(): void {
    if (this.jobs) {
      this.poller.kick();
    }
  }

  /** Stops after the page in progress and gives its recovery back, for any instance to carry on. */
  stop(): Promise<void> {
    return this.poller.stop();
  }

  private async runAll(jobs: RecoveryJobs, stopped: AbortSignal): Promise<void> {
    try {
      for (;;) {
        if (stopped.aborted) {
          return;
        }
        const job = await jobs.claimRecoveryJob(this.holder, this.settings.leaseMs);
        if (!job || !(await this.run(jobs, job, stopped))) {
          return;
        }
      }
    } catch (error) {
      this.logger.warn(`Looking for recoveries to run failed: ${describe(error)}`);
    }
  }

  /** Runs a recovery until it ends, is canceled or this instance stops; false when a page failed. */
  private async run(jobs: RecoveryJobs, job: RecoveryJob, stopped: AbortSignal): Promise<boolean> {
    let endpoint: WebhookEndpoint | undefined;
    const configured = this.endpoints.get(job.endpoint);
    if (isTenantEndpoint(configured) && job.tenant) {
      let own: WebhookEndpoint | null;
      try {
        own = await configured.tenants.endpointOf(job.tenant);
      } catch (error) {
        // NOTE: kept under this instance's lease: the other recoveries run meanwhile, and any
        // instance tries it again once the lease runs out, with one warning a lease.
        this.logger.warn(
          `Recovery ${job.id}: tenant "${job.tenant}" cannot be resolved now (tried again in ` +
            `${this.settings.leaseMs} ms): ${describe(error)}`,
        );
        return true;
      }
      if (own === null) {
        const gone = TENANT_UNKNOWN(job.endpoint, job.tenant);
        await jobs.failRecoveryJob(job.id, this.holder, gone);
        this.logger.warn(`Recovery ${job.id} failed: ${gone}`);
        return true;
      }
      endpoint = own;
    } else {
      endpoint = configured;
    }
    const problem = recoveryProblems(job.endpoint, endpoint, job, job.createdAt);
    if (problem !== undefined || !endpoint?.eventLog) {
      await jobs.failRecoveryJob(job.id, this.holder, problem ?? 'it has no event log');
      this.logger.warn(`Recovery ${job.id} failed: ${problem}`);
      return true;
    }
    const log = endpoint.eventLog;
    let cursor = job.cursor;
    try {
      for (;;) {
        if (stopped.aborted) {
          await jobs.releaseRecoveryJob(job.id, this.holder, null);
          return true;
        }
        const started = Date.now();
        const page = await log.readPage({ since: job.since, until: job.until }, cursor);
        const read = page.events.map((logged) => this.read(endpoint, job, logged));
        const events = read.flatMap((item) => ('event' in item ? [item.event] : []));
        read.forEach((item) => {
          if ('unreadable' in item) {
            this.logger.warn(`Recovery ${job.id}: an event of ${log.source} ${item.unreadable}`);
          }
        });
        const { storedIds, missing } = job.dryRun
          ? { storedIds: [], missing: await this.missing(jobs, job, events) }
          : await this.storeAll(events);
        const status = await jobs.recordRecoveredPage(
          job.id,
          this.holder,
          { found: page.events.length, storedIds, missing, next: page.next, source: log.source },
          this.settings.leaseMs,
        );
        if (storedIds.length > 0) {
          this.signal.notify();
        }
        if (status !== 'running') {
          if (status === 'done' || status === 'canceled') {
            this.logger.log(`Recovery ${job.id} of "${job.endpoint}" is ${status}`);
          }
          return true;
        }
        cursor = page.next;
        await this.keepPace(job, page.events.length, started, stopped);
      }
    } catch (error) {
      return this.pageFailed(jobs, job, error, log);
    }
  }

  /** Gives a recovery back after a page failed (tried again), or fails it when asking again cannot help. */
  private async pageFailed(
    jobs: RecoveryJobs,
    job: RecoveryJob,
    error: unknown,
    log?: ProviderEventLog,
  ): Promise<boolean> {
    const message = describe(error);
    if (error instanceof ProviderStatusError && !error.retryable) {
      this.logger.warn(`Recovery ${job.id} failed: ${message}`);
      await jobs.failRecoveryJob(job.id, this.holder, message).catch(() => undefined);
      return true;
    }
    this.logger.warn(
      `A page of recovery ${job.id}${log ? ` (${log.source})` : ''} failed (tried again): ${message}`,
    );
    await jobs.releaseRecoveryJob(job.id, this.holder, message).catch(() => undefined);
    return false;
  }

  /** A logged event as the inbox row its delivery would have made. */
  private read(endpoint: WebhookEndpoint, job: RecoveryJob, logged: LoggedEvent): ReadEvent {
    const receivedAt = new Date();
    const rawBody = Buffer.from(logged.body, 'utf8');
    const headers = logged.headers ?? {};
    let notifications;
    try {
      const normalized = endpoint.provider.normalize({ rawBody, headers, receivedAt });
      notifications = Array.isArray(normalized) ? normalized : [normalized];
    } catch (error) {
      return { unreadable: `could not be read: ${describe(error)}` };
    }
    const [notification] = notifications.filter((each) => each.skip === undefined);
    if (notification === undefined) {
      return { unreadable: `is not taken by the endpoint: ${notifications[0]?.skip}` };
    }
    const wanted = this.registry.match({
      endpoint: endpoint.name,
      provider: endpoint.provider.kind,
      type: notification.type,
      nativeType: notification.nativeType,
    });
    const delivery = { rawBody, tenant: job.tenant ?? undefined, receivedAt };
    return {
      event: newEventOf(
        endpoint,
        { ...delivery, endpoint: endpoint.name, headers, sourceIp: undefined },
        notification,
        sanitizeHeaders(headers, endpoint.provider.storedHeaders, undefined),
        wanted.length > 0,
        snapshotPairsOf(this.endpoints).get(endpoint.name),
      ),
    };
  }

  /** Stores the events of a page; the inbox ids of those that were not stored before. */
  private async storeAll(
    events: readonly NewWebhookEvent[],
  ): Promise<{ storedIds: string[]; missing: number }> {
    const results = await Promise.all(events.map((event) => this.store.record(event)));
    return {
      storedIds: results.filter((result) => !result.duplicate).map(({ id }) => id),
      missing: 0,
    };
  }

  /** In a dry run: how many of a page's events the inbox does not have. */
  private async missing(
    jobs: RecoveryJobs,
    job: RecoveryJob,
    events: readonly NewWebhookEvent[],
  ): Promise<number> {
    const stored = await jobs.storedEventIds(
      job.endpoint,
      job.tenant ?? '',
      events.map((event) => event.eventId),
    );
    return new Set(events.map((event) => event.eventId).filter((id) => !stored.has(id))).size;
  }

  /** Waits so that a recovery with a rate reads at most `ratePerSecond` events a second. */
  private async keepPace(
    job: RecoveryJob,
    read: number,
    started: number,
    stopped: AbortSignal,
  ): Promise<void> {
    if (job.ratePerSecond === null || read === 0) {
      return;
    }
    const wait = (read / job.ratePerSecond) * 1000 - (Date.now() - started);
    if (wait <= 0) {
      return;
    }
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, wait);
      stopped.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
