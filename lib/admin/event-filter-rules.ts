import type { WebhookEventFilter } from '../store/ports/inbox-queries.port';
import {
  REPLAYABLE_STATUSES,
  WEBHOOK_EVENT_STATUSES,
  type WebhookEventStatus,
} from '../store/webhook-event-status';
import {
  LIMIT_INVALID,
  SINCE_AFTER_UNTIL,
  STATUS_INVALID,
  TEXT_INVALID,
  TIME_INVALID,
  TIME_OUT_OF_RANGE,
  UNKNOWN_PARAMETER,
} from './webhook-admin.messages';

/** Most events one list returns. */
export const MAX_LIST_LIMIT = 1000;

/** Longest text filter (endpoint, tenant, event id, type, payment or order reference) a query may give. */
const MAX_TEXT_LENGTH = 1024;

const EARLIEST_MS = Date.UTC(1970, 0, 1);
const LATEST_MS = Date.UTC(9999, 11, 31, 23, 59, 59, 999);

const ISO_TIME =
  /^(\d{4})-(\d{2})-(\d{2})(?:T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/i;

const TEXT_KEYS = ['endpoint', 'tenant', 'eventId', 'type', 'paymentRef', 'merchantRef'] as const;
const FILTER_KEYS = [...TEXT_KEYS, 'status', 'since', 'until'] as const;

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

/** Which admin route a query string filters, and so which keys and statuses it takes. */
export type FilterRoute = 'list' | 'replay';

/** A filter and, for the list, its limit, as read from a query string. */
export interface EventFilterQuery extends WebhookEventFilter {
  limit?: number;
}

/**
 * Reads the query string of the admin list or replay route, whatever parsed it (Express's `qs`,
 * Fastify, `URLSearchParams`): every key known, each text given once and non-empty, `status` one
 * or more known statuses (comma-separated or repeated), times ISO 8601 from 1970 to 9999 with
 * `since` before `until`, and `limit` a whole number from 1 to 1000 (list only).
 * @throws WebhookFilterError stating the rule the first bad value breaks.
 */
export function parseEventFilterQuery(query: unknown, route: FilterRoute): EventFilterQuery {
  const values = (typeof query === 'object' && query !== null ? query : {}) as Record<
    string,
    unknown
  >;
  const known: readonly string[] = route === 'list' ? [...FILTER_KEYS, 'limit'] : FILTER_KEYS;
  const unknown = Object.keys(values).find((key) => !known.includes(key));
  if (unknown !== undefined) {
    throw new WebhookFilterError(UNKNOWN_PARAMETER(unknown, known));
  }
  const filter: EventFilterQuery = {};
  for (const key of TEXT_KEYS) {
    if (values[key] !== undefined) {
      filter[key] = textOf(key, values[key]);
    }
  }
  if (values.status !== undefined) {
    filter.status = statusesOf(
      values.status,
      route === 'list' ? WEBHOOK_EVENT_STATUSES : REPLAYABLE_STATUSES,
    );
  }
  if (values.since !== undefined) {
    filter.since = timeOf('since', values.since);
  }
  if (values.until !== undefined) {
    filter.until = timeOf('until', values.until);
  }
  checkTimeOrder(filter);
  if (values.limit !== undefined) {
    filter.limit = limitOf(values.limit);
  }
  return filter;
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

function timeOf(name: string, value: unknown): Date {
  const text = typeof value === 'string' ? value : String(value);
  const match = typeof value === 'string' ? ISO_TIME.exec(value) : null;
  if (!match || !isCalendarDate(Number(match[1]), Number(match[2]), Number(match[3]))) {
    throw new WebhookFilterError(TIME_INVALID(name, text));
  }
  const time = new Date(value as string);
  if (Number.isNaN(time.getTime())) {
    throw new WebhookFilterError(TIME_INVALID(name, text));
  }
  return checkFilterTime(name, time, text);
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
