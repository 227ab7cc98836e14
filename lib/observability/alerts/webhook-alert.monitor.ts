import type { ResolvedWebhooksOptions } from '../../options/webhooks-options.resolver';
import { InboxSampler, isAcknowledged } from '../inbox-sampler';
import { RecentKeys } from '../recent-keys';
import { safeText } from '../../telemetry/safe-text';
import { ADMIN, CLI, shellWord } from '../../telemetry/operator-hints';
import { WebhookAlerts } from './webhook-alerts';
import {
  AttemptRecord,
  DeliveryRecord,
  SettledRecord,
  WebhookTelemetry,
} from '../../telemetry/webhook-telemetry';
import { SafeLogger } from '../../telemetry/safe-logger';

/** Payments remembered as already alerted on; older ones may alert again after this many. */
const REMEMBERED_PAYMENTS = 10_000;
/** Longest error text an alert carries. */
const MAX_ALERT_ERROR = 500;
/** Bounds of the silence check interval, in ms. */
const MIN_SILENCE_CHECK_MS = 500;
const MAX_SILENCE_CHECK_MS = 60_000;

/** Failure groups remembered as failing; past this many the oldest are forgotten. */
const REMEMBERED_GROUPS = 10_000;

/** A failure group this process saw failing, since its handler last succeeded. */
interface FailingGroup {
  readonly endpoint: string;
  readonly handler: string | null;
  readonly fingerprint: string;
  readonly since: number;
}

/**
 * What to run to look at a group and replay it, on the CLI and over HTTP: each command and each
 * route (with its JSON body) between backticks, exactly as it runs.
 */
export function groupHints(fingerprint: string): string {
  const group = shellWord(fingerprint);
  const query = encodeURIComponent(fingerprint);
  return (
    `See it: \`${CLI} events groups --group ${group}\` (or \`GET ${ADMIN}/groups?fingerprint=${query}\`); ` +
    `once the cause is fixed: \`${CLI} events replay --group ${group} --dry-run\`, then ` +
    `\`${CLI} events replay --group ${group}\` (or \`POST ${ADMIN}/replay?fingerprint=${query}&dryRun=true {}\`, ` +
    `then \`POST ${ADMIN}/replays?fingerprint=${query} {}\` to replay it in the background)`
  );
}

/** Bad-signature refusals on one endpoint since its last acknowledged delivery. */
interface SignatureRun {
  /** Receipt times of the latest refusals, within the window, oldest first. */
  times: number[];
  /** The alert for this run has been raised. */
  fired: boolean;
}

/** A duration as a person reads it: `45 s`, `12 min`, `3.5 h`. */
function duration(ms: number): string {
  if (ms < 120_000) {
    return `${Math.round(ms / 1000)} s`;
  }
  if (ms < 7_200_000) {
    return `${Math.round(ms / 60_000)} min`;
  }
  return `${Math.round(ms / 360_000) / 10} h`;
}

/**
 * Watches the telemetry stream and the inbox for the conditions worth waking someone for, and
 * raises each through `WebhookAlerts` once per condition: a dead letter, a run of bad
 * signatures on an endpoint, an endpoint gone silent, a payment with too many events.
 */
export class WebhookAlertMonitor {
  private readonly logger = new SafeLogger('WebhookAlerts');
  private readonly signatureRuns = new Map<string, SignatureRun>();
  /** Per silent endpoint, the last delivery time (ms) its alert was raised for. */
  private readonly silences = new Map<string, number>();
  private readonly stormedPayments = new RecentKeys(REMEMBERED_PAYMENTS);
  /** Failing groups by endpoint, handler and fingerprint, oldest first. */
  private readonly failing = new Map<string, FailingGroup>();
  private unsubscribe?: () => void;
  private timer?: NodeJS.Timeout;
  private checking = false;

  constructor(
    private readonly options: ResolvedWebhooksOptions,
    private readonly telemetry: WebhookTelemetry,
    private readonly alerts: WebhookAlerts,
    private readonly sampler: InboxSampler,
  ) {}

  /** Watches deliveries and settlements, and starts the silence check when one is expected. */
  start(): void {
    // NOTE: registered without alerts configured only under forRootAsync(), whose options
    // arrive after the module is built: it then stays idle.
    if (!this.options.observability.alerts.enabled) {
      return;
    }
    this.unsubscribe = this.telemetry.subscribe({
      delivery: (record) => this.onDelivery(record),
      attempt: (record) => this.onAttempt(record),
      settled: (record) => this.onSettled(record),
    });
    const expected = [...this.options.observability.expectDeliveryWithinMs.values()];
    if (expected.length === 0) {
      return;
    }
    const interval = Math.min(
      MAX_SILENCE_CHECK_MS,
      Math.max(MIN_SILENCE_CHECK_MS, Math.floor(Math.min(...expected) / 2)),
    );
    this.timer = setInterval(() => void this.checkSilence(), interval);
    this.timer.unref();
  }

