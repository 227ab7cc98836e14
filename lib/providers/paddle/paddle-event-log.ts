import {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from '../event-log.interface';
import { JsonObject, isJsonObject, parseIsoDate, readObject, readString } from '../parse-payload';
import { BearerApi } from '../bearer-api';
import { ProviderLookup, describeProviderError, providerStatusError } from '../provider-http';

const CLIENT = 'PaddleEventLog';
const LIVE_API_URL = 'https://api.paddle.com';
const SANDBOX_API_URL = 'https://sandbox-api.paddle.com';
const KEYS_PAGE = 'Paddle → Developer tools → Authentication → API keys';
/** Paddle's largest page of events. */
export const PADDLE_EVENT_LOG_PAGE_SIZE = 200;
/** Paddle keeps events for 90 days. */
export const PADDLE_EVENT_RETENTION_MS = 90 * 24 * 60 * 60 * 1000;

/** Paddle API access of `paddleEndpoint()`. */
export interface PaddleApiOptions {
  /**
   * An API key (Paddle → Developer tools → Authentication → API keys) with the
   * `notification.read` permission, of the same environment (live or sandbox) as the
   * notification destination. Required.
   */
  apiKey: string;
  /**
   * Base URL of the Paddle API; a local fake in tests.
   * @default 'https://sandbox-api.paddle.com' for a sandbox key (`pdl_sdbx_…`), else 'https://api.paddle.com'
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
 * Paddle Billing's event stream, `GET /events` with a Bearer API key, newest first
 * (`order_by=id[DESC]`, 200 a page, the next page `after` the last id, as
 * `meta.pagination.next` says). Paddle filters events by no time, so events newer than the
 * window are skipped and paging stops at the first one older than it. A listed event carries
 * the `event_id` its notification carries, which is the dedup key, so it is stored under the
 * same key as its delivery.
 */
export class PaddleEventLog implements ProviderEventLog {
  /** Provider kind, as on the Paddle webhook provider. */
  readonly kind = 'paddle';
  /** What the log is, for reports. */
  readonly source = 'Paddle events (GET /events)';
  /** How far back Paddle keeps events. */
  readonly retentionMs = PADDLE_EVENT_RETENTION_MS;

  private readonly api: BearerApi;

  /** @throws WebhookConfigurationError when the key, `apiUrl` or `timeoutMs` cannot work. */
  constructor(options: PaddleApiOptions) {
    this.api = new BearerApi(
      {
        client: CLIENT,
        provider: 'Paddle',
        credential: 'apiKey',
        howToCopy: KEYS_PAGE,
        apiUrl: (key) => (key.startsWith('pdl_sdbx_') ? SANDBOX_API_URL : LIVE_API_URL),
      },
      { ...options },
    );
  }

  /**
   * One page of the stream, kept to the window's events.
   * @throws ProviderStatusError `unavailable` on 429 or 5xx, `unauthorized` when the key is
   * refused, `invalid_response` when the answer is no page of events.
   */
  async readPage(window: EventLogWindow, cursor: string | null): Promise<EventLogPage> {
    const lookup = this.api.eventLogRead(
      `events from ${window.since.toISOString()} to ${window.until.toISOString()}`,
    );
    const query = new URLSearchParams({
      order_by: 'id[DESC]',
      per_page: String(PADDLE_EVENT_LOG_PAGE_SIZE),
      ...(cursor === null ? {} : { after: cursor }),
    });
    const { body } = await this.api.send(lookup, `/events?${query.toString()}`, {}, (error) =>
      paddleErrorDetail(lookup, error),
    );
    if (!Array.isArray(body.data)) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer holds no list of events');
    }
    const listed = body.data.map((event) => loggedEvent(lookup, event));
    const events = listed.filter(({ createdAt }) => createdAt <= window.until);
    const reachedSince = listed.some(({ createdAt }) => createdAt < window.since);
    return {
      events: events.filter(({ createdAt }) => createdAt >= window.since),
      next: reachedSince ? null : nextCursor(lookup, body),
    };
  }
}

function loggedEvent(lookup: ProviderLookup, event: unknown): LoggedEvent {
  const createdAt = isJsonObject(event) ? parseIsoDate(event.occurred_at) : undefined;
  if (!isJsonObject(event) || readString(event, 'event_id') === undefined || !createdAt) {
    throw providerStatusError(
      lookup,
      'invalid_response',
      'a listed event has no event_id or occurred_at',
    );
  }
  return { body: JSON.stringify(event), createdAt };
}

/** The `after` of `meta.pagination.next` while `has_more`, else null. */
function nextCursor(lookup: ProviderLookup, body: JsonObject): string | null {
  const pagination = readObject(readObject(body, 'meta'), 'pagination');
  if (pagination?.has_more !== true) {
    return null;
  }
  const next = readString(pagination, 'next');
  let after: string | null = null;
  try {
    after = next === undefined ? null : new URL(next).searchParams.get('after');
  } catch {
    after = null;
  }
  if (after === null || after.length === 0) {
    throw providerStatusError(
      lookup,
      'invalid_response',
      'more events follow, but meta.pagination.next names no event to read after',
    );
  }
  return after;
}

/** Paddle's `{ error: { code, detail } }`. */
function paddleErrorDetail(lookup: ProviderLookup, body: JsonObject): string | undefined {
  const error = readObject(body, 'error');
  return describeProviderError(lookup, 'code', error?.code, [error?.detail]);
}
