import { createHash } from 'node:crypto';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { ProviderPaymentStatus } from '../providers/payment-status-client.interface';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { InboxSignal } from '../store/work/inbox-signal';
import { InboxWriter } from '../store/ports/inbox-writer.port';
import { ResolvedWebhooksOptions } from '../options/webhooks-options.resolver';
import { PendingPayment, PendingPaymentsSource } from './pending-payments.source';
import { SafeLogger } from '../telemetry/safe-logger';
import { renamedOption } from '../core/deprecated-options';

const DEFAULT_LIMIT = 100;
const DEFAULT_OLDER_THAN_MS = 15 * 60_000;
/** Status checks running at once: enough to be quick, few enough not to hit rate limits. */
const CHECK_CONCURRENCY = 4;

/** Options of `ReconciliationService.reconcile()`. */
export interface ReconcileOptions {
  /** The endpoint whose provider is asked. Required. */
  endpoint: string;
  /**
   * Only payments older than this many milliseconds.
   * @default 900000 (15 minutes)
   */
  olderThanMs?: number;
  /**
   * Only payments started before this time (instead of `olderThanMs`). A number here is
   * deprecated since 1.0 and removed in 2.0: give milliseconds as `olderThanMs`.
   */
  olderThan?: Date | number;
  /**
   * Most payments checked in this run.
   * @default 100
   */
  limit?: number;
}

/** A payment whose status could not be checked. */
export interface ReconciliationFailure {
  readonly paymentRef: string;
  readonly error: string;
}

/** What one reconciliation run found. */
export interface ReconciliationReport {
  readonly endpoint: string;
  /** Payments asked about. */
  readonly checked: number;
  /** The provider agrees the payment is not finished yet. */
  readonly inAgreement: number;
  /** The provider reports a final state the app never heard of: a synthetic event was stored. */
  readonly recovered: number;
  /** The synthetic event for that state was stored by an earlier run and is still in the inbox. */
  readonly alreadyRecovered: number;
  /** Payments the provider could not be asked about. */
  readonly failed: readonly ReconciliationFailure[];
}

/**
 * Finds payments whose notification never came: asks the provider about every payment the
 * application still believes unfinished, and for each final state it reports stores a
 * synthetic event (dedup key `reconcile:<paymentRef>:<status>`) in the same inbox, so the same
 * handlers apply it exactly once.
 */
export class ReconciliationService {
  private readonly logger = new SafeLogger('Reconciliation');
  private readonly timers: NodeJS.Timeout[] = [];
  private readonly running = new Set<string>();

  /** @internal the module constructs it; an app injects it, so its dependencies are not part of the API. */
  constructor(
    private readonly options: ResolvedWebhooksOptions,
    private readonly store: InboxWriter,
    private readonly registry: WebhookHandlerRegistry,
    private readonly signal: InboxSignal,
    /** The app's `PendingPaymentsSource`, if it registered one. */
    private readonly findSource: () => PendingPaymentsSource | undefined,
  ) {}

  start(): void {
    for (const schedule of this.options.reconciliation) {
      this.endpointFor(schedule.endpoint);
      const timer = setInterval(() => {
        if (this.running.has(schedule.endpoint)) {
          return;
        }
        this.reconcile(schedule).catch((error: unknown) =>
          this.logger.error(
            `Scheduled reconciliation of "${schedule.endpoint}" failed: ${(error as Error).message}`,
          ),
        );
      }, schedule.intervalMs);
      timer.unref();
      this.timers.push(timer);
    }
  }

  stop(): void {
    this.timers.forEach((timer) => clearInterval(timer));
  }

