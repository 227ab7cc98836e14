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

/** Most names a refusal of an unknown name lists. */
const LISTED_NAMES = 30;

/** `names` as a refusal lists them: comma-separated, the first 30 and how many more. */
function nameList(names: readonly string[]): string {
  if (names.length === 0) {
    return 'none';
  }
  const listed = names.slice(0, LISTED_NAMES).join(', ');
  return names.length > LISTED_NAMES ? `${listed} and ${names.length - LISTED_NAMES} more` : listed;
}

/** Where the names an operator's command may name come from, as a refusal says it. */
export const KNOWN_NAMES = {
  configured: {
    endpoint: 'the configured endpoints',
    handler: "the registered handlers (ClassName.method, or a handler function's name)",
  },
  paused: {
    endpoint: 'the configured endpoints and those of the pauses in force',
    handler:
      "the registered handlers (ClassName.method, or a handler function's name) and those of " +
      'the pauses in force',
  },
  stored: {
    endpoint: 'the configured endpoints and those of stored events',
    handler:
      "the registered handlers (ClassName.method, or a handler function's name) and those the " +
      'database records',
  },
  recorded: {
    endpoint:
      "the endpoints the database records, of stored events and pauses (the CLI reads the app's " +
      'database, not its configuration)',
    handler:
      'the handlers the database records, in handler runs, failed attempts and pauses (the CLI ' +
      "reads the app's database, not its configuration)",
  },
} as const;

/** What a refused command did not do. */
export const NOTHING_DONE = {
  pause: 'Nothing was paused.',
  resume: 'Nothing was resumed.',
  replay: 'Nothing was replayed.',
  discard: 'Nothing was discarded.',
} as const;

export const UNKNOWN_NAME = (
  kind: 'endpoint' | 'handler',
  name: string,
  closest: string | undefined,
  knownAs: string,
  known: readonly string[],
  nothingDone: string,
) =>
  `No ${kind} is named ${JSON.stringify(name)}` +
  (closest === undefined ? '' : ` (did you mean ${JSON.stringify(closest)}?)`) +
  `; ${knownAs}: ${nameList(known)}. ${nothingDone}`;

export const PAUSE_UNRECORDED_NAME =
  "One that has not run yet can be paused through the app's admin routes, which know its " +
  'configuration.';
