import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { WebhookObservabilityOptions } from './webhooks-observability-options.interface';
import type { WebhookTransport } from '../dispatch/webhook-transport';

/** Retry policy for failing handlers. */
export interface WebhookRetryOptions {
  /**
   * Attempts before an event becomes `dead`. With the default delays, 25 attempts span
   * about 20 to 40 hours, longer than a day-long outage of whatever your handlers call.
   * @default 25
   */
  maxAttempts?: number;
  /**
   * Delay before the second attempt, in ms; doubles on each later one.
   * @default 5000
   * @advanced
   */
  baseDelayMs?: number;
  /**
   * Longest delay between attempts, in ms.
   * @default 10800000 (3 hours)
   * @advanced
   */
  maxDelayMs?: number;
}

/** How handler runs are committed in batches (`dispatch.batch`). */
export interface WebhookBatchOptions {
  /**
   * Most handler runs in one batch. Runs beyond it start another batch at once, on its own
   * connection on PostgreSQL, so several batches run side by side.
   * @default 8
   */
  size?: number;
  /**
   * How long a batch waits for more runs after its first one, in ms.
   * @default 2
   */
  waitMs?: number;
  /**
   * How long one handler may hold its batch, in ms. A handler still running then is cut off:
   * its writes are rolled back to its SAVEPOINT, any statement it sends afterwards fails, the
   * rest of the batch goes on, and once that first run has returned the handler runs again in a
   * transaction of its own, without the bound. On PostgreSQL its statements also run with this
   * `statement_timeout`. No new run starts in a batch open this long: the batch commits, and the
   * runs waiting go to the next one.
   * @default 250
   */
  handlerBoundMs?: number;
}

/** How fresh events settle on the answer path (`dispatch.inline`). */
export interface WebhookInlineOptions {
  /**
   * How long a delivery's transaction may run the event's handlers before it commits and
   * answers, in ms. A handler still running then is cut off: its writes are rolled back to its
   * SAVEPOINT, any statement it sends afterwards fails, the handlers after it do not start, and
   * the event runs on in the background once that run has returned. On PostgreSQL each statement
   * of the handlers also runs with this `statement_timeout`.
   * @default 250
   */
  boundMs?: number;
  /**
   * A handler whose runs in this process have lately taken longer than this on average, in
   * ms, runs in the background: its events are stored and answered, not settled on arrival.
   * The handlers of one delivery's transaction run one after the other, so a slow one would
   * hold up the answers of the deliveries that share it. The average weighs each new run a
   * fifth, over the handler's runs inline and in the background, so it follows a handler that
   * turns slow or quick again.
   * @default 10
   */
  slowHandlerMs?: number;
}

