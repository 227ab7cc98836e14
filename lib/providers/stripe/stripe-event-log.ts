import type {
  EventLogPage,
  EventLogWindow,
  LoggedEvent,
  ProviderEventLog,
} from '../event-log.interface';
import { JsonObject, isJsonObject, readString } from '../parse-payload';
import { BearerApi } from '../bearer-api';
import { ProviderJsonAnswer, ProviderLookup, providerStatusError } from '../provider-http';
import type { StripeStatusClientOptions } from './stripe-status.client';

const CLIENT = 'StripeEventLog';
const DEFAULT_API_URL = 'https://api.stripe.com';
const KEYS_PAGE = 'Stripe Dashboard → Developers → API keys';
/** Stripe lists events of the last 30 days. */
export const STRIPE_EVENT_RETENTION_MS = 30 * 86_400_000;
/** The most events one page of either list holds. */
export const STRIPE_EVENTS_PAGE_SIZE = 100;
/** A `next_page_url` of the v2 list is a path of the events list, nothing else. */
const V2_NEXT_PAGE = /^\/v2\/core\/events\?[A-Za-z0-9_.~%=&\-[\]]{1,2000}$/;

/** The payload style of the events an endpoint's Stripe event destination sends. */
export type StripePayloadStyle = 'snapshot' | 'thin';

/**
 * Stripe's event logs, read with the endpoint's API key (`api.apiKey`; a restricted key needs
 * read access to Events):
 * - for snapshot events, `GET /v1/events` with `created[gte]`/`created[lte]` (Unix seconds),
 *   newest first, 100 a page, the next page `starting_after` the last event's id;
 * - for thin events, `GET /v2/core/events` with `created[gte]`/`created[lte]` (ISO times), the
 *   next page at its `next_page_url`.
 * Both keep 30 days. Each event is stored as its delivery carries it: a snapshot event is the
 * delivery's whole body; a thin event's notification is the event without `data` and `changes`.
 */
export class StripeEventLog implements ProviderEventLog {
  readonly kind = 'stripe';
  readonly retentionMs = STRIPE_EVENT_RETENTION_MS;
  readonly source: string;

  private readonly api: BearerApi;

  /** @throws WebhookConfigurationError when the key, `apiUrl` or `timeoutMs` cannot work. */
  constructor(
    options: StripeStatusClientOptions,
    private readonly payloadStyle: StripePayloadStyle = 'snapshot',
  ) {
    this.api = new BearerApi(
      {
        client: CLIENT,
        provider: 'Stripe',
        credential: 'apiKey',
        howToCopy: KEYS_PAGE,
        apiUrl: () => DEFAULT_API_URL,
      },
      { ...options },
    );
    this.source =
      payloadStyle === 'thin' ? 'Stripe Events API (v2, thin events)' : 'Stripe Events API (v1)';
  }

  readPage(window: EventLogWindow, cursor: string | null): Promise<EventLogPage> {
    return this.payloadStyle === 'thin'
      ? this.readThin(window, cursor)
      : this.readSnapshots(window, cursor);
  }

  private async readSnapshots(
    window: EventLogWindow,
    cursor: string | null,
  ): Promise<EventLogPage> {
    const query = new URLSearchParams({
      'created[gte]': String(Math.floor(window.since.getTime() / 1000)),
      'created[lte]': String(Math.floor(window.until.getTime() / 1000)),
      limit: String(STRIPE_EVENTS_PAGE_SIZE),
    });
    if (cursor !== null) {
      query.set('starting_after', cursor);
    }
    const lookup = this.lookup('events', cursor);
    const answer = await this.get(lookup, `/v1/events?${query.toString()}`);
    const events = this.listed(lookup, answer, (event) => {
      const created = event.created;
      return typeof created === 'number' ? new Date(created * 1000) : undefined;
    });
    const last = readString(events.at(-1)?.event, 'id');
    return {
      events: events.map(({ logged }) => logged),
      next: answer.body.has_more === true && last !== undefined ? last : null,
    };
  }

  private async readThin(window: EventLogWindow, cursor: string | null): Promise<EventLogPage> {
    let path: string;
    if (cursor === null) {
      const query = new URLSearchParams({
        'created[gte]': window.since.toISOString(),
        'created[lte]': window.until.toISOString(),
        limit: String(STRIPE_EVENTS_PAGE_SIZE),
      });
      path = `/v2/core/events?${query.toString()}`;
    } else {
      path = cursor;
    }
    const lookup = this.lookup('event notifications', cursor);
    const answer = await this.get(lookup, path);
    const events = this.listed(
      lookup,
      answer,
      (event) => {
        const created = readString(event, 'created');
        return created === undefined ? undefined : new Date(created);
      },
      notificationOf,
    );
    const next = answer.body.next_page_url;
    if (
      next !== null &&
      next !== undefined &&
      (typeof next !== 'string' || !V2_NEXT_PAGE.test(next))
    ) {
      throw providerStatusError(
        lookup,
        'invalid_response',
        'its next_page_url is no page of the events list',
        {
          httpStatus: answer.status,
        },
      );
    }
    return {
      events: events.map(({ logged }) => logged),
      next: typeof next === 'string' ? next : null,
    };
  }

  /** The events of a list answer, each as its delivery would carry it. */
  private listed(
    lookup: ProviderLookup,
    { status, body }: ProviderJsonAnswer,
    createdOf: (event: JsonObject) => Date | undefined,
    delivered: (event: JsonObject) => JsonObject = (event) => event,
  ): { event: JsonObject; logged: LoggedEvent }[] {
    const data = body.data;
    if (!Array.isArray(data)) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is no list of events', {
        httpStatus: status,
      });
    }
    return data.map((event: unknown) => {
      const createdAt = isJsonObject(event) ? createdOf(event) : undefined;
      if (
        !isJsonObject(event) ||
        readString(event, 'id') === undefined ||
        createdAt === undefined ||
        Number.isNaN(createdAt.getTime())
      ) {
        throw providerStatusError(
          lookup,
          'invalid_response',
          'an event of the list has no id or creation time',
          {
            httpStatus: status,
          },
        );
      }
      return { event, logged: { body: JSON.stringify(delivered(event)), createdAt } };
    });
  }

  private get(lookup: ProviderLookup, path: string): Promise<ProviderJsonAnswer> {
    return this.api.send(lookup, path, {}, (body) => {
      const error = isJsonObject(body.error) ? body.error : undefined;
      return readString(error, 'code') ?? readString(error, 'type');
    });
  }

  private lookup(what: string, cursor: string | null): ProviderLookup {
    return this.api.eventLogRead(
      cursor === null ? `${what} (first page)` : `${what} (page after ${cursor.slice(0, 80)})`,
    );
  }
}

/** A thin event as its notification carries it: the event without `data` and `changes`. */
function notificationOf(event: JsonObject): JsonObject {
  const { data: _data, changes: _changes, ...notification } = event;
  return notification;
}
