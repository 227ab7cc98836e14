import {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from '../event-log.interface';
import { JsonObject, isJsonObject, parseIsoDate, readString } from '../parse-payload';
import { ProviderLookup, providerStatusError } from '../provider-http';
import { PayPalApi } from './paypal-api';
import type { PayPalStatusClientOptions } from './paypal-api';

const CLIENT = 'PayPalEventLog';
const EVENTS_PATH = '/v1/notifications/webhooks-events';
/**
 * Events asked for per page. PayPal documents a default of 10 and no maximum, and may answer
 * with fewer than asked.
 */
export const PAYPAL_EVENT_LOG_PAGE_SIZE = 50;
/** PayPal lists webhook events of the last 30 days (its Webhooks Events dashboard's range). */
export const PAYPAL_EVENT_RETENTION_MS = 30 * 24 * 60 * 60 * 1000;

/**
 * PayPal's list of webhook event notifications, `GET /v1/notifications/webhooks-events` with
 * `start_time`, `end_time` and `page_size`, read with the REST app's access token. The next
 * page is the `rel: "next"` link PayPal answers with; only its query is kept as the cursor, and
 * it is asked of the configured API, so the token never goes to another address. Each event is
 * the body its delivery carries, so it normalizes to the same `WH-…` event id.
 */
export class PayPalEventLog implements ProviderEventLog {
  /** Provider kind, as on the PayPal webhook provider. */
  readonly kind = 'paypal';
  /** What the log is, for reports. */
  readonly source = 'PayPal webhook events (GET /v1/notifications/webhooks-events)';
  /** How far back PayPal lists events. */
  readonly retentionMs = PAYPAL_EVENT_RETENTION_MS;

  private readonly api: PayPalApi;

  /**
   * @throws WebhookConfigurationError when a credential, `environment`, `apiUrl` or `timeoutMs`
   * cannot work.
   */
  constructor(options: PayPalStatusClientOptions) {
    this.api = new PayPalApi(CLIENT, options);
  }

  /**
   * One page of the window's events.
   * @throws ProviderStatusError `unavailable` on 429 or 5xx, `unauthorized` when the app's
   * credentials are refused, `invalid_response` when the answer is no list of events.
   */
  async readPage(window: EventLogWindow, cursor: string | null): Promise<EventLogPage> {
    const lookup = this.api.lookupOf(
      `webhook events from ${window.since.toISOString()} to ${window.until.toISOString()}`,
      'event log read',
    );
    const query = cursor ?? firstPageQuery(window);
    const body = await this.api.get(lookup, `${EVENTS_PATH}?${query}`);
    const listed = body.events;
    if (!Array.isArray(listed)) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer holds no list of events');
    }
    return {
      events: listed.map((event) => loggedEvent(lookup, event)),
      next: nextPageQuery(lookup, body),
    };
  }
}

function firstPageQuery(window: EventLogWindow): string {
  return new URLSearchParams({
    page_size: String(PAYPAL_EVENT_LOG_PAGE_SIZE),
    start_time: window.since.toISOString(),
    end_time: window.until.toISOString(),
  }).toString();
}

function loggedEvent(lookup: ProviderLookup, event: unknown): LoggedEvent {
  const createdAt = isJsonObject(event) ? parseIsoDate(event.create_time) : undefined;
  if (!isJsonObject(event) || readString(event, 'id') === undefined || createdAt === undefined) {
    throw providerStatusError(
      lookup,
      'invalid_response',
      'a listed event has no id or create_time',
    );
  }
  return { body: JSON.stringify(event), createdAt };
}

/** The query of the `rel: "next"` link, or null on the last page. */
function nextPageQuery(lookup: ProviderLookup, body: JsonObject): string | null {
  const links = Array.isArray(body.links) ? body.links : [];
  const next = links.find((link) => isJsonObject(link) && link.rel === 'next');
  const href = isJsonObject(next) ? readString(next, 'href') : undefined;
  if (href === undefined) {
    return null;
  }
  let url: URL;
  try {
    url = new URL(href, 'https://api-m.paypal.com');
  } catch {
    url = new URL('about:blank');
  }
  if (url.pathname !== EVENTS_PATH || url.search.length < 2) {
    throw providerStatusError(
      lookup,
      'invalid_response',
      'the next page link is not a page of webhook events',
    );
  }
  return url.search.slice(1);
}
