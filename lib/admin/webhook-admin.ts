import { InboxSignal } from '../store/work/inbox-signal';
import {
  InboxQueries,
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from '../store/ports/inbox-queries.port';
import { REPLAYABLE_STATUSES, WebhookEventStatus } from '../store/ports/webhook-event-status';
import type { FailureGroup } from '../store/ports/event-history';
import type { DispatchPause, DispatchPauseScope } from '../store/ports/pause-queries.port';
import type { ReplayJob } from '../store/ports/replay-jobs.port';
import { SafeLogger } from '../telemetry/safe-logger';
import { MAX_LIST_LIMIT } from './event-filter-rules';
import { ConfiguredNames, OperatorNames } from './operator-names';
import { ReplayPace } from '../replay/replay-pace';
import { WebhookBackfills } from '../backfill/webhook-backfills';
import { WebhookRecoveries } from '../recovery/webhook-recoveries';
import type {
  FailureGroupListOptions,
  WebhookAdminHooks,
  WebhookDiscardOptions,
  WebhookDiscardReport,
  WebhookEventListOptions,
  WebhookOperator,
  WebhookPauseOptions,
  WebhookPurgeOptions,
  WebhookReplayJobOptions,
  WebhookReplayOptions,
  WebhookReplayReport,
} from './webhook-admin.options';

export type {
  EventHistoryEntry,
  FailureGroup,
  FailureGroupFilter,
} from '../store/ports/event-history';
export type { DispatchPause, DispatchPauseScope } from '../store/ports/pause-queries.port';
export type { ReplayJob } from '../store/ports/replay-jobs.port';
export type {
  WebhookEventDetails,
  WebhookEventFilter,
  WebhookEventSummary,
  WebhookInboxStats,
} from '../store/ports/inbox-queries.port';
export type {
  FailureGroupListOptions,
  WebhookAdminHooks,
  WebhookDiscardOptions,
  WebhookDiscardReport,
  WebhookEventListOptions,
  WebhookOperator,
  WebhookPauseOptions,
  WebhookPurgeOptions,
  WebhookReplayJobOptions,
  WebhookReplayOptions,
  WebhookReplayReport,
} from './webhook-admin.options';

const DEFAULT_LIST_LIMIT = 100;
const REPLAY_BATCH = 500;
const PURGE_BATCH = 500;
/** Statuses a replay puts back. */
const REPLAYABLE: readonly WebhookEventStatus[] = REPLAYABLE_STATUSES;
/** Statuses purge may delete: settled events only, never anything still to run. */
const PURGEABLE: readonly WebhookEventStatus[] = ['processed', 'ignored', 'dead'];

/** Most events a dry run lists by id. */
const DRY_RUN_SAMPLE = 10;
const DEFAULT_GROUP_LIMIT = 50;

/**
 * Looks at and repairs the inbox without SQL: list and show events, put them back through the
 * handlers, settle them by hand, purge old ones. A replayed event runs only the handlers not
 * already in its ledger, so a handler that succeeded never runs twice.
 */
export class WebhookAdmin {
  private readonly logger = new SafeLogger('WebhookAdmin');
  private readonly names: OperatorNames;
  /** Recoveries from the providers' event logs (see `WebhookRecoveries`). */
  readonly recoveries: WebhookRecoveries;
  /** Backfills of one handler over stored events (see `WebhookBackfills`). */
  readonly backfills: WebhookBackfills;

  /**
   * @param hooks `pausesChanged` tells this process's dispatcher that the pauses changed, so it
   * reads them at once rather than within a second; `replayStarted` tells this process's replay
   * runner that a replay waits.
   * @param configured the app's configured endpoints and registered handlers, which pause,
   * resume, replay and discard check the names they are given against (see `OperatorNames`);
   * left out (the CLI), the names the database records.
   * @param recoveries the app's recoveries, checked against its endpoints; left out (the CLI),
   *   recoveries checked by the instance that runs them.
   * @param backfills the app's backfills, checked against its handlers; left out (the CLI),
   *   backfills that wait for an instance with their handler.
   * @internal the module constructs it; an app injects it, so its dependencies are not part of the API.
   */
  constructor(
    private readonly queries: InboxQueries,
    private readonly signal: InboxSignal,
    private readonly hooks: WebhookAdminHooks = {},
    configured?: () => ConfiguredNames,
    recoveries?: WebhookRecoveries,
    backfills?: WebhookBackfills,
  ) {
    this.names = new OperatorNames(queries, configured);
    this.recoveries = recoveries ?? new WebhookRecoveries(queries.recoveries);
    this.backfills = backfills ?? new WebhookBackfills(queries.backfills);
  }

  /** Summaries of the stored events matching `options`, newest first: no body, no headers. */
  async list(options: WebhookEventListOptions = {}): Promise<WebhookEventSummary[]> {
    const limit = options.limit ?? DEFAULT_LIST_LIMIT;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.queries.list(options, limit);
  }

  /** How many stored events match `filter`. */
  count(filter: WebhookEventFilter = {}): Promise<number> {
    return this.queries.count(filter);
  }

  /** One event by inbox id, with its handler runs; null when there is none. */
  show(id: string): Promise<WebhookEventDetails | null> {
    return this.queries.find(id);
  }

  /**
   * Puts one stored event back through its handlers now, with a fresh attempt budget.
   * Handlers already in its ledger are skipped.
   * @returns false when there is no such event, it is already waiting, or a worker holds it
   * right now.
   */
  async redeliver(id: string, operator: WebhookOperator = {}): Promise<boolean> {
    const changed = await this.queries.replay([id], {
      actor: operator.actor ?? null,
      detail: JSON.stringify({ id }),
    });
    if (changed > 0) {
      this.logger.log(`Event ${id} put back in the inbox`);
      this.signal.notify();
    }
    return changed > 0;
  }

  /**
   * Puts every matching event back through its handlers, in batches.
   * @throws UnknownNameError (a RangeError) when the filter's `endpoint` or `handler` is none
   *   of the known ones (see `OperatorNames`); nothing is changed.
   * @example
   * await admin.replay({ status: 'dead', since: new Date(Date.now() - 86_400_000) });
   */
  async replay(options: WebhookReplayOptions = {}): Promise<WebhookReplayReport> {
    const { dryRun, ratePerSecond, signal, onProgress, actor, ...rest } = options;
    const filter: WebhookEventFilter = { ...rest, status: options.status ?? 'dead' };
    if (ratePerSecond !== undefined && !(ratePerSecond > 0)) {
      throw new RangeError(`ratePerSecond must be a positive number (got ${ratePerSecond})`);
    }
    await this.names.check('replay', filter);
    if (dryRun) {
      const sample = await this.queries.replayable(filter, DRY_RUN_SAMPLE);
      const wouldReplay =
        sample.length < DRY_RUN_SAMPLE ? sample.length : await this.replayableCount(filter);
      return { replayed: 0, wouldReplay, sample };
    }
    const pace =
      ratePerSecond === undefined
        ? null
        : new ReplayPace(ratePerSecond, { maxBatch: REPLAY_BATCH });
    const batch = pace?.batch ?? REPLAY_BATCH;
    const action = { actor: actor ?? null, detail: JSON.stringify(filterForHistory(filter)) };
    let replayed = 0;
    let canceled = false;
    for (;;) {
      if (signal?.aborted) {
        canceled = true;
        break;
      }
      const ids = await this.queries.replayable(filter, batch);
      if (ids.length === 0) {
        break;
      }
      const at = pace ? await pace.next(signal) : undefined;
      if (at === null) {
        canceled = true;
        break;
      }
      replayed += await this.queries.replay(ids, { ...action, at });
      onProgress?.(replayed);
      this.signal.notify();
      if (ids.length < batch) {
        break;
      }
    }
    this.logger.log(`Replayed ${replayed} event(s)${canceled ? ' before it was canceled' : ''}`);
    return canceled ? { replayed, canceled } : { replayed };
  }

  /**
   * Settles every dead or retrying event matching `filter` as `ignored`: a failure group whose
   * events should never run (`{ fingerprint }`), say. Events a worker holds right now are left.
   * @throws UnknownNameError (a RangeError) when the filter's `endpoint` or `handler` is none
   *   of the known ones (see `OperatorNames`); nothing is changed.
   */
  async discard(
    filter: WebhookEventFilter,
    options: WebhookDiscardOptions,
  ): Promise<WebhookDiscardReport> {
    if (typeof options?.reason !== 'string' || options.reason.trim() === '') {
      throw new TypeError('discard() needs a reason');
    }
    const selection: WebhookEventFilter = {
      ...filter,
      status: filter.status ?? ['dead', 'retrying'],
    };
    const statuses = typeof selection.status === 'string' ? [selection.status] : selection.status!;
    const invalid = statuses.filter((status) => status !== 'dead' && status !== 'retrying');
    if (invalid.length > 0) {
      throw new TypeError(
        `discard() settles dead or retrying events only; got ${invalid.join(', ')}`,
      );
    }
    await this.names.check('discard', selection);
    if (options.dryRun) {
      return { discarded: 0, wouldDiscard: await this.queries.count(selection) };
    }
    let discarded = 0;
    let after = new Set<string>();
    for (;;) {
      const ids = (await this.queries.replayable(selection, REPLAY_BATCH)).filter(
        (id) => !after.has(id),
      );
      if (ids.length === 0) {
        break;
      }
      for (const id of ids) {
        if (await this.queries.settleByHand(id, 'ignored', options.reason, options.actor ?? null)) {
          discarded += 1;
        }
      }
      // NOTE: an event a worker held is skipped, not looked for again and again.
      after = new Set([...after, ...ids]);
    }
    this.logger.log(`Discarded ${discarded} event(s): ${options.reason}`);
    return { discarded };
  }

  /** Dead and retrying events grouped by endpoint, handler and error fingerprint, largest first. */
  failureGroups(options: FailureGroupListOptions = {}): Promise<FailureGroup[]> {
    const { limit = DEFAULT_GROUP_LIMIT, ...filter } = options;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.queries.failureGroups(filter, limit);
  }

  /**
   * Pauses dispatch of an endpoint's events, of one handler, or of one handler on one endpoint
   * (`*` or left out: every one). Deliveries are still verified, stored and answered; the
   * handlers held do not run until `resume()`. Every instance sees it within a second.
   * @returns false when that scope was paused already.
   * @throws UnknownNameError (a RangeError) when `scope` names an endpoint that is not
   *   configured or a handler that is not registered; nothing is paused.
   */
  async pause(scope: DispatchPauseScope, options: WebhookPauseOptions = {}): Promise<boolean> {
    await this.names.check('pause', scope);
    const paused = await this.queries.pause(scope, options.actor ?? null, options.reason ?? null);
    this.hooks.pausesChanged?.();
    if (paused) {
      this.logger.warn(
        `Dispatch paused: ${describeScope(scope)}${options.reason ? ` (${options.reason})` : ''}`,
      );
    }
    return paused;
  }

  /**
   * Lifts the pause of `scope`; the events it held run again.
   * @returns null when `scope` was not paused, else how many held events fell due.
   * @throws UnknownNameError (a RangeError) when `scope` names an endpoint or a handler that is
   *   neither configured nor paused; nothing is resumed.
   */
  async resume(scope: DispatchPauseScope): Promise<number | null> {
    await this.names.check('resume', scope);
    const woken = await this.queries.resume(scope);
    this.hooks.pausesChanged?.();
    if (woken !== null) {
      this.logger.log(`Dispatch resumed: ${describeScope(scope)}; ${woken} held event(s) due now`);
      this.signal.notify();
    }
    return woken;
  }

  /** The pauses of dispatch in force, oldest first. */
  pauses(): Promise<DispatchPause[]> {
    return this.queries.pauses();
  }

  /**
   * Starts a replay in the background and returns it at once: the events matching `options`
   * now (received before it starts) are put back in batches by whichever instance takes it,
   * at most `ratePerSecond` a second. Follow it with `replayJob(id)`, stop it with
   * `cancelReplay(id)`; it carries on after a restart, and is safe with several instances.
   * @throws UnknownNameError (a RangeError) when the filter's `endpoint` or `handler` is none
   *   of the known ones (see `OperatorNames`); nothing is changed.
   */
  async startReplay(options: WebhookReplayJobOptions = {}): Promise<ReplayJob> {
    const { ratePerSecond, actor, ...rest } = options;
    if (ratePerSecond !== undefined && !(Number.isInteger(ratePerSecond) && ratePerSecond > 0)) {
      throw new RangeError(`ratePerSecond must be a positive whole number (got ${ratePerSecond})`);
    }
    const filter: WebhookEventFilter = { ...rest, status: options.status ?? 'dead' };
    await this.names.check('replay', filter);
    const job = await this.queries.startReplayJob({
      filter,
      total: await this.replayableCount(filter),
      ratePerSecond: ratePerSecond ?? null,
      actor: actor ?? null,
    });
    this.logger.log(`Replay ${job.id} started in the background: ${job.total} event(s)`);
    this.hooks.replayStarted?.();
    return job;
  }

  /** The replays in the background, newest first (at most `limit`, default 20). */
  replayJobs(limit = 20): Promise<ReplayJob[]> {
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > MAX_LIST_LIMIT) {
      throw new RangeError(`limit must be an integer from 1 to ${MAX_LIST_LIMIT} (got ${limit})`);
    }
    return this.queries.replayJobs(limit);
  }

  /** One replay in the background, with its progress; null when there is none. */
  replayJob(id: string): Promise<ReplayJob | null> {
    return this.queries.replayJob(id);
  }

  /**
   * Cancels a running replay: no batch starts after this (the events put back so far stay put
   * back). False when it was not running.
   */
  cancelReplay(id: string): Promise<boolean> {
    return this.queries.cancelReplayJob(id);
  }

  private async replayableCount(filter: WebhookEventFilter): Promise<number> {
    const statuses =
      typeof filter.status === 'string' ? [filter.status] : [...(filter.status ?? [])];
    return this.queries.count({
      ...filter,
      status: statuses.filter((status) => (REPLAYABLE as readonly string[]).includes(status)),
    });
  }

  /**
   * Settles an event by hand as `dead` (keeps it for a later replay) or `ignored`.
   * @returns false when there is no such event or a worker holds it right now.
   */
  async settle(
    id: string,
    status: 'dead' | 'ignored',
    reason: string,
    operator: WebhookOperator = {},
  ): Promise<boolean> {
    return this.queries.settleByHand(id, status, reason, operator.actor ?? null);
  }

  /**
   * Deletes settled events received before `olderThan`, with their ledger rows, in small
   * batches. Pending, retrying and processing events are never touched.
   * @returns how many events were deleted.
   */
  async purge(options: WebhookPurgeOptions): Promise<number> {
    if (!(options?.olderThan instanceof Date) || Number.isNaN(options.olderThan.getTime())) {
      throw new TypeError('purge() needs olderThan: a valid Date');
    }
    const statuses = options.status ?? ['processed', 'ignored'];
    const invalid = statuses.filter((status) => !PURGEABLE.includes(status));
    if (invalid.length > 0) {
      throw new TypeError(
        `purge() deletes settled events only (${PURGEABLE.join(', ')}); got ${invalid.join(', ')}`,
      );
    }
    let deleted = 0;
    for (;;) {
      const batch = await this.queries.purge(
        { statuses, olderThan: options.olderThan, endpoint: options.endpoint },
        PURGE_BATCH,
      );
      deleted += batch;
      if (batch < PURGE_BATCH) {
        break;
      }
    }
    return deleted;
  }

  /** Counts per endpoint and status, and the age of the oldest event waiting to run. */
  stats(): Promise<WebhookInboxStats> {
    return this.queries.stats();
  }
}

