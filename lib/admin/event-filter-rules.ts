import type { FailureGroupFilter } from '../store/ports/event-history';
import type { WebhookEventFilter } from '../store/ports/inbox-queries.port';
import {
  REPLAYABLE_STATUSES,
  WEBHOOK_EVENT_STATUSES,
  type WebhookEventStatus,
} from '../store/ports/webhook-event-status';
import {
  FILTER_TIME_RANGE,
  LIMIT_INVALID,
  SINCE_AFTER_UNTIL,
  STATUS_INVALID,
  TEXT_INVALID,
  TIME_OUT_OF_RANGE,
  UNKNOWN_PARAMETER,
} from './webhook-admin.messages';

/** Most events one list returns. */
export const MAX_LIST_LIMIT = 1000;

/** Longest text filter (endpoint, tenant, event id, handler, error text…) a query may give. */
const MAX_TEXT_LENGTH = 1024;

const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

/** Most events per second a replay may be asked for: more is the same as no limit. */
const MAX_REPLAY_RATE = 100_000;

const AGE = /^(\d+(?:\.\d+)?)(s|m|min|h|d|w)?$/;
const UNIT_MS: Readonly<Record<string, number>> = {
  s: 1000,
  m: 60_000,
  min: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 604_800_000,
};

const TEXT_KEYS = [
  'endpoint',
  'tenant',
  'eventId',
  'type',
  'paymentRef',
  'merchantRef',
  'handler',
  'error',
  'fingerprint',
] as const;
const FILTER_KEYS = [...TEXT_KEYS, 'status', 'since', 'until'] as const;
const GROUP_KEYS = ['endpoint', 'tenant', 'handler', 'error', 'fingerprint', 'status', 'limit'];
const FAILED_STATUSES: readonly WebhookEventStatus[] = ['dead', 'retrying'];

const TIME_INVALID = (name: string, value: string) =>
  `${name} must be an age such as 30d, 12h or 15m (units s, m, h, d, w; a bare number is days), ` +
  `or an ISO 8601 time from ${FILTER_TIME_RANGE} such as 2026-11-29T10:00:00Z ` +
  `(got ${JSON.stringify(value)})`;
const RATE_INVALID = (got: string) =>
  `rate must be a number of events per second above 0 and at most ${MAX_REPLAY_RATE}, ` +
  `e.g. rate=20 or rate=0.5 (got ${JSON.stringify(got)})`;
const WHOLE_RATE_INVALID = (got: string) =>
  `rate of a replay in the background must be a whole number of events per second from 1 to ` +
  `${MAX_REPLAY_RATE}, e.g. rate=20 (got ${JSON.stringify(got)})`;
const NO_BACKGROUND_DRY_RUN =
  'a replay in the background takes no dryRun: count what it would put back with ' +
  'POST replay?dryRun=true and the same filter first';
const FLAG_INVALID = (name: string, got: string) =>
  `${name} must be true or false (got ${JSON.stringify(got)})`;

/**
 * A filter value breaks its rule; the message states the rule and what was given. The HTTP
 * adapters answer it with 400, the CLI with exit code 2.
 */
export class WebhookFilterError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WebhookFilterError';
  }
}

/**
 * `time` when it lies from 1970 to 9999, the range every filter time must fall in.
 * @param given the value as the user wrote it, for the message.
 * @throws WebhookFilterError naming the range.
 */
export function checkFilterTime(name: string, time: Date, given: string): Date {
  const ms = time.getTime();
  if (Number.isNaN(ms) || ms < EARLIEST_MS || ms > LATEST_MS) {
    throw new WebhookFilterError(TIME_OUT_OF_RANGE(name, given));
  }
  return time;
}

/**
 * Refuses a filter whose `since` is not before its `until`: it could match nothing.
 * @param names the names the user gave them by, e.g. `--since` and `--until` on the CLI.
 * @throws WebhookFilterError
 */
export function checkTimeOrder(
  filter: Pick<WebhookEventFilter, 'since' | 'until'>,
  names: { since: string; until: string } = { since: 'since', until: 'until' },
): void {
  if (filter.since && filter.until && filter.since.getTime() >= filter.until.getTime()) {
    throw new WebhookFilterError(SINCE_AFTER_UNTIL(names.since, names.until));
  }
}

