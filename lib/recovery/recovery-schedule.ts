import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { RecoveryJob, RecoveryJobs } from '../store/ports/recovery-jobs.port';
import { SafeLogger } from '../telemetry/safe-logger';
import { isTenantEndpoint, TenantEndpoint } from '../tenants/tenant-endpoint';
import { recoveryProblems, TENANT_UNKNOWN } from './recovery.messages';

/** Windows shorter than this are not worth a recovery: deliveries that recent may still come. */
const SHORTEST_WINDOW_MS = 60_000;

/** Who starts the scheduled recoveries, as their history and `recoveries` name it. */
export const SCHEDULE_ACTOR = 'recover-schedule';

/**
 * Starts the recoveries of the endpoints that set `recover`: at once when the app starts (which
 * covers the time it was down) and every `everyMs`. Each reads from where the endpoint's last
 * recovery ended or, before its first, from the last event the endpoint received (a new app
 * recovers nothing from before its first delivery), at most `lookBackMs` back, to now. A tenant
 * endpoint is recovered per tenant, for each tenant it has events of, each from its own last
 * recovery or event and with its own credentials; a tenant `resolveTenant` cannot resolve now
 * (or without an event log) is left out of the period with one warning. Every instance runs the
 * schedule; one recovery per period (and tenant) is stored, whichever instance stores it first,
 * and any instance runs it.
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

  /** The endpoints it recovers (a tenant endpoint's tenants each on their own). */
  get scheduled(): WebhookEndpoint[] {
    return [...this.endpoints.values()].filter((endpoint) => endpoint.recover !== undefined);
  }

  start(): void {
    if (!this.jobs) {
      return;
    }
    for (const endpoint of this.scheduled) {
      void this.period(endpoint);
      const timer = setInterval(() => void this.period(endpoint), endpoint.recover!.everyMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    this.timers.splice(0).forEach((timer) => clearInterval(timer));
  }

  /**
   * Stores the recoveries of `endpoint`'s current period: its own, or one per tenant it has
   * events of on a tenant endpoint; those stored now (not by another instance, and due).
   */
  async period(endpoint: WebhookEndpoint): Promise<RecoveryJob[]> {
    if (!isTenantEndpoint(endpoint)) {
      const job = await this.tick(endpoint);
      return job ? [job] : [];
    }
    let tenants: string[];
    try {
      tenants = await this.jobs!.tenantsWithEvents(endpoint.name);
    } catch (error) {
      this.failed(endpoint, null, error);
      return [];
    }
    const stored: RecoveryJob[] = [];
    // NOTE: one after the other, so a platform of many tenants asks its store (and
    // resolveTenant) one tenant at a time; a tenant that fails is logged and passed over.
    for (const tenant of tenants) {
      const job = await this.tick(endpoint, tenant);
      if (job) {
        stored.push(job);
      }
    }
    return stored;
  }

  /**
   * Stores the recovery of `endpoint`'s (or its `tenant`'s) current period, unless it is stored,
   * not due, or the tenant cannot be recovered now (logged once).
   */
  async tick(endpoint: WebhookEndpoint, tenant: string | null = null): Promise<RecoveryJob | null> {
    const { everyMs, lookBackMs } = endpoint.recover!;
    const target =
      tenant === null ? `"${endpoint.name}"` : `tenant "${tenant}" of "${endpoint.name}"`;
    try {
      const now = this.now();
      const earliest = now.getTime() - lookBackMs;
      const from =
        (await this.jobs!.recoveredUntil(endpoint.name, tenant)) ??
        (await this.jobs!.lastReceivedAt(endpoint.name, tenant));
      if (from === null) {
        return null;
      }
      const since = new Date(Math.max(from.getTime(), earliest));
      if (now.getTime() - since.getTime() < SHORTEST_WINDOW_MS) {
        return null;
      }
      if (tenant !== null && isTenantEndpoint(endpoint)) {
        const problem = await tenantProblem(endpoint, tenant, { since, until: now });
        if (problem !== undefined) {
          this.logger.warn(
            `The recovery of ${target} is not scheduled this period (tried again in ${everyMs} ms): ${problem}`,
          );
          return null;
        }
      }
      const job = await this.jobs!.startScheduledRecoveryJob(
        {
          endpoint: endpoint.name,
          tenant,
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
          `Recovery ${job.id} of ${target} scheduled: ${since.toISOString()} to ${now.toISOString()}`,
        );
        this.started();
      }
      return job;
    } catch (error) {
      this.failed(endpoint, tenant, error);
      return null;
    }
  }

  private failed(endpoint: WebhookEndpoint, tenant: string | null, error: unknown): void {
    const target =
      tenant === null ? `"${endpoint.name}"` : `tenant "${tenant}" of "${endpoint.name}"`;
    this.logger.warn(
      `Scheduling the recovery of ${target} failed (tried again in ${endpoint.recover!.everyMs} ms): ` +
        (error instanceof Error ? error.message : String(error)),
    );
  }
}

/**
 * Why the log of a tenant endpoint's `tenant` cannot be read for `window` now: `resolveTenant`
 * knows no such tenant, fails, or gives it no API credentials; undefined when it can.
 */
async function tenantProblem(
  endpoint: TenantEndpoint,
  tenant: string,
  window: { readonly since: Date; readonly until: Date },
): Promise<string | undefined> {
  let own: WebhookEndpoint | null;
  try {
    own = await endpoint.tenants.endpointOf(tenant);
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  if (own === null) {
    return TENANT_UNKNOWN(endpoint.name, tenant);
  }
  return recoveryProblems(endpoint.name, own, window, window.until);
}
