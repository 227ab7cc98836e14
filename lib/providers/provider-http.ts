import {
  ProviderStatusError,
  ProviderStatusFailure,
  WebhookConfigurationError,
} from '../core/webhook-errors';
import { JsonObject, isJsonObject } from './parse-payload';
import {
  invalidApiUrlMessage,
  invalidCredentialMessage,
  invalidTimeoutMessage,
} from './status-clients.messages';

/** How long a status client waits for the provider's whole answer, unless told otherwise. */
export const DEFAULT_STATUS_TIMEOUT_MS = 10_000;

// NOTE: the largest delay Node timers accept; AbortSignal.timeout() takes no more.
const MAX_TIMEOUT_MS = 2_147_483_647;
const MAX_PROVIDER_TEXT = 200;
const REDACTED = '[redacted]';

/** One lookup as the error messages describe it. */
export interface ProviderLookup {
  /** The provider's name as users know it, e.g. `'Stripe'`. */
  readonly provider: string;
  /** What is looked up, e.g. `'PaymentIntent "pi_123"'`; see {@link quoteReference}. */
  readonly subject: string;
  /**
   * Every credential the request carries (keys, passwords, tokens, the exact Authorization
   * header value). Removed from any text that goes into an error message.
   */
  readonly secrets: readonly string[];
  /** How long the whole exchange may take, in milliseconds. */
  readonly timeoutMs: number;
  /**
   * What the request does, as error messages name it.
   * @default 'status lookup'
   */
  readonly action?: string;
}

/** The request a status client sends. */
export interface ProviderHttpRequest {
  /** Absolute URL, without credentials. */
  readonly url: string;
  /** HTTP method. */
  readonly method: 'GET' | 'POST';
  /** Request headers. */
  readonly headers: Readonly<Record<string, string>>;
  /** Request body, for POST. */
  readonly body?: string;
}

/** A 2xx answer of a provider's API. */
export interface ProviderJsonAnswer {
  /** The HTTP status (2xx). */
  readonly status: number;
  /** The body, a JSON object. */
  readonly body: JsonObject;
}

/**
 * Reads the provider's own short error description from an error body (an error code, a
 * message), for the error message. It is cleaned and has every secret removed before use.
 */
export type ProviderErrorDetail = (body: JsonObject) => string | undefined;

/**
 * Sends one request to a provider's API and returns its 2xx answer's JSON object. One attempt, no
 * retries (the dispatcher retries), redirects refused so credentials never travel to another
 * address, the whole exchange bounded by `lookup.timeoutMs`.
 *
 * @throws ProviderStatusError `timeout` when no full answer came in time; `unavailable` on a
 * network error, 408, 429 or 5xx; `unauthorized` on 401 or 403; `not_found` on 404;
 * `invalid_response` on a redirect, another status, or a 2xx body that is not a JSON object.
 */
export async function fetchProviderJson(
  lookup: ProviderLookup,
  request: ProviderHttpRequest,
  errorDetail: ProviderErrorDetail = () => undefined,
): Promise<ProviderJsonAnswer> {
  let status: number;
  let text: string;
  try {
    const response = await fetch(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.timeout(lookup.timeoutMs),
    });
    status = response.status;
    // NOTE: the timeout signal also aborts reading the body, so a trickling answer times out too.
    text = await response.text();
  } catch (error) {
    throw transportError(lookup, error);
  }
  const body = parseJsonObject(text);
  if (status < 200 || status > 299) {
    const detail = body === undefined ? undefined : errorDetail(body);
    throw httpStatusError(lookup, status, detail);
  }
  if (body === undefined) {
    throw providerStatusError(lookup, 'invalid_response', 'the answer is not a JSON object', {
      httpStatus: status,
    });
  }
  return { status, body };
}

/**
 * A `ProviderStatusError` whose message names the provider, what was looked up, the HTTP status
 * and the provider's own detail, with every secret of `lookup` removed.
 */
