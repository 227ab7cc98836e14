import { DataSource } from 'typeorm';
import { serveActivity } from '../admin/inbox-page';
import { ReplayJobRunner } from '../replay/replay-job-runner';
import { RecoveryJobRunner } from '../recovery/recovery-job-runner';
import { WebhookRecoveries } from '../recovery/webhook-recoveries';
import { RecoverySchedule } from '../recovery/recovery-schedule';
import {
  BACKFILL_JOB_SETTINGS,
  BackfillJobRunner,
  BackfillJobSettings,
} from '../backfill/backfill-job-runner';
import { WebhookBackfills } from '../backfill/webhook-backfills';
import { HandlerRuns } from '../dispatch/handler-runs';
import { FailureBreaker } from '../dispatch/failure-breaker';
import { pauseLines, WebhookAdmin } from '../admin/webhook-admin';
import { WebhookDispatcher } from '../dispatch/webhook.dispatcher';
import { WebhookEventProcessor } from '../dispatch/webhook-event.processor';
import { OpenWebhookTransport } from '../dispatch/webhook-transport';
import { InlineDispatch } from '../dispatch/inline-dispatch';
import { systemClock } from '../dispatch/clock';
import { WebhookHandlerRegistry } from '../handlers/webhook-handler.registry';
import { PROVIDER_DESCRIPTORS } from '../providers/descriptors';
import { isTenantEndpoint } from '../tenants/tenant-endpoint';
import type { WebhookDelivery } from '../ingress/webhook-delivery';
import { WebhookIngress } from '../ingress/webhook-ingress';
import { IngressAnswer } from '../ingress/ingress-answer';
import { WebhooksModuleOptions } from '../options/webhooks-module-options.interface';
import { ActivityRecorder } from '../observability/activity-recorder';
import { InboxSampler } from '../observability/inbox-sampler';
import { SafeLogger } from '../telemetry/safe-logger';
import { WebhookAlertMonitor } from '../observability/alerts/webhook-alert.monitor';
import { WebhookAlerts } from '../observability/alerts/webhook-alerts';
import { WebhookTelemetry } from '../telemetry/webhook-telemetry';
import { WebhooksHealthIndicator } from '../observability/webhooks-health.indicator';
import { WebhooksMetrics } from '../observability/webhooks-metrics';
import { PendingPaymentsSource } from '../reconciliation/pending-payments.source';
import { ReconciliationService } from '../reconciliation/reconciliation';
import { ExpiringIdempotencyRecords, WebhookRetention } from '../retention/webhook-retention';
import { InboxSignal } from '../store/work/inbox-signal';
import type { WebhookStore } from '../store/ports/webhook-store.port';
import { defaultStore } from './default-store';
import { WebhookTransactions } from '../store/connections/webhook-transactions';
import { ResolvedWebhooksOptions, resolvedOptionsOf } from '../options/webhooks-options.resolver';

/** What the engine is built from. */
export interface WebhooksEngineConfig {
  /** The options `WebhooksModule.forRoot()` and `createWebhooksRouter()` take, or those resolved. */
  readonly options: WebhooksModuleOptions | ResolvedWebhooksOptions;
  /** The TypeORM data source holding the inbox (initialized), when the engine builds its store. */
  readonly dataSource?: DataSource;
  /**
   * The inbox to use instead of the TypeORM store on `dataSource`. The engine initializes it
   * before use and closes it with itself.
   */
  readonly store?: WebhookStore;
  /** The app's source of unfinished payments, for reconciliation, looked up when it runs. */
  readonly pendingPayments?: () => PendingPaymentsSource | undefined;
  /** Expired idempotency records to purge with retention, when the app uses them. */
  readonly idempotency?: ExpiringIdempotencyRecords | null;
  /**
   * How this engine runs the backfills, over the defaults (a 30 s lease). For the package's own
   * tests: a process killed in a backfill is carried on by its restart once the lease runs out.
   */
  readonly backfillSettings?: Partial<BackfillJobSettings>;
}

/**
 * The whole webhook engine, free of any HTTP framework: ingest (verify → store → answer), the
 * worker, the handler registry, settlement, reconciliation, retention and observability, built
 * from one set of options on one data source. The Nest module and the Express router are thin
 * adapters over it: they read raw bytes, call {@link ingest}, write the answer, and register
 * handlers in {@link registry}.
 */
