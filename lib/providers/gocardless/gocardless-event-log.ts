import {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from '../event-log.interface';
import { JsonObject, isJsonObject, parseIsoDate, readObject, readString } from '../parse-payload';
import { BearerApi } from '../bearer-api';
import { ProviderLookup, describeProviderError, providerStatusError } from '../provider-http';

const CLIENT = 'GoCardlessEventLog';
const LIVE_API_URL = 'https://api.gocardless.com';
const SANDBOX_API_URL = 'https://api-sandbox.gocardless.com';
const TOKEN_PAGE = 'the GoCardless Dashboard → Developers → Create → Access token';
/** The API version GoCardless answers in (`GoCardless-Version`). */
export const GOCARDLESS_API_VERSION = '2015-07-06';
/** GoCardless's largest page. */
export const GOCARDLESS_EVENT_LOG_PAGE_SIZE = 500;
/**
 * GoCardless documents no period after which events are no longer listed, so no window is
 * refused for its age.
 */
export const GOCARDLESS_EVENT_RETENTION_MS = Number.POSITIVE_INFINITY;

/** GoCardless API access of `goCardlessEndpoint()`. */
export interface GoCardlessApiOptions {
  /**
   * An access token (the GoCardless Dashboard → Developers → Create → Access token; read-only
   * access is enough) of the same organisation and environment (live or sandbox) as the
   * webhook endpoint. Required.
   */
  accessToken: string;
  /**
   * Base URL of the GoCardless API; a local fake in tests.
   * @default 'https://api-sandbox.gocardless.com' for a sandbox token (`sandbox_…`), else 'https://api.gocardless.com'
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
 * GoCardless's events, `GET /events` with a Bearer access token and the `GoCardless-Version`
 * header: the window as `created_at[gte]` and `created_at[lte]`, 500 a page, the next page
 * `after` the cursor `meta.cursors.after` names. Each event is given as the one-event webhook
 * body `{"events":[…]}` the endpoint stores a delivered event as, so it is stored under the
 * same event id (`EV…`).
 */
export class GoCardlessEventLog implements ProviderEventLog {
  /** Provider kind, as on the GoCardless webhook provider. */
  readonly kind = 'gocardless';
  /** What the log is, for reports. */
  readonly source = 'GoCardless events (GET /events)';
  /** GoCardless documents no retention period. */
  readonly retentionMs = GOCARDLESS_EVENT_RETENTION_MS;

  private readonly api: BearerApi;

  /** @throws WebhookConfigurationError when the token, `apiUrl` or `timeoutMs` cannot work. */
  constructor(options: GoCardlessApiOptions) {
    this.api = new BearerApi(
      {
        client: CLIENT,
        provider: 'GoCardless',
        credential: 'accessToken',
        howToCopy: TOKEN_PAGE,
        apiUrl: (token) => (token.startsWith('sandbox_') ? SANDBOX_API_URL : LIVE_API_URL),
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
    const query = new URLSearchParams({
      'created_at[gte]': window.since.toISOString(),
      'created_at[lte]': window.until.toISOString(),
      limit: String(GOCARDLESS_EVENT_LOG_PAGE_SIZE),
      ...(cursor === null ? {} : { after: cursor }),
    });
    const { body } = await this.api.send(
      lookup,
      `/events?${query.toString()}`,
      { headers: { 'gocardless-version': GOCARDLESS_API_VERSION } },
      (error) => goCardlessErrorDetail(lookup, error),
    );
    if (!Array.isArray(body.events)) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer holds no list of events');
    }
    const after = readString(readObject(readObject(body, 'meta'), 'cursors'), 'after');
    return {
      events: body.events.map((event) => loggedEvent(lookup, event)),
      next: after === undefined || after === '' ? null : after,
    };
  }
}

function loggedEvent(lookup: ProviderLookup, event: unknown): LoggedEvent {
  const createdAt = isJsonObject(event) ? parseIsoDate(event.created_at) : undefined;
  if (!isJsonObject(event) || readString(event, 'id') === undefined || !createdAt) {
    throw providerStatusError(lookup, 'invalid_response', 'a listed event has no id or created_at');
  }
  return { body: JSON.stringify({ events: [event] }), createdAt };
}

/** GoCardless's `{ error: { type, message, errors: [{ reason, message }] } }`. */
function goCardlessErrorDetail(lookup: ProviderLookup, body: JsonObject): string | undefined {
  const error = readObject(body, 'error');
  const first =
    Array.isArray(error?.errors) && isJsonObject(error.errors[0]) ? error.errors[0] : {};
  return describeProviderError(lookup, 'type', error?.type, [error?.message, first.reason]);
}
