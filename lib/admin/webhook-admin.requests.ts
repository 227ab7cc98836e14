import type { HandlerRunRecord } from '../store/ports/inbox-event';
import type { WebhookEventDetails, WebhookEventSummary } from '../store/ports/inbox-queries.port';
import { parseEventFilterQuery, WebhookFilterError } from './event-filter-rules';
import { WebhookAdmin } from './webhook-admin';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Most characters of a stored body the single-event route returns; past it the body is cut
 * and `rawBodyTruncated` is true (the CLI's `events show` prints it whole).
 */
export const SHOWN_BODY_CHARACTERS = 256 * 1024;

/**
 * A refused admin request: 400 for a bad parameter, 403 for a cross-site request, 404 for an
 * event that is not there, 415 for a body that is not JSON.
 */
export class WebhookAdminRequestError extends Error {
  constructor(
    readonly status: 400 | 403 | 404 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookAdminRequestError';
  }
}

/** Query parameters of the list and replay routes, as the framework parsed them. */
export type WebhookAdminFilterQuery = Readonly<Record<string, unknown>>;

/** Body of the settle route. */
export interface WebhookAdminSettleBody {
  status?: string;
  reason?: string;
}

/** One event as the single-event route returns it: every column, the body bounded. */
export interface WebhookAdminEventView extends WebhookEventSummary {
  readonly bodySha256: string;
  readonly headers: Record<string, string>;
  /** The stored body, its first {@link SHOWN_BODY_CHARACTERS} characters at most. */
  readonly rawBody: string;
  /** How many characters the stored body has. */
  readonly rawBodyLength: number;
  /** True when `rawBody` is only the start of the stored body. */
  readonly rawBodyTruncated: boolean;
}

function badRequest(message: string): WebhookAdminRequestError {
  return new WebhookAdminRequestError(400, message);
}

/** The query's filter, a broken rule as a 400. */
function filterOf(query: WebhookAdminFilterQuery, route: 'list' | 'replay') {
  try {
    return parseEventFilterQuery(query, route);
  } catch (error) {
    throw error instanceof WebhookFilterError ? badRequest(error.message) : error;
  }
}

/** The id of a stored event, as Nest's `ParseUUIDPipe` checks it. */
export function parseEventId(id: string): string {
  if (!UUID.test(id)) {
    throw badRequest('Validation failed (uuid is expected)');
  }
  return id;
}

/** `event` with its body cut to {@link SHOWN_BODY_CHARACTERS}. */
function eventView(event: WebhookEventDetails['event']): WebhookAdminEventView {
  const body = event.rawBody ?? '';
  let shown = body.length > SHOWN_BODY_CHARACTERS ? body.slice(0, SHOWN_BODY_CHARACTERS) : body;
  if (shown.length < body.length && /[\uD800-\uDBFF]$/.test(shown)) {
    shown = shown.slice(0, -1);
  }
  return {
    ...event,
    rawBody: shown,
    rawBodyLength: body.length,
    rawBodyTruncated: shown.length < body.length,
  };
}

/**
 * What the admin routes do, whatever serves them (the Nest controller or the Express admin
 * router): parameters checked, `WebhookAdmin` called, and a refusal thrown as a
 * {@link WebhookAdminRequestError} the adapter answers with its status and message.
 */
export class WebhookAdminRequests {
  constructor(private readonly admin: WebhookAdmin) {}

  /** Summaries of the matching events: no body, no headers. */
  list(query: WebhookAdminFilterQuery): Promise<WebhookEventSummary[]> {
    return this.admin.list(filterOf(query, 'list'));
  }

  async show(
    id: string,
  ): Promise<{ event: WebhookAdminEventView; handlerRuns: readonly HandlerRunRecord[] }> {
    const details = await this.admin.show(parseEventId(id));
    if (!details) {
      throw new WebhookAdminRequestError(404, `No stored event ${id}`);
    }
    return { event: eventView(details.event), handlerRuns: details.handlerRuns };
  }

  async redeliver(id: string): Promise<{ redelivered: string }> {
    if (!(await this.admin.redeliver(parseEventId(id)))) {
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
  ): Promise<{ settled: string; status: 'dead' | 'ignored' }> {
    parseEventId(id);
    if (body?.status !== 'dead' && body?.status !== 'ignored') {
      throw badRequest('status must be "dead" or "ignored"');
    }
    if (typeof body.reason !== 'string' || body.reason.trim() === '') {
      throw badRequest('reason must say why the event is settled by hand');
    }
    if (!(await this.admin.settle(id, body.status, body.reason))) {
      throw new WebhookAdminRequestError(
        404,
        `Event ${id} was not settled: there is none or a worker holds it`,
      );
    }
    return { settled: id, status: body.status };
  }

  replay(query: WebhookAdminFilterQuery) {
    return this.admin.replay(filterOf(query, 'replay'));
  }

  stats() {
    return this.admin.stats();
  }
}