export class WebhooksEngine {
  readonly registry: WebhookHandlerRegistry;
  readonly signal = new InboxSignal();
  readonly telemetry = new WebhookTelemetry();
  readonly ingress: WebhookIngress;
  /** The in-process worker (idle when a transport runs the handlers). */
  readonly dispatcher: WebhookDispatcher;
  /** The transport running the handlers elsewhere (`dispatch.transport`), when one is set. */
  readonly transport: OpenWebhookTransport | null;
  readonly transactions: WebhookTransactions;
  readonly admin: WebhookAdmin;
  readonly reconciliation: ReconciliationService;
  /** Recoveries from the providers' event logs. */
  readonly recoveries: WebhookRecoveries;
  /** Backfills of one handler over stored events. */
  readonly backfills: WebhookBackfills;
  readonly retention: WebhookRetention;
  readonly sampler: InboxSampler;
  readonly health: WebhooksHealthIndicator;
  /** Present always; registers metrics only when `observability.metrics` is on. */
  readonly metrics: WebhooksMetrics;
  /** Present always; raises alerts only when `observability.alerts` is configured. */
  readonly alerts: WebhookAlerts;
  /** This process's deliveries and handler runs over the last hour, for the inbox page. */
  readonly activity: ActivityRecorder;
  private readonly alertMonitor: WebhookAlertMonitor;
  private readonly replays: ReplayJobRunner;
  private readonly recoveryRunner: RecoveryJobRunner;
  private readonly recoverySchedule: RecoverySchedule;
  private readonly backfillRunner: BackfillJobRunner;
  private readonly breaker: FailureBreaker;
  private started = false;

  private constructor(
    readonly options: ResolvedWebhooksOptions,
    readonly store: WebhookStore,
    config: WebhooksEngineConfig,
  ) {
    const endpoints = [...options.endpoints.values()];
    this.registry = new WebhookHandlerRegistry(
      options.endpoints.keys(),
      [
        ...endpoints.map((endpoint) => endpoint.provider.kind),
        ...PROVIDER_DESCRIPTORS.map((descriptor) => descriptor.kind),
      ],
      endpoints.filter(isTenantEndpoint).map((endpoint) => endpoint.name),
    );
    const logger = new SafeLogger('WebhookDispatcher');
    const processor = new WebhookEventProcessor(
      store,
      this.registry,
      options,
      this.telemetry,
      logger,
    );
    this.dispatcher = new WebhookDispatcher(store, processor, this.signal, options, logger);
    this.ingress = new WebhookIngress(
      options,
      store,
      this.registry,
      this.signal,
      this.telemetry,
      new InlineDispatch(options, store, this.registry, processor, this.dispatcher, this.telemetry),
    );
    this.transport =
      options.dispatch.transport?.open({
        worker: store,
        processor,
        signal: this.signal,
        options,
        database: store.database,
        logger,
        clock: systemClock,
      }) ?? null;
    this.transactions = new WebhookTransactions(store);
    this.replays = new ReplayJobRunner(store.queries, this.signal);
    this.recoveryRunner = new RecoveryJobRunner(
      store.queries.recoveries,
      store,
      options.endpoints,
      this.registry,
      this.signal,
    );
    this.recoveries = new WebhookRecoveries(store.queries.recoveries, options.endpoints, () =>
      this.recoveryRunner.kick(),
    );
    this.recoverySchedule = new RecoverySchedule(store.queries.recoveries, options.endpoints, () =>
      this.recoveryRunner.kick(),
    );
    this.backfillRunner = new BackfillJobRunner(
      store.queries.backfills,
      this.registry,
      options.endpoints,
      new HandlerRuns(store, this.telemetry, logger, systemClock),
      processor.pauses,
      { ...BACKFILL_JOB_SETTINGS, ...config.backfillSettings },
    );
    this.backfills = new WebhookBackfills(
      store.queries.backfills,
      { handlers: () => this.registry.keys(), endpoints: new Set(options.endpoints.keys()) },
      () => this.backfillRunner.kick(),
    );
    this.admin = new WebhookAdmin(
      store.queries,
      this.signal,
      {
        pausesChanged: () => processor.pauses.forget(),
        replayStarted: () => this.replays.kick(),
      },
      () => ({ endpoints: [...options.endpoints.keys()], handlers: this.registry.keys() }),
      this.recoveries,
      this.backfills,
    );
    this.reconciliation = new ReconciliationService(
      options,
      store,
      this.registry,
      this.signal,
      config.pendingPayments ?? (() => undefined),
    );
    this.retention = new WebhookRetention(store.queries, options, config.idempotency);
    this.sampler = new InboxSampler(store.queries, store, options, this.telemetry);
    this.health = new WebhooksHealthIndicator(options, this.sampler, this.transport);
    this.metrics = new WebhooksMetrics(options, this.telemetry, this.sampler, this.transport);
    this.alerts = new WebhookAlerts(options);
    this.activity = new ActivityRecorder(this.telemetry);
    serveActivity(this.admin, this.activity);
    this.alertMonitor = new WebhookAlertMonitor(options, this.telemetry, this.alerts, this.sampler);
    this.breaker = new FailureBreaker(
      options.dispatch.pauseAfterFailures,
      this.telemetry,
      {
        pause: (scope, reason) => this.admin.pause(scope, { actor: 'circuit-breaker', reason }),
        raise: (alert) => this.alerts.raise(alert),
      },
      logger,
    );
  }

