import type { BackfillJob, BackfillJobs } from '../store/ports/backfill-jobs.port';
import { SafeLogger } from '../telemetry/safe-logger';

export type { BackfillJob, BackfillScope } from '../store/ports/backfill-jobs.port';

/** Most backfills listed at once. */
const MAX_LIST_LIMIT = 1000;
/** Most events a backfill with a rate passes a second. */
const MAX_RATE = 100_000;
/** Most types one backfill names. */
const MAX_TYPES = 100;

/** Options of `WebhookBackfills.start()`. */
export interface WebhookBackfillOptions {
  /** The handler to run, by its key: `ClassName.method`, or the name it was registered under. Required. */
  handler: string;
  /** The start of the window: events received at or after it. Required. */
  since: Date;
  /**
   * The end of the window: events received before it (never later than the start).
   * @default now
   */
  until?: Date;
  /** Only the events of this endpoint. */
  endpoint?: string;
  /** Only the events of this tenant (of a tenant endpoint). */
  tenant?: string;
  /** Only the events of these types, normalized (`payment.succeeded`) or `'<kind>:<native>'`. */
  types?: readonly string[];
  /**
   * Runs nothing: counts the events the handler would run on.
   * @default false
   */
  dryRun?: boolean;
  /**
   * Most events passed a second, a whole number.
   * @default no limit
   */
  ratePerSecond?: number;
  /** Who starts it, for each event's history. */
  actor?: string;
}

/**
 * Why a backfill cannot start: an unknown handler or endpoint, a reversed window. A
 * `RangeError` to an app (the class itself is not exported); the admin routes answer it 400.
 */
export class WebhookBackfillError extends RangeError {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookBackfillError';
  }
}

/** What a backfill is checked against before it is stored: the app's handlers and endpoints. */
export interface BackfillChecks {
  readonly handlers: () => readonly string[];
  readonly endpoints: ReadonlySet<string>;
}

/**
 * Runs one handler over events already stored: a handler added later (a new analytics sink, a
 * CRM sync) catches up on the events of a window, once per event through its ledger, while the
 * events' other handlers do not run again and the events keep their status. A backfill runs in
 * the background on an instance that has the handler, event by event; each run, its ledger row,
 * a `backfill` row in the event's history and the backfill's cursor commit together, so it
 * carries on after a crash without running the handler twice. Follow one with `backfill(id)`,
 * stop it with `cancel(id)`.
 */
export class WebhookBackfills {
  private readonly logger = new SafeLogger('WebhookBackfill');

  /**
   * @param checks the app's handlers and endpoints, which a backfill is checked against; left
   *   out (the CLI), a backfill waits for an instance with its handler.
   * @internal the module constructs it; an app injects it.
   */
  constructor(
    private readonly jobs: BackfillJobs | undefined,
    private readonly checks?: BackfillChecks,
    private readonly started: () => void = () => undefined,
  ) {}

  /**
   * Starts a backfill in the background and returns it at once, with the number of events it
   * will look at (`total`).
   * @throws RangeError when the handler or the endpoint is unknown, or the window is empty.
   */
  async start(options: WebhookBackfillOptions): Promise<BackfillJob> {
    const jobs = this.requireJobs();
    const now = new Date();
    const { handler, since, endpoint, tenant, types, dryRun = false } = options ?? {};
    const { ratePerSecond, actor } = options ?? {};
    const until = options.until === undefined || options.until > now ? now : options.until;
    if (typeof handler !== 'string' || handler === '') {
      throw new WebhookBackfillError('name the handler to run (handler)');
    }
    if (!(since instanceof Date) || Number.isNaN(since.getTime())) {
      throw new WebhookBackfillError('give the start of the window as a Date (since)');
    }
    if (!(until instanceof Date) || Number.isNaN(until.getTime())) {
      throw new WebhookBackfillError(
        'give the end of the window as a Date (until), or leave it out for now',
      );
    }
    if (since >= until) {
      throw new WebhookBackfillError(
        `the window's start (${since.toISOString()}) is not before its end (${until.toISOString()})`,
      );
    }
    for (const [name, value] of [
      ['endpoint', endpoint],
      ['tenant', tenant],
    ] as const) {
      if (value !== undefined && (typeof value !== 'string' || value === '')) {
        throw new WebhookBackfillError(`${name} must be a non-empty text when given`);
      }
    }
    if (
      types !== undefined &&
      (!Array.isArray(types) ||
        types.length > MAX_TYPES ||
        types.some((type) => typeof type !== 'string' || type === ''))
    ) {
      throw new WebhookBackfillError(`types must be a list of at most ${MAX_TYPES} event types`);
    }
    if (typeof dryRun !== 'boolean') {
      throw new WebhookBackfillError(`dryRun must be true or false (got ${String(dryRun)})`);
    }
    if (
      ratePerSecond !== undefined &&
      !(Number.isInteger(ratePerSecond) && ratePerSecond > 0 && ratePerSecond <= MAX_RATE)
    ) {
      throw new WebhookBackfillError(
        `ratePerSecond must be a whole number from 1 to ${MAX_RATE} (got ${ratePerSecond})`,
      );
    }
    this.check(handler, endpoint);
    const job = await jobs.startBackfillJob({
      handler,
      scope: {
        since,
        until,
        ...(endpoint === undefined ? {} : { endpoint }),
        ...(tenant === undefined ? {} : { tenant }),
        ...(types === undefined || types.length === 0 ? {} : { types: [...new Set(types)] }),
      },
      dryRun,
      ratePerSecond: ratePerSecond ?? null,
      actor: actor ?? null,
    });
    this.logger.log(
      `Backfill ${job.id} of ${handler} started${dryRun ? ' (dry run)' : ''}: ` +
        `${job.total} event(s) received from ${since.toISOString()} to ${until.toISOString()}`,
    );
    this.started();
    return job;
  }

  /** The backfills, newest first (at most `limit`, default 20). */
  list(limit = 20): Promise<BackfillJob[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.requireJobs().backfillJobs(limit);
  }

  /** One backfill, with its progress; null when there is none. */
  backfill(id: string): Promise<BackfillJob | null> {
    return this.requireJobs().backfillJob(id);
  }

  /** Cancels a running backfill: no run starts after this. False when it was not running. */
  cancel(id: string): Promise<boolean> {
    return this.requireJobs().cancelBackfillJob(id);
  }

  /** Refuses a handler or an endpoint the app does not have. */
  private check(handler: string, endpoint: string | undefined): void {
    if (!this.checks) {
      return;
    }
    const handlers = this.checks.handlers();
    if (!handlers.includes(handler)) {
      throw new WebhookBackfillError(
        `No handler "${handler}": the app's handlers are ${handlers.map((key) => `"${key}"`).join(', ') || 'none'}`,
      );
    }
    if (endpoint !== undefined && !this.checks.endpoints.has(endpoint)) {
      throw new WebhookBackfillError(
        `No endpoint "${endpoint}": the app's endpoints are ${[...this.checks.endpoints].map((name) => `"${name}"`).join(', ')}`,
      );
    }
  }

  private requireJobs(): BackfillJobs {
    if (!this.jobs) {
      throw new WebhookBackfillError(
        'this store keeps no backfills: its InboxQueries has no `backfills` (the TypeORM store has)',
      );
    }
    return this.jobs;
  }
}
