import { WebhookFilterError } from './event-filter-rules';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

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

/** A 400 saying `message`. */
export function badRequest(message: string): WebhookAdminRequestError {
  return new WebhookAdminRequestError(400, message);
}

/** `read()`, a broken filter rule as a 400. */
export function checked<T>(read: () => T): T {
  try {
    return read();
  } catch (error) {
    throw error instanceof WebhookFilterError ? badRequest(error.message) : error;
  }
}

/**
 * The JSON body of `route` as an object holding only `fields`.
 * @throws WebhookAdminRequestError 400 naming the fields the route takes.
 */
export function bodyOf(
  body: unknown,
  route: string,
  fields: readonly string[],
): Record<string, unknown> {
  const takes = fields.length === 0 ? 'takes a body of {}' : `takes ${fields.join(', ')}`;
  if (body === undefined || body === null) {
    return {};
  }
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw badRequest(`The body of ${route} must be a JSON object: ${route} ${takes}`);
  }
  const unknown = Object.keys(body).find((key) => !fields.includes(key));
  if (unknown !== undefined) {
    throw badRequest(`Unknown body field ${JSON.stringify(unknown)}: ${route} ${takes}`);
  }
  return body as Record<string, unknown>;
}

/** The id of a stored event, as Nest's `ParseUUIDPipe` checks it. */
export function parseEventId(id: string): string {
  if (!UUID.test(id)) {
    throw badRequest('Validation failed (uuid is expected)');
  }
  return id;
}