  /**
   * Checks the options, builds the TypeORM store on `dataSource` unless a `store` is given,
   * and initializes it (the inbox's tables; on SQLite its own connection); nothing runs until
   * {@link start}.
   * @throws WebhookConfigurationError naming the fix
   */
  static async create(config: WebhooksEngineConfig): Promise<WebhooksEngine> {
    const options = resolvedOptionsOf(config.options);
    const store = config.store ?? defaultStore(config.dataSource, options);
    await store.initialize?.();
    try {
      return new WebhooksEngine(options, store, config);
    } catch (error) {
      await store.close?.();
      throw error;
    }
  }

  /** Verifies, stores and answers one delivery; see {@link WebhookIngress.ingest}. */
  ingest(delivery: WebhookDelivery): Promise<IngressAnswer> {
    return this.ingress.ingest(delivery);
  }

  /**
   * Starts what runs in the background: metrics and alerts listening, the reconciliation and
   * retention schedules, and the worker or the transport (unless `dispatch.enabled` is false).
   * Call it once the handlers are registered. Waits for no broker: a transport whose broker is
   * down keeps the events in the inbox until it answers.
   */
  async start(): Promise<void> {
    if (this.started) {
      return;
    }
    this.started = true;
    this.metrics.start();
    this.alertMonitor.start();
    this.reconciliation.start();
    this.retention.start();
    this.replays.start();
    this.recoveryRunner.start();
    this.recoverySchedule.start();
    this.breaker.start();
    if (!this.options.dispatch.enabled) {
      return;
    }
    if (this.transport) {
      await this.transport.start();
    } else {
      this.dispatcher.start();
    }
    this.backfillRunner.start();
    void this.reportPauses();
  }

  /** Warns of the pauses of dispatch in force, which hold handlers of this process too. */
  private async reportPauses(): Promise<void> {
    const logger = new SafeLogger('WebhookDispatcher');
    try {
      for (const line of pauseLines(await this.store.queries.pauses())) {
        logger.warn(line);
      }
    } catch (error) {
      logger.warn(
        `The pauses of dispatch could not be read at startup: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }

  /**
   * Stops the background work: schedules and listeners at once, then the worker, which lets
   * running handlers finish (up to `dispatch.shutdownTimeoutMs`) and gives the rest back.
   */
  async stop(): Promise<void> {
    this.started = false;
    this.alertMonitor.stop();
    this.breaker.stop();
    this.reconciliation.stop();
    this.recoverySchedule.stop();
    this.metrics.stop();
    this.sampler.stop();
    await Promise.all([
      this.dispatcher.stop(),
      this.transport?.stop(),
      this.retention.stop(),
      this.replays.stop(),
      this.recoveryRunner.stop(),
      this.backfillRunner.stop(),
    ]);
  }

  /** Closes what the store opened of its own (on SQLite its connection); the app's data source stays open. */
  async close(): Promise<void> {
    await this.transport?.close();
    await this.store.close?.();
  }
}
