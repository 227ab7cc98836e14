import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { RecoveryJob, RecoveryJobs } from '../store/ports/recovery-jobs.port';
import { SafeLogger } from '../telemetry/safe-logger';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';

/** Windows shorter than this are not worth a recovery: deliveries that recent may still come. */
const SHORTEST_WINDOW_MS = 60_000;

/** Who starts the scheduled recoveries, as their history and `recoveries` name it. */
export const SCHEDULE_ACTOR = 'recover-schedule';

/**
 * Starts the recoveries of the endpoints that set `recover`: at once when the app starts (which
 * covers the time it was down) and every `everyMs`. Each reads from where the endpoint's last
 * recovery ended or, before its first, from the last event the endpoint received (a new app
 * recovers nothing from before its first delivery), at most `lookBackMs` back, to now. Every
 * instance runs the schedule; one recovery per period is stored, whichever instance stores it
 * first, and any instance runs it.
 */
export class RecoverySchedule {
  private readonly logger = new SafeLogger('WebhookRecovery');
  private readonly timers: NodeJS.Timeout[] = [];

  constructor(
    private readonly jobs: RecoveryJobs | undefined,
    private readonly endpoints: ReadonlyMap<string, WebhookEndpoint>,
    private readonly started: () => void,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** The endpoints it recovers on their own (tenant endpoints are recovered per tenant, by hand). */
  get scheduled(): WebhookEndpoint[] {
    return [...this.endpoints.values()].filter(
      (endpoint) => endpoint.recover !== undefined && !isTenantEndpoint(endpoint),
    );
  }

  start(): void {
    if (!this.jobs) {
      return;
    }
    for (const endpoint of this.scheduled) {
      void this.tick(endpoint);
      const timer = setInterval(() => void this.tick(endpoint), endpoint.recover!.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    this.timers.splice(0).forEach((timer) => clearInterval(timer));
  }

  /** Stores the recovery of `endpoint`'s current period, unless it is stored or not due. */
  async tick(endpoint: WebhookEndpoint): Promise<RecoveryJob | null> {
    const { everyMs, lookBackMs } = endpoint.recover!;
    try {
      const now = this.now();
      const earliest = now.getTime() - lookBackMs;
      const from =
        (await this.jobs!.recoveredUntil(endpoint.name, null)) ??
        (await this.jobs!.lastReceivedAt(endpoint.name, null));
      if (from === null) {
        return null;
      }
      const since = new Date(Math.max(from.getTime(), earliest));
      if (now.getTime() - since.getTime() < SHORTEST_WINDOW_MS) {
        return null;
      }
      const job = await this.jobs!.startScheduledRecoveryJob(
        {
          endpoint: endpoint.name,
          tenant: null,
          since,
          until: now,
          dryRun: false,
          ratePerSecond: null,
          actor: SCHEDULE_ACTOR,
        },
        String(Math.floor(now.getTime() / everyMs)),
      );
      if (job) {
        this.logger.log(
          `Recovery ${job.id} of "${endpoint.name}" scheduled: ${since.toISOString()} to ${now.toISOString()}`,
        );
        this.started();
      }
      return job;
    } catch (error) {
      this.logger.warn(
        `Scheduling the recovery of "${endpoint.name}" failed (tried again in ${everyMs} ms): ` +
          (error instanceof Error ? error.message : String(error)),
      );
      return null;
    }
  }
}