/** A pause's scope as log lines and answers name it: `endpoint stripe, handler Orders.paid`. */
export function describeScope(scope: DispatchPauseScope): string {
  const endpoint = scope.endpoint ?? '*';
  const handler = scope.handler ?? '*';
  return `endpoint ${endpoint === '*' ? '(every)' : endpoint}, handler ${handler === '*' ? '(every)' : handler}`;
}

/** A replay's filter as its history keeps it: dates as ISO text, empty fields left out. */
function filterForHistory(filter: WebhookEventFilter): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(filter)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, value instanceof Date ? value.toISOString() : value]),
  );
}

/**
 * One line per pause in force, as the startup log says them, with the command and the route
 * (with its JSON body) that lift it, each between backticks exactly as it runs.
 */
export function pauseLines(pauses: readonly DispatchPause[]): string[] {
  // NOTE: an endpoint or handler named over HTTP may hold any character: quoted for the shell.
  const word = (value: string) =>
    /^[\w.,:@/+=-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`;
  return pauses.map((pause) => {
    const flags = [
      pause.endpoint === '*' ? '' : ` --endpoint ${word(pause.endpoint)}`,
      pause.handler === '*' ? '' : ` --handler ${word(pause.handler)}`,
    ].join('');
    const body = JSON.stringify({
      ...(pause.endpoint === '*' ? {} : { endpoint: pause.endpoint }),
      ...(pause.handler === '*' ? {} : { handler: pause.handler }),
    });
    const by = pause.pausedBy ? ` by ${pause.pausedBy}` : '';
    const why = pause.reason ? ` (${pause.reason})` : '';
    return (
      `Dispatch is paused for ${describeScope(pause)} since ${pause.pausedAt.toISOString()}${by}${why}: ` +
      `deliveries are stored and answered, the handlers held do not run. Lift it with ` +
      `\`npx nestjs-payment-webhooks resume${flags || ' --all'}\` ` +
      `(or \`POST /webhooks-admin/resume ${body}\`).`
    );
  });
}
