import { WebhookEventStatus } from '../store/webhook-event-status';
import { WebhookAdmin, WebhookEventFilter } from './webhook-admin.service';

const STATUSES: readonly WebhookEventStatus[] = [
  'pending',
  'processing',
  'retrying',
  'processed',
  'ignored',
  'dead',
];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A refused admin request: 400 for a bad parameter, 404 for an event that is not there. */
export class WebhookAdminRequestError extends Error {
  constructor(
    readonly status: 400 | 404,
    message: string,
  ) {
    super(message);
    this.name = 'WebhookAdminRequestError';
  }
}

/** Query parameters of the list and replay routes. */
export interface WebhookAdminFilterQuery {
  endpoint?: string;
  status?: string;
  type?: string;
  paymentRef?: string;
  merchantRef?: string;
  since?: string;
  until?: string;
  limit?: string;
}

/** Body of the settle route. */
export interface WebhookAdminSettleBody {
  status?: string;
  reason?: string;
}

function badRequest(message: string): WebhookAdminRequestError {
  return new WebhookAdminRequestError(400, message);
}

function parseDate(name: string, value: string | undefined): Date | undefined {
  if (value === undefined) {
    return undefined;
  }
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) {
    throw badRequest(`${name} must be an ISO 8601 time, e.g. 2026-11-29T10:00:00Z`);
  }
  return date;
}

function parseFilter(query: WebhookAdminFilterQuery): WebhookEventFilter {
  const statuses = query.status?.split(',').map((status) => status.trim());
  const unknown = statuses?.filter((status) => !STATUSES.includes(status as WebhookEventStatus));
  if (unknown && unknown.length > 0) {
    throw badRequest(
      `status must be one or more of ${STATUSES.join(', ')} (got ${unknown.join(', ')})`,
    );
  }
  return {
    endpoint: query.endpoint,
    status: statuses as WebhookEventStatus[] | undefined,
    type: query.type,
    paymentRef: query.paymentRef,
    merchantRef: query.merchantRef,
    since: parseDate('since', query.since),
    until: parseDate('until', query.until),
  };
}

/** The id of a stored event, as Nest's `ParseUUIDPipe` checks it. */
export function parseEventId(id: string): string {
  if (!UUID.test(id)) {
    throw badRequest('Validation failed (uuid is expected)');
  }
  return id;
}

/**
 * What the admin routes do, whatever serves them (the Nest controller or the Express admin
 * router): parameters checked, `WebhookAdmin` called, and a refusal thrown as a
 * {@link WebhookAdminRequestError} the adapter turns into its 400 or 404.
 */
export class WebhookAdminRequests {
  constructor(private readonly admin: WebhookAdmin) {}

  list(query: WebhookAdminFilterQuery) {
    const limit = query.limit === undefined ? undefined : Number(query.limit);
    if (limit !== undefined && (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000)) {
      throw badRequest('limit must be an integer from 1 to 1000');
    }
    return this.admin.list({ ...parseFilter(query), limit });
  }

  async show(id: string) {
    const details = await this.admin.show(parseEventId(id));
    if (!details) {
      throw new WebhookAdminRequestError(404, `No stored event ${id}`);
    }
    return details;
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
    return this.admin.replay(parseFilter(query));
  }

  stats() {
    return this.admin.stats();
  }
}
