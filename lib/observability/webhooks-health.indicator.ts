import type { OpenWebhookTransport, WebhookTransportStatus } from '../dispatch/webhook-transport';
import type { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import type { DispatchPause } from '../store/ports/pause-queries.port';
import { InboxSample, InboxSampler, SilentEndpoint, StoreFailure } from './inbox-sampler';

/** One threshold check: the value seen, its limit, and whether it is within it. */
export type WebhooksHealthMeasure = {
  /** Null when the database could not be read. */
  readonly value: number | null;
  /** Null when not checked. */
  readonly max: number | null;
  readonly ok: boolean;
};

/** What the health check found, without the overall status. */
export type WebhooksHealthDetails = {
  /** Whether the inbox could be read. */
  readonly database: { readonly up: boolean; readonly error?: string };
  /**
   * Whether deliveries can be stored: the database takes the package's writes (not read-only,
   * privileges granted, no lock holding them past `storeTimeoutMs`) and no delivery has failed
   * to be stored since a write last succeeded. Not checked (ok false, no error) while the inbox
   * cannot be read.
   */
  readonly writes: { readonly ok: boolean; readonly error?: string };
  /** Events waiting for their first run (status `pending`), over all endpoints. */
  readonly pendingBacklog: WebhooksHealthMeasure;
  /** How long the oldest `pending` event has waited, in ms (0 when none waits). */
  readonly oldestPendingAgeMs: WebhooksHealthMeasure;
  /** Events in the dead-letter state. */
  readonly deadLetters: WebhooksHealthMeasure;
  /** Endpoints silent for longer than their `expectDeliveryWithinMs`. */
  readonly silentEndpoints: readonly SilentEndpoint[];
  /**
   * The pauses of dispatch in force (see `WebhookAdmin.pause()`): deliberate, so not a problem
   * of their own, though the events they hold count in the backlog.
   */
  readonly paused: readonly DispatchPause[];
  /**
   * The broker of `dispatch.transport`, when one is set: whether it answered, and its queue's
   * job counts. Down while the events wait in the inbox for it.
   */
  readonly transport?: WebhookTransportStatus;
  /** One sentence per failed check; empty when healthy. */
  readonly problems: readonly string[];
  /** When the database sample behind this report was taken. */
  readonly sampledAt: Date;
};

/** The health of the webhook module as a plain object, for users without `@nestjs/terminus`. */
export type WebhooksHealthReport = { readonly status: 'up' | 'down' } & WebhooksHealthDetails;

/**
 * The result `@nestjs/terminus` expects from a health indicator (the shape
 * `HealthIndicatorService.check(key).up()` / `.down()` builds).
 */
export type WebhooksHealthIndicatorResult<Key extends string = string> = {
  [K in Key]: WebhooksHealthReport;
};

function measure(value: number | null, max: number | null): WebhooksHealthMeasure {
  return { value, max, ok: value === null || max === null || value <= max };
}

/** Whether deliveries can be stored, from the store's write check and the last failure seen. */
function writesOf(
  sample: InboxSample,
  failure: StoreFailure | undefined,
): WebhooksHealthDetails['writes'] {
  if (!sample.databaseUp) {
    return { ok: false };
  }
  if (sample.writeError !== undefined) {
    return { ok: false, error: sample.writeError };
  }
  if (failure) {
    return {
      ok: false,
      error: `the last one failed at ${failure.at.toISOString()}: ${failure.reason}`,
    };
  }
  return { ok: true };
}

/**
 * Reports whether the inbox is reachable, can be written and keeps up: the database answers
 * and takes the package's writes, the pending backlog and the oldest pending event's age are
 * under their thresholds, dead letters are under theirs (when set), and no endpoint has been
 * silent longer than its `expectDeliveryWithinMs`. Reads a cached database sample
 * (`observability.sampleCacheMs`), so frequent probes are cheap.
 *
 * Meant for monitoring, not for a liveness or readiness probe of the instances that receive
 * webhooks: taking them out of rotation because the backlog grew would stop the deliveries too.
 *
 * @example
 * ```ts
 * @Controller('health')
 * export class HealthController {
 *   constructor(
 *     private readonly health: HealthCheckService,
 *     private readonly webhooks: WebhooksHealthIndicator,
 *   ) {}
 *
 *   @Get()
 *   @HealthCheck()
 *   check() {
 *     return this.health.check([() => this.webhooks.isHealthy('webhooks')]);
 *   }
 * }
 * ```
 */
export class WebhooksHealthIndicator {
  /** @internal the module constructs it; an app injects it, so its dependencies are not part of the API. */
  constructor(
    private readonly options: ResolvedWebhooksOptions,
    private readonly sampler: InboxSampler,
    private readonly transport: Pick<OpenWebhookTransport, 'status'> | null = null,
  ) {}

  /**
   * A `@nestjs/terminus` health indicator result under `key`: status `up` or `down` with the
   * details of {@link checkHealth}. `HealthCheckService.check()` answers 503 when it is down.
   * @param key Name of the check in terminus's answer.
   * @default key 'webhooks'
   */
  async isHealthy<const Key extends string = 'webhooks'>(
    key: Key = 'webhooks' as Key,
  ): Promise<WebhooksHealthIndicatorResult<Key>> {
    const report = await this.checkHealth();
    return { [key]: report } as WebhooksHealthIndicatorResult<Key>;
  }

  /** Checks the module's health and returns a plain report; never throws. */
  async checkHealth(): Promise<WebhooksHealthReport> {
    const thresholds = this.options.observability.health;
    const [sample, transport] = await Promise.all([
      this.sampler.sample(),
      this.transport?.status(),
    ]);
    const now = Date.now();
    const up = sample.databaseUp;
    let pending = 0;
    let dead = 0;
    for (const counts of sample.depth.values()) {
      pending += counts.pending;
      dead += counts.dead;
    }
    const oldest = Math.min(...[...sample.oldestPendingAt.values()].map((at) => at.getTime()));
    const details = {
      database: up ? { up } : { up, error: sample.error },
      writes: writesOf(sample, this.sampler.storeFailure),
      pendingBacklog: measure(up ? pending : null, thresholds.maxPendingBacklog),
      oldestPendingAgeMs: measure(
        up ? (Number.isFinite(oldest) ? Math.max(0, now - oldest) : 0) : null,
        thresholds.maxOldestPendingMs,
      ),
      deadLetters: measure(up ? dead : null, thresholds.maxDeadLetters),
      silentEndpoints: this.sampler.silentEndpoints(now),
      paused: sample.paused,
      ...(transport ? { transport } : {}),
      sampledAt: sample.takenAt,
    };
    const problems = this.problems(details);
    return { status: problems.length === 0 ? 'up' : 'down', ...details, problems };
  }

  private problems(details: Omit<WebhooksHealthDetails, 'problems'>): string[] {
    const problems: string[] = [];
    if (!details.database.up) {
      problems.push(
        `The webhook inbox cannot be read: ${details.database.error ?? 'unknown error'}`,
      );
    }
    if (details.writes.error !== undefined) {
      problems.push(
        `Deliveries cannot be stored and are answered 503: ${details.writes.error.replace(/\.$/, '')}.`,
      );
    }
    const { pendingBacklog, oldestPendingAgeMs, deadLetters } = details;
    if (!pendingBacklog.ok) {
      problems.push(
        `${pendingBacklog.value} events wait for their first run, more than ${pendingBacklog.max}: ` +
          'the dispatchers are not keeping up or not running (dispatch.enabled).',
      );
    }
    if (!oldestPendingAgeMs.ok) {
      problems.push(
        `The oldest pending event has waited ${Math.round((oldestPendingAgeMs.value ?? 0) / 1000)} s, ` +
          `more than ${Math.round((oldestPendingAgeMs.max ?? 0) / 1000)} s.`,
      );
    }
    if (!deadLetters.ok) {
      problems.push(
        `${deadLetters.value} events are dead, more than ${deadLetters.max}: see why with ` +
          '`npx nestjs-payment-webhooks events groups --status dead` (or ' +
          '`GET /webhooks-admin/groups?status=dead`), fix the cause, then replay each group with ' +
          '`npx nestjs-payment-webhooks events replay --group <fingerprint>`.',
      );
    }
    if (details.transport && !details.transport.up) {
      const { kind, queue, error } = details.transport;
      problems.push(
        `The ${kind} queue "${queue}" cannot be reached (${(error ?? 'no answer').replace(/\.$/, '')}): ` +
          'deliveries are still stored and answered, and their events wait in the inbox until it answers.',
      );
    }
    for (const silent of details.silentEndpoints) {
      problems.push(
        `Endpoint "${silent.endpoint}" has had no acknowledged delivery for ` +
          `${Math.round(silent.silentForMs / 1000)} s (expected within ` +
          `${Math.round(silent.expectDeliveryWithinMs / 1000)} s).`,
      );
    }
    return problems;
  }
}
