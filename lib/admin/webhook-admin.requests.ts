import type { HandlerRunRecord } from '../store/ports/inbox-event';
import type { EventHistoryEntry } from '../store/ports/event-history';
import type { ReplayJob } from '../store/ports/replay-jobs.port';
import type { RecoveryJob } from '../store/ports/recovery-jobs.port';
import { WebhookRecoveryError } from '../recovery/webhook-recoveries';
import type { WebhookEventSummary } from '../store/ports/inbox-queries.port';
import {
  eventView,
  parseEventShowQuery,
  WebhookAdminEventView,
  WebhookAdminEventWithBody,
} from './admin-event-view';
import {
  FilterRoute,
  parseEventFilterQuery,
  parseFailureGroupQuery,
  parseRecoveryQuery,
  parseReplayListQuery,
} from './event-filter-rules';
import { UnknownNameError } from './operator-names';
import {
  badRequest,
  bodyOf,
  checked,
  parseEventId,
  WebhookAdminRequestError,
} from './admin-request-rules';
import { BackfillRequests } from './backfill.requests';
import { describeScope, WebhookAdmin } from './webhook-admin';

export { parseEventId, WebhookAdminRequestError } from './admin-request-rules';

/** What names the actor: the fields of an app's `req.user` looked at, in order. */
const USER_FIELDS = ['id', 'username', 'email', 'sub', 'name'] as const;
/** Most characters of an actor kept in the history. */
const MAX_ACTOR = 64;
/** Control, format and line-breaking characters, and lone surrogates: never in an actor. */
const UNSAFE_CHARACTERS = /[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}]+/gu;

/** Longest endpoint name and handler key a pause may name (their stored columns). */
const MAX_ENDPOINT = 64;
const MAX_HANDLER = 255;
/** Longest reason a pause or a discard keeps. */
const MAX_REASON = 500;

/** Query parameters of the list and replay routes, as the framework parsed them. */
export type WebhookAdminFilterQuery = Readonly<Record<string, unknown>>;

/** Body of the settle route. */
export interface WebhookAdminSettleBody {
  status?: string;
  reason?: string;
}

/**
 * The request as the adapter has it (Express, Fastify or Node's own): the user an app's
 * authentication put on it, and where it came from. Together they name the actor of a change.
 */
export interface WebhookAdminCaller {
  readonly user?: unknown;
  /** The client's address as the framework reads it (Express's `trust proxy` applies). */
  readonly ip?: unknown;
  readonly socket?: { readonly remoteAddress?: string };
}

/** What the single-event route answers. */
export interface WebhookAdminEventDetails {
  /** The event: without its payload unless the query has `include=body`. */
  readonly event: WebhookAdminEventView | WebhookAdminEventWithBody;
  readonly handlerRuns: readonly HandlerRunRecord[];
  readonly history: readonly EventHistoryEntry[];
}

/** What `work` resolves to, an endpoint or handler name none of the known ones is as a 400. */
async function knownNames<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    throw error instanceof UnknownNameError ? badRequest(error.message) : error;
  }
}

/** The query's filter, a broken rule as a 400. */
function filterOf(query: WebhookAdminFilterQuery, route: FilterRoute) {
  return checked(() => parseEventFilterQuery(query, route));
}

/**
 * Who makes a change through the admin routes, as the event's history keeps it: the first of
 * `id`, `username`, `email`, `sub`, `name` of the request's `user` that is a text (or a whole
 * number), else `http <client address>`; without control characters, at most 64 characters.
 */
export function adminActor(caller: WebhookAdminCaller): string {
  const { user } = caller;
  if (typeof user === 'object' && user !== null) {
    for (const field of USER_FIELDS) {
      const value = (user as Record<string, unknown>)[field];
      const text =
        typeof value === 'string' || Number.isSafeInteger(value) ? safeActor(String(value)) : '';
      if (text !== '') {
        return text;
      }
    }
  }
  const address =
    typeof caller.ip === 'string' && caller.ip !== '' ? caller.ip : caller.socket?.remoteAddress;
  return safeActor(`http ${address ?? 'unknown'}`);
}