/**
 * A filter time given as an age before `now` (`24h`, `30m`, `7d`: units `s`, `m` or `min`, `h`,
 * `d`, `w`; a bare number is days) or as an ISO 8601 time (`2026-11-28`,
 * `2026-11-28T10:00:00Z`, a calendar day that exists), from 1970 to 9999. The admin routes read
 * `since` and `until` with it, the CLI its `--since`, `--until` and `--older-than`.
 * @param name the name the user gave the value by, for the message: `since`, `--since`.
 * @throws WebhookFilterError naming both accepted forms, or the range.
 * @example parseFilterTime('since', '24h', new Date()) // 24 hours ago
 */
export function parseFilterTime(name: string, text: string, now: Date): Date {
  const trimmed = text.trim();
  const age = AGE.exec(trimmed);
  if (age) {
    const ms = now.getTime() - Number(age[1]) * UNIT_MS[age[2] ?? 'd'];
    return checkFilterTime(name, new Date(ms), text);
  }
  const match = ISO_TIME.exec(trimmed);
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new WebhookFilterError(TIME_INVALID(name, text));
  }
  const time = new Date(trimmed);
  if (Number.isNaN(time.getTime())) {
    throw new WebhookFilterError(TIME_INVALID(name, text));
  }
  return checkFilterTime(name, time, text);
}

/**
 * Which admin route a query string filters, and so which keys and statuses it takes: `replays`
 * starts a replay in the background.
 */
export type FilterRoute = 'list' | 'replay' | 'replays' | 'discard';

const ROUTE_RULES: Readonly<
  Record<FilterRoute, { statuses: readonly WebhookEventStatus[]; extra: readonly string[] }>
> = {
  list: { statuses: WEBHOOK_EVENT_STATUSES, extra: ['limit'] },
  replay: { statuses: REPLAYABLE_STATUSES, extra: ['dryRun', 'rate'] },
  replays: { statuses: REPLAYABLE_STATUSES, extra: ['rate'] },
  discard: { statuses: FAILED_STATUSES, extra: [] },
};

/** A filter and the route's own options, as read from a query string. */
export interface EventFilterQuery extends WebhookEventFilter {
  /** The list's limit. */
  limit?: number;
  /** A replay that only counts. */
  dryRun?: boolean;
  /** A replay's most events per second. */
  ratePerSecond?: number;
}

/** A failure group filter and its limit, as read from a query string. */
export interface FailureGroupQuery extends FailureGroupFilter {
  limit?: number;
}

/**
 * Reads the query string of the admin list, replay or discard route, whatever parsed it
 * (Express's `qs`, Fastify, `URLSearchParams`): every key known, each text given once and
 * non-empty, `status` one or more statuses the route takes (comma-separated or repeated), times
 * as {@link parseFilterTime} reads them with `since` before `until`, `limit` a whole number from
 * 1 to 1000 (list), `dryRun` true or false and `rate` events per second (replay), `rate` a whole
 * number of events per second (replays, which take no `dryRun`).
 * @param now what an age counts back from.
 * @throws WebhookFilterError stating the rule the first bad value breaks.
 */
export function parseEventFilterQuery(
  query: unknown,
  route: FilterRoute,
  now: Date = new Date(),
): EventFilterQuery {
  const rules = ROUTE_RULES[route];
  if (route === 'replays' && typeof query === 'object' && query !== null && 'dryRun' in query) {
    throw new WebhookFilterError(NO_BACKGROUND_DRY_RUN);
  }
  const values = knownValues(query, [...FILTER_KEYS, ...rules.extra]);
  const filter: EventFilterQuery = {};
  for (const key of TEXT_KEYS) {
    if (values[key] !== undefined) {
      filter[key] = textOf(key, values[key]);
    }
  }
  if (values.status !== undefined) {
    filter.status = statusesOf(values.status, rules.statuses);
  }
  if (values.since !== undefined) {
    filter.since = parseFilterTime('since', textOf('since', values.since), now);
  }
  if (values.until !== undefined) {
    filter.until = parseFilterTime('until', textOf('until', values.until), now);
  }
  checkTimeOrder(filter);
  if (values.limit !== undefined) {
    filter.limit = limitOf(values.limit);
  }
  if (values.dryRun !== undefined) {
    filter.dryRun = flagOf('dryRun', values.dryRun);
  }
  if (values.rate !== undefined) {
    filter.ratePerSecond = route === 'replays' ? wholeRateOf(values.rate) : rateOf(values.rate);
  }
  return filter;
}

