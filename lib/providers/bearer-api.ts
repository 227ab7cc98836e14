import {
  ProviderErrorDetail,
  ProviderJsonAnswer,
  ProviderLookup,
  fetchProviderJson,
  requireCredential,
  resolveApiUrl,
  resolveTimeoutMs,
} from './provider-http';

/** How a client of a provider's API takes its Bearer credential and base URL. */
export interface BearerApiSettings {
  /** The client's name in configuration errors, e.g. `'PaddleEventLog'`. */
  readonly client: string;
  /** The provider's name as users know it, for error messages. */
  readonly provider: string;
  /** The option the credential is given in, e.g. `'apiKey'`, `'accessToken'`. */
  readonly credential: string;
  /** Where in the provider's dashboard the credential is copied from. */
  readonly howToCopy: string;
  /** The base URL when the options give none, for the credential given (sandbox or live). */
  readonly apiUrl: (credential: string) => string;
}

/** The API options a Bearer client reads besides its credential. */
export interface BearerApiOptions {
  readonly apiUrl?: string;
  readonly timeoutMs?: number;
}

/**
 * A provider's API reached with a Bearer credential: the credential, base URL and timeout
 * checked at startup, and one request at a time through `fetchProviderJson` (no retries, no
 * redirects, the credential kept out of every error).
 */
export class BearerApi {
  readonly credential: string;
  readonly apiUrl: string;
  readonly timeoutMs: number;

  /** @throws WebhookConfigurationError when the credential, `apiUrl` or `timeoutMs` cannot work. */
  constructor(
    private readonly settings: BearerApiSettings,
    options: BearerApiOptions & Readonly<Record<string, unknown>>,
  ) {
    this.credential = requireCredential(
      settings.client,
      settings.credential,
      options?.[settings.credential],
      settings.howToCopy,
    );
    this.apiUrl = resolveApiUrl(settings.client, options.apiUrl, settings.apiUrl(this.credential));
    this.timeoutMs = resolveTimeoutMs(settings.client, options.timeoutMs);
  }

  /** A read of the event log, as its errors describe it. */
  eventLogRead(subject: string): ProviderLookup {
    return {
      provider: this.settings.provider,
      action: 'event log read',
      subject,
      secrets: [this.credential, `Bearer ${this.credential}`],
      timeoutMs: this.timeoutMs,
    };
  }

  /** Sends one request to `path` of the API with the credential; its 2xx JSON answer. */
  send(
    lookup: ProviderLookup,
    path: string,
    request: { method?: 'GET' | 'POST'; headers?: Record<string, string>; body?: unknown } = {},
    errorDetail?: ProviderErrorDetail,
  ): Promise<ProviderJsonAnswer> {
    return fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}${path}`,
        method: request.method ?? 'GET',
        headers: {
          authorization: `Bearer ${this.credential}`,
          accept: 'application/json',
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
          ...request.headers,
        },
        ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
      },
      errorDetail,
    );
  }
}
