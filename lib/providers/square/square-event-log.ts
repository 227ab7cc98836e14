import {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from '../event-log.interface';
import { JsonObject, isJsonObject, parseIsoDate, readString } from '../parse-payload';
import { BearerApi } from '../bearer-api';
import { ProviderLookup, describeProviderError, providerStatusError } from '../provider-http';

const CLIENT = 'SquareEventLog';
const API_URL = 'https://connect.squareup.com';
const TOKEN_PAGE = 'Square Developer Console → your application → Credentials → Access token';
/** The Square API version the requests are written for. */
export const SQUARE_API_VERSION = '2025-01-23';
/** Square's largest page of events. */
export const SQUARE_EVENT_LOG_PAGE_SIZE = 100;
/** Square searches events of the last 28 days. */
export const SQUARE_EVENT_RETENTION_MS = 28 * 24 * 60 * 60 * 1000;

/** Square API access of `squareEndpoint()`. */
export interface SquareApiOptions {
  /**
   * The access token of the application the webhook subscription belongs to (Developer Console
   * → your application → Credentials), of the same environment (production or sandbox) and
   * seller. Required.
   */
  accessToken: string;
  /**
   * Base URL of the Square API: `'https://connect.squareupsandbox.com'` for a sandbox token; a
   * local fake in tests.
   * @default 'https://connect.squareup.com'
   * @advanced
   */
  apiUrl?: string;
  /**
   * Longest wait for each page, in milliseconds; then the page fails with `timeout`.
   * @default 10000
   * @advanced
   */
  timeoutMs?: number;
}

/**
 * Square's Events API, `SearchEvents` (`POST /v2/events`) with a Bearer access token and a
 * `Square-Version` header: the window as `query.filter.created_at`, oldest first, 100 a page,
 * the next page by `cursor` with the same query, as Square requires. A listed event has the
 * shape of the webhook body, so it is stored under the same `event_id`.
 */
export class SquareEventLog implements ProviderEventLog {
  /** Provider kind, as on the Square webhook provider. */
  readonly kind = 'square';
  /** What the log is, for reports. */
  readonly source = 'Square Events API (SearchEvents, POST /v2/events)';
  /** How far back Square searches events. */
  readonly retentionMs = SQUARE_EVENT_RETENTION_MS;

  private readonly api: BearerApi;

  /** @throws WebhookConfigurationError when the token, `apiUrl` or `timeoutMs` cannot work. */
  constructor(options: SquareApiOptions) {
    this.api = new BearerApi(
      {
        client: CLIENT,
        provider: 'Square',
        credential: 'accessToken',
        howToCopy: TOKEN_PAGE,
        apiUrl: () => API_URL,
      },
      { ...options },
    );
  }

  /**
   * One page of the window's events.
   * @throws ProviderStatusError `unavailable` on 429 or 5xx, `unauthorized` when the token is
   * refused, `invalid_response` when the answer is no list of events.
   */
  async readPage(window: EventLogWindow, cursor: string | null): Promise<EventLogPage> {
    const lookup = this.api.eventLogRead(
      `events from ${window.since.toISOString()} to ${window.until.toISOString()}`,
    );
    const search = {
      ...(cursor === null ? {} : { cursor }),
      limit: SQUARE_EVENT_LOG_PAGE_SIZE,
      query: {
        filter: {
          created_at: { start_at: window.since.toISOString(), end_at: window.until.toISOString() },
        },
        sort: { field: 'DEFAULT', order: 'ASC' },
      },
    };
    const { body } = await this.api.send(
      lookup,
      '/v2/events',
      { method: 'POST', headers: { 'square-version': SQUARE_API_VERSION }, body: search },
      (error) => squareErrorDetail(lookup, error),
    );
    // NOTE: Square leaves `events` out of a page with none.
    const listed = body.events ?? [];
    if (!Array.isArray(listed) || Array.isArray(body.errors)) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer holds no list of events');
    }
    const next = readString(body, 'cursor');
    return {
      events: listed.map((event) => loggedEvent(lookup, event)),
      next: next === undefined || next === '' ? null : next,
    };
  }
}

function loggedEvent(lookup: ProviderLookup, event: unknown): LoggedEvent {
  const createdAt = isJsonObject(event) ? parseIsoDate(event.created_at) : undefined;
  if (!isJsonObject(event) || readString(event, 'event_id') === undefined || !createdAt) {
    throw providerStatusError(
      lookup,
      'invalid_response',
      'a listed event has no event_id or created_at',
    );
  }
  return { body: JSON.stringify(event), createdAt };
}

/** Square's first error: `{ errors: [{ category, code, detail }] }`. */
function squareErrorDetail(lookup: ProviderLookup, body: JsonObject): string | undefined {
  const first = Array.isArray(body.errors) && isJsonObject(body.errors[0]) ? body.errors[0] : {};
  return describeProviderError(lookup, 'code', first.code, [first.detail]);
}