export function providerStatusError(
  lookup: ProviderLookup,
  failure: ProviderStatusFailure,
  problem: string,
  options: { readonly httpStatus?: number; readonly detail?: string; readonly hint?: string } = {},
): ProviderStatusError {
  const facts = [
    options.httpStatus === undefined ? undefined : `HTTP ${options.httpStatus}`,
    options.detail,
  ].filter((fact): fact is string => fact !== undefined && fact.length > 0);
  const message =
    `${lookup.provider} ${lookup.action ?? 'status lookup'} of ${lookup.subject} failed: ${problem}` +
    (facts.length > 0 ? ` (${facts.join(', ')})` : '') +
    (options.hint ? `; ${options.hint}` : '');
  return new ProviderStatusError(
    failure,
    redactSecrets(message, lookup.secrets),
    options.httpStatus,
  );
}

/**
 * Provider-supplied text made safe for an error message: secrets removed, control characters
 * replaced, cut to 200 characters. Undefined for anything that is not a non-empty string or
 * number.
 */
export function providerText(value: unknown, secrets: readonly string[]): string | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') {
    return undefined;
  }
  // NOTE: redacted before cutting, so a secret cut in half cannot survive as a prefix.
  // eslint-disable-next-line no-control-regex
  const text = redactSecrets(String(value), secrets).replace(/[\u0000-\u001f\u007f]+/g, ' ');
  const trimmed = text.trim();
  if (trimmed.length === 0) {
    return undefined;
  }
  return trimmed.length > MAX_PROVIDER_TEXT ? `${trimmed.slice(0, MAX_PROVIDER_TEXT)}…` : trimmed;
}

/**
 * The detail of a provider's error answer: `<codeName> <code>` followed by its texts, each made
 * safe by {@link providerText} and joined by ": "; undefined when none is readable.
 * @example describeProviderError(lookup, 'ErrorCode', body.ErrorCode, [body.Message, body.Details])
 */
export function describeProviderError(
  lookup: ProviderLookup,
  codeName: string,
  code: unknown,
  texts: readonly unknown[],
): string | undefined {
  const codeText = providerText(code, lookup.secrets);
  const parts = [
    codeText === undefined ? undefined : `${codeName} ${codeText}`,
    ...texts.map((text) => providerText(text, lookup.secrets)),
  ].filter((part): part is string => part !== undefined);
  return parts.length > 0 ? parts.join(': ') : undefined;
}

/** An id as error messages show it: JSON-quoted (no control characters) and at most 100 long. */
export function quoteReference(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}

/**
 * The API base URL without a trailing slash, or a startup error.
 * @param client names the client in the error, e.g. `'StripeStatusClient'`.
 * @throws WebhookConfigurationError when the value is not an absolute http(s) URL, or carries
 * credentials, a query or a fragment.
 */
export function resolveApiUrl(client: string, value: unknown, fallback: string): string {
  const raw = value ?? fallback;
  if (typeof raw !== 'string' || raw.trim() !== raw || raw.length === 0) {
    throw new WebhookConfigurationError(
      invalidApiUrlMessage(client, 'must be a non-empty string without spaces', fallback),
    );
  }
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new WebhookConfigurationError(
      invalidApiUrlMessage(client, 'is not an absolute URL', fallback),
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new WebhookConfigurationError(
      invalidApiUrlMessage(client, 'must use http or https', fallback),
    );
  }
  if (url.username !== '' || url.password !== '') {
    throw new WebhookConfigurationError(
      invalidApiUrlMessage(
        client,
        'must not carry credentials (give them in the credential options)',
        fallback,
      ),
    );
  }
  if (url.search !== '' || url.hash !== '' || raw.includes('?') || raw.includes('#')) {
    throw new WebhookConfigurationError(
      invalidApiUrlMessage(client, 'must not have a query or a fragment', fallback),
    );
  }
  return url.href.replace(/\/+$/, '');
}

