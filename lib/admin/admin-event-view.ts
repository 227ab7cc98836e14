import type { WebhookEventDetails, WebhookEventSummary } from '../store/ports/inbox-queries.port';
import { WebhookFilterError } from './event-filter-rules';
import { INCLUDE_INVALID, UNKNOWN_PARAMETER } from './webhook-admin.messages';

/**
 * Most characters of a stored body the single-event route returns; past it the body is cut
 * and `rawBodyTruncated` is true (the CLI's `events show` prints it whole).
 */
export const SHOWN_BODY_CHARACTERS = 256 * 1024;

/** The query keys the single-event route takes. */
const SHOW_KEYS = ['include'];

/** One event as the single-event route returns it by default: every column but the payload. */
export type WebhookAdminEventView = WebhookEventSummary;

/** One event as the single-event route returns it with `include=body`: the payload too, bounded. */
export interface WebhookAdminEventWithBody extends WebhookEventSummary {
  /** The stored headers (no signatures, credentials or auth headers are ever stored). */
  readonly headers: Record<string, string>;
  /** The stored body, its first {@link SHOWN_BODY_CHARACTERS} characters at most. */
  readonly rawBody: string;
  /** How many characters the stored body has. */
  readonly rawBodyLength: number;
  /** True when `rawBody` is only the start of the stored body. */
  readonly rawBodyTruncated: boolean;
}

/** What the single-event route adds to the event, as its query asks. */
export interface EventShowQuery {
  /** `include=body`: the stored body and headers. */
  readonly body: boolean;
}

/**
 * Reads the query string of the single-event route: nothing, or `include=body` once.
 * @throws WebhookFilterError naming the accepted value, or the accepted key.
 */
export function parseEventShowQuery(query: unknown): EventShowQuery {
  const values = (typeof query === 'object' && query !== null ? query : {}) as Record<
    string,
    unknown
  >;
  const unknown = Object.keys(values).find((key) => !SHOW_KEYS.includes(key));
  if (unknown !== undefined) {
    throw new WebhookFilterError(UNKNOWN_PARAMETER(unknown, SHOW_KEYS));
  }
  const include = values.include;
  if (include === undefined) {
    return { body: false };
  }
  if (include !== 'body') {
    throw new WebhookFilterError(
      INCLUDE_INVALID(typeof include === 'string' ? include : JSON.stringify(include)),
    );
  }
  return { body: true };
}

/**
 * `event` without its payload, or, when `body` is asked for, with its headers and its body cut
 * to {@link SHOWN_BODY_CHARACTERS}.
 */
export function eventView(
  event: WebhookEventDetails['event'],
  { body }: EventShowQuery,
): WebhookAdminEventView | WebhookAdminEventWithBody {
  const { rawBody, headers, ...summary } = event;
  if (!body) {
    return summary;
  }
  const stored = rawBody ?? '';
  let shown =
    stored.length > SHOWN_BODY_CHARACTERS ? stored.slice(0, SHOWN_BODY_CHARACTERS) : stored;
  if (shown.length < stored.length && /[\uD800-\uDBFF]$/.test(shown)) {
    shown = shown.slice(0, -1);
  }
  return {
    ...summary,
    headers,
    rawBody: shown,
    rawBodyLength: stored.length,
    rawBodyTruncated: shown.length < stored.length,
  };
}