function safeActor(text: string): string {
  const clean = text.replace(UNSAFE_CHARACTERS, ' ').replace(/\s+/g, ' ').trim();
  return Array.from(clean).slice(0, MAX_ACTOR).join('').trim();
}

/**
 * A signal that aborts when the connection closes before the answer was sent: the client (or a
 * proxy) gave up. A replay stops on it between two batches.
 * @param response Node's `ServerResponse` (Fastify's `reply.raw`).
 */
export function answerAbandoned(response: {
  once(event: 'close', listener: () => void): unknown;
  readonly writableFinished: boolean;
}): AbortSignal {
  const controller = new AbortController();
  response.once('close', () => {
    if (!response.writableFinished) {
      controller.abort();
    }
  });
  return controller.signal;
}

/** `value` when it is a non-empty text of at most `max` characters without control ones. */
function bodyText(route: string, name: string, value: unknown, max: number): string {
  if (
    typeof value !== 'string' ||
    value.trim() === '' ||
    value.length > max ||
    /\p{Cc}/u.test(value)
  ) {
    throw badRequest(
      `${name} of ${route} must be a non-empty text of at most ${max} characters, ` +
        'without control characters',
    );
  }
  return value;
}

/**
 * What the admin routes do, whatever serves them (the Nest controller or the Express admin
 * router): parameters checked, `WebhookAdmin` called with the caller as the actor of a change,
 * and a refusal thrown as a {@link WebhookAdminRequestError} the adapter answers with its status
 * and message.
 */
export class WebhookAdminRequests {
  /** The backfill routes: `POST backfills`, `GET backfills[/:id]`, `POST backfills/:id/cancel`. */
  readonly backfills: BackfillRequests;

  constructor(private readonly admin: WebhookAdmin) {
    this.backfills = new BackfillRequests(admin.backfills);
  }

  /** Summaries of the matching events: no body, no headers. */
  list(query: WebhookAdminFilterQuery): Promise<WebhookEventSummary[]> {
    return this.admin.list(filterOf(query, 'list'));
  }

  /**
   * One event with its handler runs and its history; its stored body (bounded) and headers only
   * when the query has `include=body`, so opening an event does not carry its payload.
   */
  async show(id: string, query: WebhookAdminFilterQuery = {}): Promise<WebhookAdminEventDetails> {
    const eventId = parseEventId(id);
    const include = checked(() => parseEventShowQuery(query));
    const details = await this.admin.show(eventId);
    if (!details) {
      throw new WebhookAdminRequestError(404, `No stored event ${id}`);
    }
    return {
      event: eventView(details.event, include),
      handlerRuns: details.handlerRuns,
      history: details.history,
    };
  }

  async redeliver(id: string, caller: WebhookAdminCaller): Promise<{ redelivered: string }> {
    if (!(await this.admin.redeliver(parseEventId(id), { actor: adminActor(caller) }))) {
      throw new WebhookAdminRequestError(
        404,
        `Event ${id} was not put back: there is none, it is already waiting, or a worker holds it`,
      );
    }
    return { redelivered: id };
  }

  async settle(
    id: string,
    body: WebhookAdminSettleBody | undefined,
    caller: WebhookAdminCaller,
  ): Promise<{ settled: string; status: 'dead' | 'ignored' }> {
    parseEventId(id);
    if (body?.status !== 'dead' && body?.status !== 'ignored') {
      throw badRequest('status must be "dead" or "ignored"');
    }
    if (typeof body.reason !== 'string' || body.reason.trim() === '') {
      throw badRequest('reason must say why the event is settled by hand');
    }
    const settled = await this.admin.settle(id, body.status, body.reason, {
      actor: adminActor(caller),
    });
    if (!settled) {
      throw new WebhookAdminRequestError(
        404,
        `Event ${id} was not settled: there is none or a worker holds it`,
      );
    }
    return { settled: id, status: body.status };
  }

