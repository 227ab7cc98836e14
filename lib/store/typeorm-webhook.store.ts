import { DataSource, EntityManager } from 'typeorm';
import { storedBodyBytes } from './schema/stored-body';
import type { InboxEvent } from './ports/inbox-event';
import { EventSettlement } from './work/event-settlement';
import { HandlerBatches, HandlerBatchSettings } from './ledger/handler-batches';
import { HandlerLedger } from './ledger/handler-ledger';
import { InboxClaims } from './work/inbox-claims';
import { InboxNotifications } from './work/inbox-notifications';
import { InboxRecorder } from './intake/inbox-recorder';
import { InlineSettlement } from './intake/inline-settlement';
import { InlineRequest, InlineRun } from './ports/inline-run';
import { DEFAULT_STORE_TIMEOUT_MS } from './connections/answer-deadline';
import { TransmissionRecorder } from './intake/transmission-recorder';
import type { InboxQueries } from './ports/inbox-queries.port';
import { StoreConnection } from './connections/store-connection';
import { openStore } from './connections/store-startup';
import { typeOrmInboxQueries } from './typeorm-inbox-queries';
import { WorkVacuum } from './work/work-vacuum';
import {
  ClaimOptions,
  ExpiredLease,
  ReleaseOptions,
  HandlerRunOutcome,
  HandlerSettlement,
  ProcessedResult,
  StoredValues,
} from './ports/inbox-worker.port';
import {
  InlineRecordResult,
  NewTransmission,
  NewWebhookEvent,
  RecordResult,
  RecordedTransmission,
} from './ports/inbox-writer.port';
import { WebhookStore } from './ports/webhook-store.port';
import type { FailedAttempt } from './ports/event-history';
import type { DispatchPause } from './ports/pause-queries.port';
import { parkHeld } from './history/event-history';

/** Stored bodies as this store keeps them (`storedBodyText()`). */
const TYPEORM_STORED_VALUES: StoredValues = {
  bodyBytes: (event) => storedBodyBytes(event.rawBody),
};

/** How the store is set up beyond its data source. */
export interface TypeOrmWebhookStoreOptions {
  /**
   * Longest a delivery's write may take before its answer fails (see `storeTimeoutMs`).
   * @default 2000
   */
  readonly storeTimeoutMs?: number;
  /**
   * On SQLite, the intake file: deliveries that arrive while a transaction holds the database
   * file are stored there, answered, and moved into `webhook_events` once it ends.
   * @default the database's file name with `.webhooks` before its extension
   */
  readonly sqliteIntakePath?: string;
  /**
   * On PostgreSQL, run the inbox's fixed statements as named prepared statements.
   * @default true
   */
  readonly preparedStatements?: boolean;
  /**
   * On PostgreSQL, `VACUUM webhook_work` after this many claimed events (see `WorkVacuum`); 0
   * never.
   * @default 0
   */
  readonly vacuumWorkEvery?: number;
  /**
   * Commit handler runs in batches (`dispatch.batch`); left out, each run commits on its own.
   */
  readonly handlerBatches?: HandlerBatchSettings;
}

/**
 * The inbox on PostgreSQL or SQLite through a TypeORM data source. Each job is its own part:
 * recording deliveries, claims and leases, the handler ledger, settlement, LISTEN/NOTIFY, and
 * the operator queries ({@link queries}); all share one {@link StoreConnection}.
 */
export class TypeOrmWebhookStore implements WebhookStore {
  /** Reads and operator changes on the inbox (the `InboxQueries` port). */
  readonly queries: InboxQueries;
  readonly values: StoredValues = TYPEORM_STORED_VALUES;
  readonly database: 'postgres' | 'sqlite';
  private readonly connection: StoreConnection;
  private readonly recorder: InboxRecorder;
  private readonly transmissions: TransmissionRecorder;
  private readonly notifications: InboxNotifications;
  private readonly claims: InboxClaims;
  private readonly ledger: HandlerLedger;
  private readonly batches?: HandlerBatches;
  private readonly settlement: EventSettlement;
  private readonly inline: InlineSettlement;

  constructor(
    appDataSource: DataSource,
    private readonly options: TypeOrmWebhookStoreOptions = {},
  ) {
    this.connection = new StoreConnection(appDataSource, {
      preparedStatements: options.preparedStatements,
    });
    this.database = this.connection.dialect.kind;
    this.notifications = new InboxNotifications(this.connection);
    this.recorder = new InboxRecorder(this.connection, this.notifications, options.storeTimeoutMs);
    this.transmissions = new TransmissionRecorder(this.connection, this.recorder);
    this.claims = new InboxClaims(
      this.connection,
      new WorkVacuum(this.connection, options.vacuumWorkEvery ?? 0),
    );
    this.ledger = new HandlerLedger(this.connection);
    if (options.handlerBatches) {
      this.batches = new HandlerBatches(this.connection, this.ledger, options.handlerBatches);
    }
    this.settlement = new EventSettlement(this.connection);
    this.inline = new InlineSettlement(
      this.connection,
      this.recorder,
      this.ledger,
      this.notifications,
      options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS,
    );
    this.queries = typeOrmInboxQueries(this.connection);
  }