  /** Stops watching. */
  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
    this.unsubscribe?.();
  }

  /**
   * Raises `endpoint_silent` for each endpoint silent longer than its `expectDeliveryWithinMs`,
   * once per silence. Runs on a timer; skipped while the inbox cannot be read.
   */
  async checkSilence(): Promise<void> {
    if (this.checking) {
      return;
    }
    this.checking = true;
    try {
      const sample = await this.sampler.sample();
      if (!sample.databaseUp) {
        return;
      }
      const silent = new Map(
        this.sampler.silentEndpoints().map((entry) => [entry.endpoint, entry] as const),
      );
      for (const endpoint of this.options.observability.expectDeliveryWithinMs.keys()) {
        const entry = silent.get(endpoint);
        if (!entry) {
          this.silences.delete(endpoint);
          continue;
        }
        const since = (entry.lastDeliveryAt ?? this.sampler.startedAt).getTime();
        if (this.silences.get(endpoint) === since) {
          continue;
        }
        this.silences.set(endpoint, since);
        const last = entry.lastDeliveryAt
          ? `the last one arrived at ${entry.lastDeliveryAt.toISOString()}`
          : 'none is stored';
        this.alerts.raise({
          kind: 'endpoint_silent',
          endpoint,
          provider: this.providerOf(endpoint),
          at: new Date(),
          message:
            `Endpoint "${endpoint}" has had no acknowledged delivery for ${duration(entry.silentForMs)} ` +
            `(expected within ${duration(entry.expectDeliveryWithinMs)}; ${last}). Check the provider's ` +
            'dashboard for failing deliveries and the route, proxy and secret in between.',
          lastDeliveryAt: entry.lastDeliveryAt,
          silentForMs: entry.silentForMs,
          expectDeliveryWithinMs: entry.expectDeliveryWithinMs,
        });
      }
    } catch (error) {
      this.logger.warn(
        `Checking for silent endpoints failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    } finally {
      this.checking = false;
    }
  }

  private onDelivery(record: DeliveryRecord): void {
    if (!this.options.endpoints.has(record.endpoint)) {
      return;
    }
    if (record.decision === 'rejected_signature') {
      this.noteSignatureFailure(record);
      return;
    }
    if (!isAcknowledged(record.decision)) {
      return;
    }
    this.signatureRuns.delete(record.endpoint);
    if (record.decision !== 'duplicate') {
      for (const paymentRef of new Set(record.paymentRefs ?? [])) {
        void this.checkPayment(record, paymentRef);
      }
    }
  }

  private noteSignatureFailure(record: DeliveryRecord): void {
    const { signatureFailureThreshold: threshold, signatureFailureWindowMs: windowMs } =
      this.options.observability.alerts;
    const at = record.receivedAt.getTime();
    const run = this.signatureRuns.get(record.endpoint) ?? { times: [], fired: false };
    run.times = [...run.times, at].filter((time) => time > at - windowMs).slice(-threshold);
    this.signatureRuns.set(record.endpoint, run);
    if (run.fired || run.times.length < threshold) {
      return;
    }
    run.fired = true;
    this.alerts.raise({
      kind: 'signature_failures',
      endpoint: record.endpoint,
      provider: this.providerOf(record.endpoint),
      at: new Date(),
      message:
        `${run.times.length} deliveries in a row on endpoint "${record.endpoint}" were refused for a bad ` +
        `signature within ${duration(windowMs)}: the provider's secret may have been rotated without ` +
        'updating the endpoint (add the new one to its secrets), or someone is probing the endpoint.',
      failures: run.times.length,
      windowMs,
      firstAt: new Date(run.times[0]),
    });
  }

  private async checkPayment(record: DeliveryRecord, paymentRef: string): Promise<void> {
    const threshold = this.options.observability.alerts.paymentEventThreshold;
    let events: number;
    try {
      events = await this.sampler.countPaymentEvents(record, paymentRef);
    } catch (error) {
      this.logger.debug(
        `Counting the events of a payment failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      return;
    }
    const key = `${record.endpoint}\u0000${paymentRef}`;
    if (events <= threshold || this.stormedPayments.has(key)) {
      return;
    }
    this.stormedPayments.add(key);
    this.alerts.raise({
      kind: 'payment_event_storm',
      endpoint: record.endpoint,
      provider: this.providerOf(record.endpoint),
      at: new Date(),
      message:
        `Payment ${paymentRef} on endpoint "${record.endpoint}" has ${events} stored events, more than ` +
        `${threshold}: the provider keeps sending about it (a loop on either side, or a disputed payment).`,
      paymentRef,
      events,
      threshold,
    });
  }

  /** A handler that ran (or found its run in the ledger) ends the failing groups it had. */
  private onAttempt(record: AttemptRecord): void {
    // NOTE: a run found in the ledger (`already_done`) ran nothing now: it tells nothing of the cause.
    if (
      record.outcome === 'failed' ||
      record.outcome === 'already_done' ||
      this.failing.size === 0
    ) {
      return;
    }
    const ended = [...this.failing.entries()].filter(
      ([, group]) => group.endpoint === record.endpoint && group.handler === record.handler,
    );
    if (ended.length === 0) {
      return;
    }
    ended.forEach(([key]) => this.failing.delete(key));
    const fingerprints = ended.map(([, group]) => group.fingerprint);
    const since = Math.min(...ended.map(([, group]) => group.since));
    this.alerts.raise({
      kind: 'handler_recovered',
      endpoint: record.endpoint,
      provider: record.provider,
      at: new Date(),
      message:
        `Handler ${record.handler} on endpoint "${record.endpoint}" succeeded again (event ${record.id}), ` +
        `failing since ${new Date(since).toISOString()} in group(s) ${fingerprints.join(', ')}. ` +
        `Events that went dead meanwhile still wait: \`${CLI} events groups --status dead\` ` +
        `(or \`GET ${ADMIN}/groups?status=dead\`).`,
      handler: record.handler,
      fingerprints,
      failingSince: new Date(since),
    });
  }

  private onSettled(record: SettledRecord): void {
    if (record.status !== 'retrying' && record.status !== 'dead') {
      return;
    }
    const failures = record.failures ?? [];
    if (record.status === 'retrying') {
      for (const failure of failures) {
        this.firstFailure(record, failure);
      }
      return;
    }
    failures.forEach((failure) => this.remember(record.endpoint, failure));
    const fingerprints = [...new Set(failures.map((failure) => failure.fingerprint))];
    const error = safeText(record.error ?? 'no error recorded').slice(0, MAX_ALERT_ERROR);
    const next =
      fingerprints.length === 1
        ? groupHints(fingerprints[0])
        : `See it: \`${CLI} events show ${record.id}\` (or \`GET ${ADMIN}/events/${record.id}\`); once the ` +
          `cause is fixed: \`${CLI} events replay ${record.id}\` ` +
          `(or \`POST ${ADMIN}/events/${record.id}/redeliver {}\`)`;
    this.alerts.raise({
      kind: 'dead_letter',
      endpoint: record.endpoint,
      provider: record.provider,
      at: new Date(),
      message:
        `Event ${record.id} (${record.endpoint}/${record.eventId}, ${record.type}) is dead after ` +
        `${record.attempt} attempt(s): ${error}. ${next}.`,
      id: record.id,
      eventId: record.eventId,
      type: record.type,
      paymentRef: record.paymentRef,
      attempt: record.attempt,
      error,
      fingerprints,
    });
  }

  /** Raises `handler_failing` for a group not failing yet in this process. */
  private firstFailure(
    record: SettledRecord,
    failure: NonNullable<SettledRecord['failures']>[number],
  ): void {
    if (!this.remember(record.endpoint, failure)) {
      return;
    }
    const who = failure.handler === null ? 'Events' : `Handler ${failure.handler}`;
    const scope = failure.handler === null ? {} : { handler: failure.handler };
    this.alerts.raise({
      kind: 'handler_failing',
      endpoint: record.endpoint,
      provider: record.provider,
      at: new Date(),
      message:
        `${who} on endpoint "${record.endpoint}" started failing: ${failure.errorClass} on event ${record.id} ` +
        `(${record.eventId}, attempt ${record.attempt}), retried with backoff. ${groupHints(failure.fingerprint)}. ` +
        `If a system it calls is down: \`${CLI} pause --endpoint ${shellWord(record.endpoint)}` +
        `${failure.handler === null ? '' : ` --handler ${shellWord(failure.handler)}`}\` ` +
        `(or \`POST ${ADMIN}/pause ${JSON.stringify({ endpoint: record.endpoint, ...scope })}\`).`,
      handler: failure.handler,
      fingerprint: failure.fingerprint,
      errorClass: failure.errorClass,
      id: record.id,
      attempt: record.attempt,
    });
  }

  /** Remembers a failing group; true when it was not failing yet. */
  private remember(
    endpoint: string,
    failure: NonNullable<SettledRecord['failures']>[number],
  ): boolean {
    const key = [endpoint, failure.handler ?? '', failure.fingerprint].join('\u0000');
    if (this.failing.has(key)) {
      return false;
    }
    if (this.failing.size >= REMEMBERED_GROUPS) {
      this.failing.delete(this.failing.keys().next().value!);
    }
    this.failing.set(key, {
      endpoint,
      handler: failure.handler,
      fingerprint: failure.fingerprint,
      since: Date.now(),
    });
    return true;
  }

  private providerOf(endpoint: string): string {
    return this.options.endpoints.get(endpoint)?.provider.kind ?? 'unknown';
  }
}