  /**
   * Puts the matching events back, or with `dryRun=true` counts them. The filter is the query's
   * only: a body with fields is refused, so a filter sent there cannot widen the replay. An
   * unknown `endpoint` or `handler` is a 400 naming the known ones.
   * @param signal stops the replay between two batches (see {@link answerAbandoned}).
   */
  replay(
    query: WebhookAdminFilterQuery,
    body: unknown,
    caller: WebhookAdminCaller,
    signal?: AbortSignal,
  ) {
    const filter = filterOf(query, 'replay');
    bodyOf(body, 'replay', []);
    return knownNames(this.admin.replay({ ...filter, signal, actor: adminActor(caller) }));
  }

  /**
   * Starts a replay in the background of the events the query's filter matches, at most `rate` a
   * second, and returns it at once (the adapters answer 202): the app's instances run it. Like
   * `replay`, the filter is the query's only, its names are checked, and the caller is its actor.
   */
  startReplay(
    query: WebhookAdminFilterQuery,
    body: unknown,
    caller: WebhookAdminCaller,
  ): Promise<ReplayJob> {
    const { ratePerSecond, ...filter } = filterOf(query, 'replays');
    bodyOf(body, 'replays', []);
    return knownNames(
      this.admin.startReplay({ ...filter, ratePerSecond, actor: adminActor(caller) }),
    );
  }

  /** The replays in the background, newest first (`limit`, default 20). */
  replayJobs(query: WebhookAdminFilterQuery): Promise<ReplayJob[]> {
    const { limit } = checked(() => parseReplayListQuery(query));
    return this.admin.replayJobs(limit);
  }

  /** One replay in the background with its progress; 404 when there is none. */
  async replayJob(id: string): Promise<ReplayJob> {
    const job = await this.admin.replayJob(parseEventId(id));
    if (!job) {
      throw new WebhookAdminRequestError(404, `No replay ${id}`);
    }
    return job;
  }

  /** Cancels a running replay and returns it; 404 when there is none or it is not running. */
  async cancelReplay(id: string, body: unknown): Promise<ReplayJob> {
    parseEventId(id);
    bodyOf(body, 'cancel', []);
    const canceled = await this.admin.cancelReplay(id);
    const job = await this.admin.replayJob(id);
    if (!job) {
      throw new WebhookAdminRequestError(404, `No replay ${id}`);
    }
    if (!canceled) {
      throw new WebhookAdminRequestError(
        404,
        `Replay ${id} is ${job.status} already: only a running replay can be canceled`,
      );
    }
    return job;
  }

  /**
   * Starts a recovery from the endpoint's event log (the query's `endpoint`, `since`, `until`,
   * `tenant`, `dryRun`, `rate`) and returns it at once (the adapters answer 202); an endpoint that
   * cannot be read, or a window out of its log's reach, is a 400 saying why.
   */
  async startRecovery(
    query: WebhookAdminFilterQuery,
    body: unknown,
    caller: WebhookAdminCaller,
  ): Promise<RecoveryJob> {
    const recovery = checked(() => parseRecoveryQuery(query));
    bodyOf(body, 'recoveries', []);
    try {
      return await this.admin.recoveries.start({ ...recovery, actor: adminActor(caller) });
    } catch (error) {
      throw error instanceof WebhookRecoveryError ? badRequest(error.message) : error;
    }
  }

  /** The recoveries, newest first (`limit`, default 20). */
  recoveryJobs(query: WebhookAdminFilterQuery): Promise<RecoveryJob[]> {
    const { limit } = checked(() => parseReplayListQuery(query));
    return this.admin.recoveries.list(limit);
  }

  /** One recovery with its progress; 404 when there is none. */
  async recoveryJob(id: string): Promise<RecoveryJob> {
    const job = await this.admin.recoveries.recovery(parseEventId(id));
    if (!job) {
      throw new WebhookAdminRequestError(404, `No recovery ${id}`);
    }
    return job;
  }