  /** Checks the data source can hold the inbox durably; fails startup with the fix otherwise. */
  initialize(): Promise<void> {
    return openStore(this.connection, this.options.sqliteIntakePath);
  }

  /** Closes the connections the store opened (on SQLite); the app's data source stays open. */
  async close(): Promise<void> {
    await this.connection.sqlite?.close();
  }

  /**
   * Fails with `WebhookStoreTimeoutError` once the event is not committed within
   * `storeTimeoutMs`. A write already sent may still commit after that; the provider's retry
   * then finds the event stored and is answered as a duplicate.
   */
  record(event: NewWebhookEvent): Promise<RecordResult> {
    return this.recorder.record(event);
  }

  recordAll(events: readonly NewWebhookEvent[]): Promise<RecordResult[]> {
    return this.recorder.recordAll(events);
  }

  /**
   * Stores a fresh event and runs `run` in the same transaction, before it commits (see
   * {@link InlineSettlement}); undefined, with nothing written, when that cannot be done now.
   */
  recordInline(
    event: NewWebhookEvent,
    request: InlineRequest,
    run: InlineRun,
  ): Promise<InlineRecordResult | undefined> {
    return this.inline.record(event, request, run);
  }

  recordTransmission(transmission: NewTransmission): Promise<RecordedTransmission> {
    return this.transmissions.record(transmission);
  }

  checkWrites(): Promise<string | undefined> {
    return this.recorder.checkWrites();
  }

  claim(
    workerId: string,
    limit: number,
    leaseMs: number,
    now: Date,
    options?: ClaimOptions,
  ): Promise<InboxEvent[]> {
    return this.claims.claim(workerId, limit, leaseMs, now, options);
  }

  extendLease(ids: string[], workerId: string, leaseMs: number, now: Date): Promise<void> {
    return this.claims.extendLease(ids, workerId, leaseMs, now);
  }

  expiredLeases(now: Date, limit: number): Promise<ExpiredLease[]> {
    return this.claims.expiredLeases(now, limit);
  }

  handOver(
    lease: ExpiredLease,
    holder: string,
    leaseMs: number,
    now: Date,
    nextAttempt: boolean,
  ): Promise<boolean> {
    return this.claims.handOver(lease, holder, leaseMs, now, nextAttempt);
  }

  takeOver(
    id: string,
    attempt: number,
    from: string,
    workerId: string,
    leaseMs: number,
    now: Date,
  ): Promise<InboxEvent | null> {
    return this.claims.takeOver(id, attempt, from, workerId, leaseMs, now);
  }

  release(ids: string[], workerId: string, now: Date, options?: ReleaseOptions): Promise<void> {
    return this.claims.release(ids, workerId, now, options);
  }

  finishedHandlers(eventId: string): Promise<Map<string, string | null>> {
    return this.ledger.finishedHandlers(eventId);
  }

  runHandler(
    eventId: string,
    handlerKey: string,
    attempt: number,
    work: (manager: EntityManager) => Promise<string | undefined>,
    settle?: HandlerSettlement,
  ): Promise<HandlerRunOutcome> {
    return (this.batches ?? this.ledger).runHandler(eventId, handlerKey, attempt, work, settle);
  }

  markProcessed(
    id: string,
    workerId: string,
    now: Date,
    result?: ProcessedResult,
  ): Promise<boolean> {
    return this.settlement.markProcessed(id, workerId, now, result);
  }

  markIgnored(id: string, workerId: string, now: Date): Promise<boolean> {
    return this.settlement.markIgnored(id, workerId, now);
  }

  scheduleRetry(
    id: string,
    workerId: string,
    nextAttemptAt: Date,
    error: string,
    result?: ProcessedResult,
    failed?: readonly FailedAttempt[],
  ): Promise<boolean> {
    return this.settlement.scheduleRetry(id, workerId, nextAttemptAt, error, result, failed);
  }

  markDead(
    id: string,
    workerId: string,
    error: string,
    failed?: readonly FailedAttempt[],
  ): Promise<boolean> {
    return this.settlement.markDead(id, workerId, error, failed);
  }

  pauses(): Promise<DispatchPause[]> {
    return this.queries.pauses();
  }

  park(
    id: string,
    workerId: string,
    endpoint: string,
    handlerKeys: readonly string[],
    now: Date,
  ): Promise<boolean | null> {
    return parkHeld(this.connection, id, workerId, endpoint, handlerKeys, now);
  }

  watch(listener: () => void): Promise<() => Promise<void>> {
    return this.notifications.watch(listener);
  }

  transaction<T>(work: (manager: EntityManager) => Promise<T>): Promise<T> {
    return this.connection.transaction(work);
  }
}