/**
 * Reads the query string of the route listing the replays in the background: `limit`, a whole
 * number from 1 to 1000.
 * @throws WebhookFilterError stating the rule the first bad value breaks.
 */
export function parseReplayListQuery(query: unknown): { limit?: number } {
  const values = knownValues(query, ['limit']);
  return values.limit === undefined ? {} : { limit: limitOf(values.limit) };
}

/** A recovery's options, as read from the query string of `POST recoveries`. */
export interface RecoveryQuery {
  endpoint: string;
  since: Date;
  until?: Date;
  tenant?: string;
  dryRun?: boolean;
  ratePerSecond?: number;
}

const RECOVERY_KEYS = ['endpoint', 'since', 'until', 'tenant', 'dryRun', 'rate'];

/**
 * Reads the query string of the route starting a recovery: `endpoint` and `since` (required),
 * `until`, `tenant`, `dryRun` and `rate` (a whole number of events per second); times as
 * {@link parseFilterTime} reads them.
 * @throws WebhookFilterError stating the rule the first bad value breaks.
 */
export function parseRecoveryQuery(query: unknown, now: Date = new Date()): RecoveryQuery {
  const values = knownValues(query, RECOVERY_KEYS);
  for (const required of ['endpoint', 'since']) {
    if (values[required] === undefined) {
      throw new WebhookFilterError(`${required} is required to start a recovery`);
    }
  }
  const recovery: RecoveryQuery = {
    endpoint: textOf('endpoint', values.endpoint),
    since: parseFilterTime('since', textOf('since', values.since), now),
  };
  if (values.until !== undefined) {
    recovery.until = parseFilterTime('until', textOf('until', values.until), now);
  }
  checkTimeOrder(recovery);
  if (values.tenant !== undefined) {
    recovery.tenant = textOf('tenant', values.tenant);
  }
  if (values.dryRun !== undefined) {
    recovery.dryRun = flagOf('dryRun', values.dryRun);
  }
  if (values.rate !== undefined) {
    recovery.ratePerSecond = wholeRateOf(values.rate);
  }
  return recovery;
}

/** A backfill's options, as read from the query string of `POST backfills`. */
export interface BackfillQuery {
  handler: string;
  since: Date;
  until?: Date;
  endpoint?: string;
  tenant?: string;
  types?: string[];
  dryRun?: boolean;
  ratePerSecond?: number;
}

const BACKFILL_KEYS = ['handler', 'since', 'until', 'endpoint', 'tenant', 'type', 'dryRun', 'rate'];

/**
 * Reads the query string of the route starting a backfill: `handler` and `since` (required),
 * `until`, `endpoint`, `tenant`, `type` (repeated, or separated by commas), `dryRun` and `rate`.
 * @throws WebhookFilterError stating the rule the first bad value breaks.
 */
export function parseBackfillQuery(query: unknown, now: Date = new Date()): BackfillQuery {
  const values = knownValues(query, BACKFILL_KEYS);
  for (const required of ['handler', 'since']) {
    if (values[required] === undefined) {
      throw new WebhookFilterError(`${required} is required to start a backfill`);
    }
  }
  const backfill: BackfillQuery = {
    handler: textOf('handler', values.handler),
    since: parseFilterTime('since', textOf('since', values.since), now),
  };
  if (values.until !== undefined) {
    backfill.until = parseFilterTime('until', textOf('until', values.until), now);
  }
  checkTimeOrder(backfill);
  for (const name of ['endpoint', 'tenant'] as const) {
    if (values[name] !== undefined) {
      backfill[name] = textOf(name, values[name]);
    }
  }
  if (values.type !== undefined) {
    const parts = Array.isArray(values.type) ? values.type : [values.type];
    backfill.types = parts.flatMap((part) =>
      textOf('type', part)
        .split(',')
        .map((type) => type.trim())
        .filter((type) => type !== ''),
    );
  }
  if (values.dryRun !== undefined) {
    backfill.dryRun = flagOf('dryRun', values.dryRun);
  }
  if (values.rate !== undefined) {
    backfill.ratePerSecond = wholeRateOf(values.rate);
  }
  return backfill;
}