  /** Cancels a running recovery and returns it; 404 when there is none or it is not running. */
  async cancelRecovery(id: string, body: unknown): Promise<RecoveryJob> {
    bodyOf(body, 'cancel', []);
    const canceled = await this.admin.recoveries.cancel(parseEventId(id));
    const job = await this.recoveryJob(id);
    if (!canceled) {
      throw new WebhookAdminRequestError(
        404,
        `Recovery ${id} is ${job.status} already: only a running recovery can be canceled`,
      );
    }
    return job;
  }

  /**
   * Settles the matching dead or retrying events `ignored`, or with `dryRun` counts them; an
   * unknown `endpoint` or `handler` is a 400 naming the known ones.
   */
  discard(query: WebhookAdminFilterQuery, body: unknown, caller: WebhookAdminCaller) {
    const filter = filterOf(query, 'discard');
    const { reason, dryRun } = bodyOf(body, 'discard', ['reason', 'dryRun']);
    if (dryRun !== undefined && typeof dryRun !== 'boolean') {
      throw badRequest('dryRun of discard must be true or false');
    }
    if (typeof reason !== 'string' || reason.trim() === '') {
      throw badRequest('reason of discard must say why the events are settled without running');
    }
    return knownNames(
      this.admin.discard(filter, {
        reason: bodyText('discard', 'reason', reason, MAX_REASON),
        dryRun,
        actor: adminActor(caller),
      }),
    );
  }

  /** The failure groups matching the query, largest first. */
  groups(query: WebhookAdminFilterQuery) {
    return this.admin.failureGroups(checked(() => parseFailureGroupQuery(query)));
  }

  /**
   * Pauses dispatch for the scope of the body; `paused: false` when it was paused already. An
   * endpoint that is not configured or a handler that is not registered is a 400 naming those
   * that are, and pauses nothing.
   */
  async pause(
    query: WebhookAdminFilterQuery,
    body: unknown,
    caller: WebhookAdminCaller,
  ): Promise<{ paused: boolean; endpoint: string; handler: string }> {
    const { scope, reason } = this.scopeOf('pause', query, body, ['endpoint', 'handler', 'reason']);
    const paused = await knownNames(this.admin.pause(scope, { actor: adminActor(caller), reason }));
    return { paused, endpoint: scope.endpoint ?? '*', handler: scope.handler ?? '*' };
  }

  /**
   * Lifts the pause of the body's scope: how many held events fell due, 404 when none; 400 for
   * a name neither configured nor paused.
   */
  async resume(
    query: WebhookAdminFilterQuery,
    body: unknown,
  ): Promise<{ resumed: number; endpoint: string; handler: string }> {
    const { scope } = this.scopeOf('resume', query, body, ['endpoint', 'handler']);
    const resumed = await knownNames(this.admin.resume(scope));
    if (resumed === null) {
      throw new WebhookAdminRequestError(
        404,
        `Dispatch was not paused for ${describeScope(scope)}: nothing to resume`,
      );
    }
    return { resumed, endpoint: scope.endpoint ?? '*', handler: scope.handler ?? '*' };
  }

  /** The pauses of dispatch in force, oldest first. */
  pauses() {
    return this.admin.pauses();
  }

  stats() {
    return this.admin.stats();
  }

  /** The scope (and reason) a pause or resume body names; left out or `*` is every one. */
  private scopeOf(
    route: 'pause' | 'resume',
    query: WebhookAdminFilterQuery,
    body: unknown,
    fields: readonly string[],
  ): { scope: { endpoint?: string; handler?: string }; reason?: string } {
    // NOTE: a scope in the query would be left out of the body, and pause every endpoint.
    const key = Object.keys(query ?? {})[0];
    if (key !== undefined) {
      throw badRequest(
        `${route} takes no query parameter (got ${JSON.stringify(key)}): give the scope in ` +
          `the JSON body, e.g. { "endpoint": "stripe" }`,
      );
    }
    const values = bodyOf(body, route, fields);
    const text = (name: string, max: number) =>
      values[name] === undefined ? undefined : bodyText(route, name, values[name], max);
    return {
      scope: { endpoint: text('endpoint', MAX_ENDPOINT), handler: text('handler', MAX_HANDLER) },
      reason: text('reason', MAX_REASON),
    };
  }
}