/**
 * The timeout in milliseconds (default 10000), or a startup error.
 * @throws WebhookConfigurationError when the value is not a whole number from 1 to 2147483647.
 */
export function resolveTimeoutMs(client: string, value: unknown): number {
  const timeoutMs = value ?? DEFAULT_STATUS_TIMEOUT_MS;
  if (
    typeof timeoutMs !== 'number' ||
    !Number.isSafeInteger(timeoutMs) ||
    timeoutMs < 1 ||
    timeoutMs > MAX_TIMEOUT_MS
  ) {
    throw new WebhookConfigurationError(invalidTimeoutMessage(client, value));
  }
  return timeoutMs;
}

/**
 * A credential option as given, or a startup error that names the option (never its value).
 * @param where says where the user finds the value, e.g. `'Stripe Dashboard → Developers → API keys'`.
 * @throws WebhookConfigurationError when it is missing, empty or has spaces around it.
 */
export function requireCredential(
  client: string,
  option: string,
  value: unknown,
  where: string,
): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new WebhookConfigurationError(invalidCredentialMessage(client, option, 'missing', where));
  }
  if (value.trim() !== value) {
    throw new WebhookConfigurationError(
      invalidCredentialMessage(client, option, 'whitespace', where),
    );
  }
  return value;
}

function parseJsonObject(text: string): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(text);
    return isJsonObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function transportError(lookup: ProviderLookup, error: unknown): ProviderStatusError {
  const name = propertyOf(error, 'name');
  if (name === 'TimeoutError' || name === 'AbortError') {
    return providerStatusError(
      lookup,
      'timeout',
      `no complete answer within ${lookup.timeoutMs} ms`,
      { hint: 'asking again later may succeed' },
    );
  }
  return providerStatusError(lookup, 'unavailable', 'the API could not be reached', {
    detail: networkErrorCode(error),
    hint: 'asking again later may succeed',
  });
}

/** The system error code behind a failed fetch (`ECONNREFUSED`, …); never the error's text. */
function networkErrorCode(error: unknown): string | undefined {
  const code = propertyOf(propertyOf(error, 'cause'), 'code');
  return typeof code === 'string' && /^[A-Z0-9_]{1,40}$/.test(code) ? code : undefined;
}

// NOTE: read by name, not instanceof: fetch's errors may come from another realm (a test VM).
function propertyOf(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null
    ? (value as Record<string, unknown>)[key]
    : undefined;
}

function httpStatusError(
  lookup: ProviderLookup,
  status: number,
  detail: string | undefined,
): ProviderStatusError {
  const safeDetail = providerText(detail, lookup.secrets);
  const options = { httpStatus: status, detail: safeDetail };
  if (status === 401 || status === 403) {
    return providerStatusError(lookup, 'unauthorized', 'the credentials were refused', {
      ...options,
      hint: "check the status client's credentials: same account and mode (test or live) as the webhooks",
    });
  }
  if (status === 404) {
    return providerStatusError(lookup, 'not_found', 'the provider does not know it', {
      ...options,
      hint: 'it may belong to another account or mode (test or live)',
    });
  }
  if (status === 408 || status === 429 || status >= 500) {
    const problem = status === 429 ? 'too many requests' : 'the API is unavailable';
    return providerStatusError(lookup, 'unavailable', problem, {
      ...options,
      hint: 'asking again later may succeed',
    });
  }
  const problem =
    status >= 300 && status < 400
      ? 'the API answered with a redirect, which is not followed'
      : 'the API answered with an unexpected status';
  return providerStatusError(lookup, 'invalid_response', problem, {
    ...options,
    hint: 'check apiUrl',
  });
}

function redactSecrets(text: string, secrets: readonly string[]): string {
  let result = text;
  // NOTE: longest first, so a secret that contains another is removed whole.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) {
    if (secret.length > 0) {
      result = result.split(secret).join(REDACTED);
    }
  }
  return result;
}