  /**
   * Runs one reconciliation of an endpoint.
   * @throws WebhookConfigurationError when the endpoint is unknown, has no status client, or
   * no `PendingPaymentsSource` is registered.
   */
  async reconcile(options: ReconcileOptions): Promise<ReconciliationReport> {
    const endpoint = this.endpointFor(options?.endpoint);
    const client = endpoint.statusClient!;
    const limit = options.limit ?? DEFAULT_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1) {
      throw new RangeError(`limit must be a positive integer (got ${String(limit)})`);
    }
    const olderThan = cutoffOf(options);
    const source = this.source();
    this.running.add(endpoint.name);
    try {
      const payments = await source.pendingPayments({
        endpoint: endpoint.name,
        olderThan,
        limit,
      });
      const counts = { inAgreement: 0, recovered: 0, alreadyRecovered: 0 };
      const failed: ReconciliationFailure[] = [];
      const queue = [...payments.slice(0, limit)];
      const worker = async () => {
        for (let payment = queue.shift(); payment; payment = queue.shift()) {
          let answer: ProviderPaymentStatus;
          try {
            answer = await client.fetchStatus({
              paymentRef: payment.paymentRef,
              merchantRef: payment.merchantRef ?? null,
              type: 'reconciliation',
              nativeType: 'reconciliation',
              payload: null,
            });
          } catch (error) {
            failed.push({ paymentRef: payment.paymentRef, error: (error as Error).message });
            continue;
          }
          if (answer.type === undefined) {
            counts.inAgreement += 1;
            continue;
          }
          const stored = await this.inject(endpoint, payment, answer).catch((error: unknown) => {
            failed.push({ paymentRef: payment.paymentRef, error: (error as Error).message });
            return undefined;
          });
          if (stored === 'recovered') {
            counts.recovered += 1;
          } else if (stored === 'already') {
            counts.alreadyRecovered += 1;
          }
        }
      };
      await Promise.all(Array.from({ length: CHECK_CONCURRENCY }, worker));
      const report: ReconciliationReport = {
        endpoint: endpoint.name,
        checked: Math.min(payments.length, limit),
        ...counts,
        failed,
      };
      const line =
        `Reconciled "${endpoint.name}": checked=${report.checked} in_agreement=${report.inAgreement} ` +
        `recovered=${report.recovered} already_recovered=${report.alreadyRecovered} failed=${failed.length}`;
      if (failed.length > 0) {
        this.logger.warn(line);
      } else {
        this.logger.log(line);
      }
      return report;
    } finally {
      this.running.delete(endpoint.name);
    }
  }

  private async inject(
    endpoint: WebhookEndpoint,
    payment: PendingPayment,
    answer: ProviderPaymentStatus,
  ): Promise<'recovered' | 'already'> {
    const type = answer.type!;
    const body = JSON.stringify({
      source: 'reconciliation',
      paymentRef: answer.paymentRef,
      merchantRef: payment.merchantRef ?? null,
      status: answer.status,
      type,
      amount: answer.amount ?? null,
      currency: answer.currency ?? null,
      checkedAt: answer.checkedAt.toISOString(),
    });
    const wanted =
      this.registry.match({
        endpoint: endpoint.name,
        provider: endpoint.provider.kind,
        type,
        nativeType: answer.status,
      }).length > 0;
    const result = await this.store.record({
      endpoint: endpoint.name,
      provider: endpoint.provider.kind,
      eventId: `reconcile:${answer.paymentRef}:${answer.status}`,
      type,
      nativeType: answer.status,
      paymentRef: answer.paymentRef,
      merchantRef: payment.merchantRef ?? null,
      amount: answer.amount ?? null,
      currency: answer.currency ?? null,
      paymentStatus: answer.status,
      occurredAt: answer.checkedAt,
      receivedAt: new Date(),
      rawBody: body,
      bodySha256: createHash('sha256').update(body).digest('hex'),
      headers: {},
      status: wanted ? 'pending' : 'ignored',
    });
    if (result.duplicate) {
      return 'already';
    }
    this.logger.log(
      `Recovered ${type} for ${answer.paymentRef} on "${endpoint.name}" (provider status "${answer.status}")`,
    );
    if (wanted) {
      this.signal.notify();
    }
    return 'recovered';
  }

  private endpointFor(name: string | undefined): WebhookEndpoint {
    const endpoint = name === undefined ? undefined : this.options.endpoints.get(name);
    if (!endpoint) {
      throw new WebhookConfigurationError(
        `Cannot reconcile endpoint ${JSON.stringify(name)}: no such endpoint. Known: ${[
          ...this.options.endpoints.keys(),
        ].join(', ')}.`,
      );
    }
    if (!endpoint.statusClient) {
      throw new WebhookConfigurationError(
        `Cannot reconcile endpoint "${endpoint.name}" (${endpoint.provider.kind}): it has no status client. ` +
          (isTenantEndpoint(endpoint)
            ? "A tenant endpoint's credentials are each tenant's; it is not reconciled."
            : `Give the endpoint the provider's API credentials (docs/providers/${endpoint.provider.kind}.md).`),
      );
    }
    return endpoint;
  }

  private source(): PendingPaymentsSource {
    const source = this.findSource();
    if (!source) {
      throw new WebhookConfigurationError(
        'Reconciliation needs to know which payments the application still believes unfinished: ' +
          'register a provider { provide: PendingPaymentsSource, useClass: YourSource } in your Nest app, ' +
          'or pass `pendingPayments` to `createWebhooksRouter()`.',
      );
    }
    return source;
  }
}

const RECONCILE = 'ReconciliationService.reconcile()';

/** The time before which a payment counts as unfinished: `olderThan`'s Date, or the age's. */
function cutoffOf(options: ReconcileOptions): Date {
  if (options.olderThan instanceof Date) {
    if (options.olderThanMs !== undefined) {
      throw new WebhookConfigurationError(
        `${RECONCILE}: \`olderThan\` (a time) and \`olderThanMs\` (an age) are both given: keep one.`,
      );
    }
    return options.olderThan;
  }
  const ageMs = renamedOption(
    options.olderThanMs,
    options.olderThan,
    {
      from: 'olderThan',
      to: 'olderThanMs',
      where: RECONCILE,
      unit: 'milliseconds; a Date stays `olderThan`',
      code: 'NPW_DEP_RECONCILE_OLDER_THAN',
    },
    RECONCILE,
  );
  return new Date(Date.now() - (ageMs ?? DEFAULT_OLDER_THAN_MS));
}