/** Background dispatch settings. */
export interface WebhookDispatchOptions {
  /**
   * Run handlers in this process. Turn off for an instance that only stores and answers
   * (ingress-only), in Nest and in Express alike: it starts neither the worker nor the
   * transport, so it claims nothing, and still runs what every instance runs (retention, the
   * reconciliation schedules, and metrics and alerts when configured). The instances with it on
   * run the handlers.
   * @default true
   */
  enabled?: boolean;
  /**
   * Events processed at once by this instance. On PostgreSQL each holds a pooled connection
   * while its handler's transaction is open, two are kept for storing deliveries and one
   * listens for other instances' events, so more than the pool's size minus three makes events
   * wait for connections. SQLite runs one handler transaction at a time.
   * @default 4
   * @advanced
   */
  concurrency?: number;
  /**
   * How often to look for due events when nothing woke the dispatcher, in ms.
   * @default 1000
   * @advanced
   */
  pollIntervalMs?: number;
  /**
   * How long a claimed event stays reserved for this worker, in ms; renewed while handlers run.
   * A crashed worker's events are reclaimed after it.
   * @default 30000
   * @advanced
   */
  leaseMs?: number;
  /**
   * On shutdown, how long to let running handlers finish before giving their events back, in ms.
   * @default 10000
   * @advanced
   */
  shutdownTimeoutMs?: number;
  /** Retry policy. */
  retry?: WebhookRetryOptions;
  /**
   * Commits handler runs in batches: the runs that are due within `waitMs` of each other share
   * one transaction, each inside its own SAVEPOINT, so a failing handler rolls back only its own
   * writes and ledger row, and the batch's commit is when all of them count. One commit and a
   * few statements serve many events. The handlers of a batch run one after the other on its
   * connection: turn this on when they write through `ctx.manager` and call out little; keep it
   * off when they spend most of their time waiting on other services. `true` takes the defaults.
   * @default false
   * @advanced
   */
  batch?: boolean | WebhookBatchOptions;
  /**
   * Settles fresh events on the answer path: a delivery's event is stored, its handlers run
   * (each in its own SAVEPOINT, `ctx.manager` on the delivery's transaction), and the event is
   * marked processed, all in one transaction that commits before the answer, within `boundMs`.
   * Deliveries arriving together share that transaction. What cannot finish there goes to the
   * background as before: a handler that throws (its own writes rolled back, the others' kept;
   * only it is retried), one cut off at the bound, a paused handler, one lately slower than
   * `slowHandlerMs`, an event with an earlier unsettled event of its payment
   * (`orderPerPayment`), an endpoint that asks the provider (`verifyWithProvider`), a delivery
   * of several events, another transport, an instance with `enabled: false`, and on SQLite a file
   * another process holds. Until the commit no other connection sees the event: keep it off when
   * handlers hand the event to a reader outside `ctx.manager`, or wait on slow services (the
   * answer waits for them, up to the bound). `true` takes the defaults.
   * @default false
   * @advanced
   */
  inline?: boolean | WebhookInlineOptions;
  /**
   * Pauses a handler on an endpoint after this many failed attempts of it in a row (counted by
   * each process that runs handlers; a success starts the count again), as `pause` would: its
   * events still arrive, are stored and answered, and wait instead of spending their attempts
   * while what it calls is down. It stays paused until resumed (`resume --endpoint …
   * --handler …`, `POST /webhooks-admin/resume` or `WebhookAdmin.resume()`), and raises a
   * `dispatch_paused` alert. Left out or 0: never.
   * @default 0
   * @advanced
   */
  pauseAfterFailures?: number;
  /**
   * Where handlers run. Left out, this process claims due events from the inbox and runs them
   * (any number of instances may share a PostgreSQL inbox). `bullmqTransport()` from
   * `nestjs-payment-webhooks/bullmq` hands them to BullMQ workers in other processes instead;
   * `enabled: false` still makes an ingress-only instance.
   */
  transport?: WebhookTransport;
}

/** Options for `WebhooksModule.forRoot()` / `forRootAsync()`. */
export interface WebhooksModuleOptions {
  /** The endpoints, each made by a typed factory: `stripeEndpoint({ name: 'stripe', secret })`. */
  endpoints: WebhookEndpoint[];
  /** Background dispatch settings. */
  dispatch?: WebhookDispatchOptions;
  /**
   * Use the client address from the platform's proxy handling (`X-Forwarded-For` through the
   * adapter's trust-proxy setting) instead of the socket address, for logs and allowlists.
   * @default false
   */
  trustProxy?: boolean;
  /**
   * Longest a delivery waits for its event to be committed, in ms: for its group-commit batch,
   * a connection, locks and the statement. Past it the delivery is answered 503 (journaled
   * with the reason) and the provider retries, instead of the provider's own timeout cutting
   * a request that hangs on a blocked store. On PostgreSQL the answer path's connections also
   * carry it as `statement_timeout` and `lock_timeout`, so the server gives up on the write
   * too; handlers and your own queries run without them. On SQLite a write that finds the
   * database locked by another connection is tried again until then. Between 100 and 30000:
   * a value outside is taken for seconds or microseconds given as milliseconds.
   * @default 2000 (well under the 5 s Paddle gives, the shortest of the supported providers)
   * @advanced
   */
  storeTimeoutMs?: number;
  /**
   * Reconciliation runs on a fixed interval, one entry per endpoint. For cron expressions use
   * `@nestjs/schedule` and call `ReconciliationService.reconcile()` from a `@Cron()` method.
   * @default []
   */
  reconciliation?: WebhookReconciliationSchedule[];
  /**
   * How long settled events are kept. A scheduled job (`WebhookRetention`) prunes payloads of
   * processed and ignored events, deletes them once their dedup window is over, and purges
   * expired idempotency keys. Dead events and events still to run are never touched.
   * @default { processedDays: 30, dedupDays: 7, intervalMs: 3600000, batchSize: 500 }
   */
  retention?: WebhookRetentionOptions;
  /**
   * Prometheus metrics (`prom-client`), health thresholds, alerts and the longest expected gap
   * between deliveries per endpoint.
   * @default metrics off, default thresholds, alerts logged
   */
  observability?: WebhookObservabilityOptions;
  /**
   * How the inbox uses the database: where it keeps what it needs besides the data source's
   * own tables, and whether its statements run prepared.
   * @default the intake next to the SQLite file; prepared statements on PostgreSQL
   * @advanced
   */
  storage?: WebhookStorageOptions;
}

