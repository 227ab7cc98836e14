/** The earliest and latest time an admin or CLI filter may name. */
export const FILTER_TIME_RANGE = '1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z';

export const TIME_INVALID = (name: string, value: string) =>
  `${name} must be an ISO 8601 time from ${FILTER_TIME_RANGE}, e.g. 2026-11-29T10:00:00Z ` +
  `(got ${JSON.stringify(value)})`;

export const TIME_OUT_OF_RANGE = (name: string, value: string) =>
  `${name} must be a time from ${FILTER_TIME_RANGE} (got ${JSON.stringify(value)}, outside it)`;

export const SINCE_AFTER_UNTIL = (since: string, until: string) =>
  `${since} must be before ${until}: no event is received at or after the one and before the other`;

export const STATUS_INVALID = (name: string, allowed: readonly string[], got: string) =>
  `${name} must be one or more of ${allowed.join(', ')}, as one value, comma-separated ` +
  `(status=dead,retrying) or repeated (status=dead&status=retrying); got ${JSON.stringify(got)}`;

export const LIMIT_INVALID = (max: number, got: string) =>
  `limit must be a whole number from 1 to ${max} (got ${JSON.stringify(got)})`;

export const TEXT_INVALID = (name: string, max: number) =>
  `${name} must be given once, as a non-empty text of at most ${max} characters`;

export const UNKNOWN_PARAMETER = (name: string, known: readonly string[]) =>
  `unknown query parameter ${JSON.stringify(name)}: this route takes ${known.join(', ')}`;

export const CROSS_SITE_FETCH = (site: string) =>
  'Admin requests that change events must come from the same origin: Sec-Fetch-Site is ' +
  `${JSON.stringify(site)}, and only same-origin or none (a typed URL, curl, a server) is accepted`;

export const CROSS_SITE_ORIGIN = (origin: string, host: string | undefined) =>
  `Admin requests that change events must come from the same origin: Origin ${JSON.stringify(
    origin,
  )} does not match the request's host ${JSON.stringify(host ?? '')}`;

export const JSON_REQUIRED = (contentType: string | undefined) =>
  'Admin requests that change events must be sent with Content-Type: application/json (a body ' +
  `of {} where the route takes none); got ${JSON.stringify(contentType ?? 'none')}`;

export const AUTHORIZE_THREW = (name: string, message: string) =>
  `authorize() threw ${name}: ${message}; the admin request was refused with 403`;

export const INCLUDE_INVALID = (got: string) =>
  'include must be "body", given once: GET events/:id?include=body adds the stored body and ' +
  `headers to the event (got ${JSON.stringify(got)})`;
