import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { JsonObject, isJsonObject, readInteger, readString } from '../parse-payload';
import {
  ProviderLookup,
  describeProviderError,
  fetchProviderJson,
  providerStatusError,
  quoteReference,
  requireCredential,
  resolveApiUrl,
  resolveTimeoutMs,
} from '../provider-http';
import { paypalEnvironmentMessage } from '../status-clients.messages';

const PROVIDER = 'PayPal';
const API_URLS = {
  live: 'https://api-m.paypal.com',
  sandbox: 'https://api-m.sandbox.paypal.com',
} as const;
const CREDENTIALS_PAGE = 'PayPal Developer Dashboard → Apps & Credentials → your app';

/** Options of `PayPalStatusClient`. */
export interface PayPalStatusClientOptions {
  /** The REST app's client ID, of the same account and environment as the webhook. Required. */
  clientId: string;
  /** The REST app's secret. Required. */
  clientSecret: string;
  /**
   * Which PayPal API to ask: `'live'` (`https://api-m.paypal.com`) or `'sandbox'`
   * (`https://api-m.sandbox.paypal.com`).
   * @default 'live'
   */
  environment?: 'live' | 'sandbox';
  /**
   * Base URL of the PayPal API, in place of the environment's; a local fake in tests.
   * @default the environment's
   * @advanced
   */
  apiUrl?: string;
  /**
   * Longest wait for each answer, in milliseconds; then the lookup fails with `timeout`.
   * @default 10000
   * @advanced
   */
  timeoutMs?: number;
}

/** A token is renewed this long before PayPal says it expires. */
const TOKEN_MARGIN_MS = 60_000;

/** An access token and when it stops being used. */
interface CachedToken {
  readonly value: string;
  readonly until: number;
}

/**
 * PayPal's REST API as the status client and the event log read it: the app's credentials
 * checked at startup, an OAuth2 access token (client credentials, `POST /v1/oauth2/token`) kept
 * until shortly before it expires, and GETs with it.
 */
export class PayPalApi {
  private readonly clientId: string;
  private readonly clientSecret: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;
  private token?: CachedToken;
  private pendingToken?: Promise<CachedToken>;

  /**
   * @param client names the client in startup errors, e.g. `'PayPalStatusClient'`.
   * @throws WebhookConfigurationError when a credential, `environment`, `apiUrl` or `timeoutMs`
   * cannot work.
   */
  constructor(client: string, options: PayPalStatusClientOptions) {
    this.clientId = requireCredential(client, 'clientId', options?.clientId, CREDENTIALS_PAGE);
    this.clientSecret = requireCredential(
      client,
      'clientSecret',
      options.clientSecret,
      CREDENTIALS_PAGE,
    );
    const environment: unknown = options.environment ?? 'live';
    if (environment !== 'live' && environment !== 'sandbox') {
      throw new WebhookConfigurationError(paypalEnvironmentMessage(environment));
    }
    this.apiUrl = resolveApiUrl(client, options.apiUrl, API_URLS[environment]);
    this.timeoutMs = resolveTimeoutMs(client, options.timeoutMs);
  }

  /** A lookup of `what` with the id `id`, as error messages name it. */
  lookup(what: string, id: string): ProviderLookup {
    return this.lookupOf(`${what} ${quoteReference(id)}`);
  }

  /** A lookup of `subject`, as error messages name it, `action` saying what it does. */
  lookupOf(subject: string, action?: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject,
      ...(action === undefined ? {} : { action }),
      secrets: [this.clientSecret, ...(this.token ? [this.token.value] : [])],
      timeoutMs: this.timeoutMs,
    };
  }

  /**
   * One GET of `pathAndQuery` with the access token; a token PayPal refuses is renewed once.
   * @throws ProviderStatusError as `fetchProviderJson()`.
   */
  async get(lookup: ProviderLookup, pathAndQuery: string): Promise<JsonObject> {
    for (let attempt = 1; ; attempt += 1) {
      const token = await this.accessToken(lookup.action);
      try {
        const { body } = await fetchProviderJson(
          { ...lookup, secrets: [...lookup.secrets, token.value] },
          {
            url: `${this.apiUrl}${pathAndQuery}`,
            method: 'GET',
            headers: { authorization: `Bearer ${token.value}`, accept: 'application/json' },
          },
          (error) => paypalErrorDetail(lookup, error),
        );
        return body;
      } catch (error) {
        const refused = error instanceof ProviderStatusError && error.httpStatus === 401;
        if (!refused || attempt > 1) throw error;
        if (this.token === token) this.token = undefined;
      }
    }
  }

  /** The cached access token, or a new one; concurrent lookups share one request. */
  private async accessToken(action: string | undefined): Promise<CachedToken> {
    if (this.token && Date.now() < this.token.until) {
      return this.token;
    }
    this.pendingToken ??= this.requestToken(action).finally(() => (this.pendingToken = undefined));
    return (this.token = await this.pendingToken);
  }

  private async requestToken(action: string | undefined): Promise<CachedToken> {
    const lookup = this.lookupOf(`an access token ${quoteReference(this.clientId)}`, action);
    const basic = Buffer.from(`${this.clientId}:${this.clientSecret}`).toString('base64');
    const { body } = await fetchProviderJson(
      { ...lookup, secrets: [...lookup.secrets, basic] },
      {
        url: `${this.apiUrl}/v1/oauth2/token`,
        method: 'POST',
        headers: {
          authorization: `Basic ${basic}`,
          accept: 'application/json',
          'content-type': 'application/x-www-form-urlencoded',
        },
        body: 'grant_type=client_credentials',
      },
      (error) => paypalErrorDetail(lookup, error),
    );
    const value = readString(body, 'access_token');
    const expiresIn = readInteger(body, 'expires_in');
    if (value === undefined || expiresIn === undefined || expiresIn <= 0) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer holds no access token');
    }
    const lifetimeMs = expiresIn * 1000;
    // NOTE: a token shorter-lived than twice the margin is kept for half its life instead.
    const keptMs = lifetimeMs > 2 * TOKEN_MARGIN_MS ? lifetimeMs - TOKEN_MARGIN_MS : lifetimeMs / 2;
    return { value, until: Date.now() + keptMs };
  }
}

/** PayPal's error name and message (`{ name, message }`, or OAuth's `{ error, error_description }`). */
function paypalErrorDetail(lookup: ProviderLookup, body: JsonObject): string | undefined {
  const details = body.details;
  const issue = Array.isArray(details) && isJsonObject(details[0]) ? details[0] : undefined;
  return describeProviderError(lookup, 'error', body.name ?? body.error, [
    body.message ?? body.error_description,
    readString(issue, 'issue'),
  ]);
}