/**
 * Reads the query string of the failure groups route: `endpoint`, `tenant`, `handler`, `error`,
 * `fingerprint` (each once, non-empty), `status` (`dead`, `retrying` or both) and `limit` (1 to
 * 1000).
 * @throws WebhookFilterError stating the rule the first bad value breaks.
 */
export function parseFailureGroupQuery(query: unknown): FailureGroupQuery {
  const values = knownValues(query, GROUP_KEYS);
  const filter: {
    -readonly [K in keyof FailureGroupQuery]: FailureGroupQuery[K];
  } = {};
  for (const key of ['endpoint', 'tenant', 'handler', 'error', 'fingerprint'] as const) {
    if (values[key] !== undefined) {
      filter[key] = textOf(key, values[key]);
    }
  }
  if (values.status !== undefined) {
    const statuses = statusesOf(values.status, FAILED_STATUSES);
    // NOTE: dead and retrying together are what the groups hold anyway: no filter.
    filter.status = statuses.length === 1 ? (statuses[0] as 'dead' | 'retrying') : undefined;
  }
  if (values.limit !== undefined) {
    filter.limit = limitOf(values.limit);
  }
  return filter;
}

/** The query's values, once every key is one of `known`. */
function knownValues(query: unknown, known: readonly string[]): Record<string, unknown> {
  const values = (typeof query === 'object' && query !== null ? query : {}) as Record<
    string,
    unknown
  >;
  const unknown = Object.keys(values).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new WebhookFilterError(UNKNOWN_PARAMETER(unknown, known));
  }
  return values;
}

function textOf(name: string, value: unknown): string {
  if (typeof value !== 'string' || value === '' || value.length > MAX_TEXT_LENGTH) {
    throw new WebhookFilterError(TEXT_INVALID(name, MAX_TEXT_LENGTH));
  }
  return value;
}

function statusesOf(value: unknown, allowed: readonly WebhookEventStatus[]): WebhookEventStatus[] {
  const parts = Array.isArray(value) ? value : [value];
  const given = parts.map((part) => (typeof part === 'string' ? part : String(part))).join(',');
  const statuses = parts.flatMap((part) =>
    typeof part === 'string' ? part.split(',').map((status) => status.trim()) : [undefined],
  );
  if (statuses.some((status) => !allowed.includes(status as WebhookEventStatus))) {
    throw new WebhookFilterError(STATUS_INVALID('status', allowed, given));
  }
  return [...new Set(statuses as WebhookEventStatus[])];
}

function isCalendarDate(year: number, month: number, day: number): boolean {
  return (
    month >= 1 && month <= 12 && day >= 1 && day <= new Date(Date.UTC(year, month, 0)).getUTCDate()
  );
}

function limitOf(value: unknown): number {
  const text = typeof value === 'string' ? value : String(value);
  const limit = typeof value === 'string' && /^\d{1,4}$/.test(value) ? Number(value) : NaN;
  if (!(limit >= 1 && limit <= MAX_LIST_LIMIT)) {
    throw new WebhookFilterError(LIMIT_INVALID(MAX_LIST_LIMIT, text));
  }
  return limit;
}

function flagOf(name: string, value: unknown): boolean {
  if (value === 'true' || value === 'false') {
    return value === 'true';
  }
  throw new WebhookFilterError(
    FLAG_INVALID(name, typeof value === 'string' ? value : String(value)),
  );
}

/** A replay in the background's rate: `WebhookAdmin.startReplay()` takes whole numbers only. */
function wholeRateOf(value: unknown): number {
  const rate = typeof value === 'string' && /^\d{1,6}$/.test(value) ? Number(value) : NaN;
  if (!(rate >= 1 && rate <= MAX_REPLAY_RATE)) {
    throw new WebhookFilterError(
      WHOLE_RATE_INVALID(typeof value === 'string' ? value : String(value)),
    );
  }
  return rate;
}

function rateOf(value: unknown): number {
  const text = typeof value === 'string' ? value : String(value);
  const rate =
    typeof value === 'string' && /^\d{1,6}(?:\.\d{1,6})?$/.test(value) ? Number(value) : NaN;
  if (!(rate > 0 && rate <= MAX_REPLAY_RATE)) {
    throw new WebhookFilterError(RATE_INVALID(text));
  }
  return rate;
}