/** How the inbox uses the data source's database, and the files it keeps beside it. */
export interface WebhookStorageOptions {
  /**
   * On SQLite, the intake file. A delivery that arrives while a transaction (a handler's, or
   * your own) holds the database file is stored there and answered at once, then moved into
   * `webhook_events` when the transaction ends. Not used on PostgreSQL or `:memory:`.
   * @default the database file's name with `.webhooks` before its extension
   * (`shop.sqlite` → `shop.webhooks.sqlite`)
   */
  sqliteIntakePath?: string;
  /**
   * On PostgreSQL, the inbox's own statements (recording a delivery, the ledger row,
   * settlement, leases; not the claim) run as named prepared statements: each pooled
   * connection parses and plans each of them once instead of on every run, which cut the
   * server's CPU per handled event by about a third. Turn it off behind a connection pooler
   * that hands a client a different server connection per transaction without tracking
   * prepared statements (PgBouncer in transaction mode before 1.21, or later without
   * `max_prepared_statements`). Your own queries are never prepared by the package.
   * @default true
   */
  preparedStatements?: boolean;
  /**
   * On PostgreSQL, run `VACUUM (SKIP_LOCKED) webhook_work` after this many events were claimed
   * by this instance (0: never). Each event's work row is inserted, updated and deleted, and
   * until a vacuum takes the dead versions away every claim walks past them; where autovacuum
   * is off or slow to reach the table, claims get slower with every event. A vacuum of the
   * nearly empty table takes milliseconds, and is skipped while another one holds it. It needs
   * the table's owner (or, from PostgreSQL 16, the `MAINTAIN` privilege); without it the server
   * skips it with a warning.
   * @default 10000
   */
  vacuumWorkEvery?: number;
}

/** Retention of settled events (`WebhookRetention`). */
export interface WebhookRetentionOptions {
  /**
   * Days a processed or ignored event keeps its raw body and headers, counted from its first
   * delivery. After that only the normalized columns, the body's SHA-256 and the dedup key stay.
   * @default 30
   */
  processedDays?: number;
  /**
   * Days a processed or ignored event's dedup key is kept at least: the event row is deleted
   * after the longer of `processedDays` and `dedupDays`, so a provider's late retry is still a
   * duplicate. At least 7, and at least the longest retry horizon among the configured
   * providers (Adyen retries for up to 30 days); a lower value fails at startup.
   * @default 7, or the longest retry horizon among the configured providers when longer
   */
  dedupDays?: number;
  /**
   * Milliseconds between runs, from startup; 0 turns the schedule off (call
   * `WebhookRetention.run()` yourself, or run `npx nestjs-payment-webhooks retention run`).
   * @default 3600000 (1 hour)
   * @advanced
   */
  intervalMs?: number;
  /**
   * Rows changed per transaction; each batch is its own short transaction.
   * @default 500
   * @advanced
   */
  batchSize?: number;
}

/** A reconciliation that runs by itself every `intervalMs`. */
export interface WebhookReconciliationSchedule {
  /** The endpoint whose provider is asked; it needs API credentials. */
  endpoint: string;
  /** Milliseconds between runs (at least 1000). */
  intervalMs: number;
  /**
   * Only payments older than this many milliseconds.
   * @default 900000 (15 minutes)
   * @advanced
   */
  olderThanMs?: number;
  /**
   * The payments' least age in milliseconds, under its name before 1.0.
   * @deprecated use `olderThanMs` (the same milliseconds); read until 2.0.
   */
  olderThan?: number;
  /**
   * Most payments checked per run.
   * @default 100
   * @advanced
   */
  limit?: number;
}
