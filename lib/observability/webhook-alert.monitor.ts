import type { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { InboxSampler, isAcknowledged } from './inbox-sampler';
import { RecentKeys } from './recent-keys';
import { safeText } from '../telemetry/safe-text';
import { WebhookAlerts } from './webhook-alerts';
import { DeliveryRecord, SettledRecord, WebhookTelemetry } from '../telemetry/webhook-telemetry';
import { SafeLogger } from '../telemetry/safe-logger';

/** Payments remembered as already alerted on; older ones may alert again after this many. */
const REMEMBERED_PAYMENTS = 10_000;
/** Longest error text an alert carries. */
const MAX_ALERT_ERROR = 500;
/** Bounds of the silence check interval, in ms. */
const MIN_SILENCE_CHECK_MS = 500;
const MAX_SILENCE_CHECK_MS = 60_000;

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
      settled: (record) => this.onSettled(record),
    });
    const expected = [...this.options.observability.expectDeliveryWithin.values()];
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
   * Raises `endpoint_silent` for each endpoint silent longer than its `expectDeliveryWithin`,
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
      for (const endpoint of this.options.observability.expectDeliveryWithin.keys()) {
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

  private onSettled(record: SettledRecord): void {
    if (record.status !== 'dead') {
      return;
    }
    const error = safeText(record.error ?? 'no error recorded').slice(0, MAX_ALERT_ERROR);
    this.alerts.raise({
      kind: 'dead_letter',
      endpoint: record.endpoint,
      provider: record.provider,
      at: new Date(),
      message:
        `Event ${record.id} (${record.endpoint}/${record.eventId}, ${record.type}) is dead after ` +
        `${record.attempt} attempt(s): ${error}. Fix the cause, then WebhookAdmin.redeliver('${record.id}').`,
      id: record.id,
      eventId: record.eventId,
      type: record.type,
      paymentRef: record.paymentRef,
      attempt: record.attempt,
      error,
    });
  }

  private providerOf(endpoint: string): string {
    return this.options.endpoints.get(endpoint)?.provider.kind ?? 'unknown';
  }
}
