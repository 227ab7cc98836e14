import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { JsonObject, isJsonObject, readInteger, readString } from '../parse-payload';
import {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../payment-status-client.interface';
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
import {
  PayPalEventClaim,
  PayPalResource,
  differenceFromPayPal,
  eventClaimOf,
  resourceAmount,
  resourceOfEvent,
  resourcePath,
  statusType,
} from './paypal-status.mapping';

const CLIENT = 'PayPalStatusClient';
const PROVIDER = 'PayPal';
const API_URLS = {
  live: 'https://api-m.paypal.com',
  sandbox: 'https://api-m.sandbox.paypal.com',
} as const;
const CREDENTIALS_PAGE = 'PayPal Developer Dashboard → Apps & Credentials → your app';
// NOTE: PayPal ids are letters, digits and dashes (WH-…, 17-character capture ids); anything
// else could change the request path.
const PAYPAL_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;
/** A token is renewed this long before PayPal says it expires. */
const TOKEN_MARGIN_MS = 60_000;

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

/** An access token and when it stops being used. */
interface CachedToken {
  readonly value: string;
  readonly until: number;
}

/**
 * Asks PayPal whether a notification is what PayPal sent, and for the current status of what
 * it is about. With an OAuth2 access token (client credentials, `POST /v1/oauth2/token`, kept
 * until shortly before it expires):
 *
 * 1. `GET /v1/notifications/webhooks-events/{id}`: PayPal's own copy of the event must exist and
 *    carry the same event type, resource id, `custom_id`, `invoice_id` and amount as the
 *    notification. PayPal signs only a CRC-32 of the body, which another body can be made to
 *    match; this is what proves the body. Skipped when asked without a notification
 *    (reconciliation), where the capture `paymentRef` is looked up alone.
 * 2. The resource: `GET /v2/payments/captures/{id}` for capture events,
 *    `/v2/payments/refunds/{id}` for refunds and reversals, `/v2/checkout/orders/{id}` for
 *    checkout orders: its status and amount (see `statusType()` for the mapping).
 *
 * @example
 * new PayPalStatusClient({
 *   clientId: process.env.PAYPAL_CLIENT_ID!,
 *   clientSecret: process.env.PAYPAL_CLIENT_SECRET!,
 * })
 */
export class PayPalStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the PayPal webhook provider. */
  readonly kind = 'paypal';

  private readonly clientId: string;
  private readonly clientSecret: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;
  private token?: CachedToken;
  private pendingToken?: Promise<CachedToken>;

  /**
   * @throws WebhookConfigurationError when a credential, `environment`, `apiUrl` or `timeoutMs`
   * cannot work.
   */
  constructor(options: PayPalStatusClientOptions) {
    this.clientId = requireCredential(CLIENT, 'clientId', options?.clientId, CREDENTIALS_PAGE);
    this.clientSecret = requireCredential(
      CLIENT,
      'clientSecret',
      options.clientSecret,
      CREDENTIALS_PAGE,
    );
    const environment: unknown = options.environment ?? 'live';
    if (environment !== 'live' && environment !== 'sandbox') {
      throw new WebhookConfigurationError(paypalEnvironmentMessage(environment));
    }
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, API_URLS[environment]);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Checks the notification against PayPal's copy of the event, then looks its resource up.
   * @throws ProviderStatusError `not_found` when PayPal does not know the event or the
   * resource; `invalid_response` when PayPal's copy differs from the notification (its handlers
   * must not run) or an answer is not what was asked; `missing_reference` when neither the
   * notification nor `paymentRef` names a capture, refund or order; `unauthorized`,
   * `unavailable` and `timeout` as every status client.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const claim = eventClaimOf(query.payload);
    const resource = claim ? resourceOfEvent(claim) : captureOf(query.paymentRef);
    if (resource === undefined || !PAYPAL_ID.test(resource.id)) {
      throw providerStatusError(
        this.lookup('the event', claim?.id ?? query.paymentRef ?? ''),
        'missing_reference',
        'the event names no capture, refund or checkout order',
        { hint: 'only capture, refund, reversal and checkout order events can be checked' },
      );
    }
    if (claim) {
      await this.confirmEvent(claim);
    }
    const body = await this.get(this.lookup(resource.kind, resource.id), resourcePath(resource));
    const status = readString(body, 'status');
    if (status === undefined || readString(body, 'id') !== resource.id) {
      throw providerStatusError(
        this.lookup(resource.kind, resource.id),
        'invalid_response',
        `the answer is not the ${resource.kind} asked for`,
      );
    }
    return {
      paymentRef: resource.id,
      status,
      type: statusType(resource.kind, status),
      ...resourceAmount(body),
      checkedAt: new Date(),
    };
  }

  /** PayPal's copy of the event must exist and say what the notification says. */
  private async confirmEvent(claim: PayPalEventClaim): Promise<void> {
    const lookup = this.lookup('webhook event', claim.id);
    if (!PAYPAL_ID.test(claim.id)) {
      throw providerStatusError(lookup, 'missing_reference', 'the event id is not a PayPal id');
    }
    const path = `/v1/notifications/webhooks-events/${encodeURIComponent(claim.id)}`;
    const paypal = await this.get(lookup, path);
    if (readString(paypal, 'id') !== claim.id) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is about another event');
    }
    const differing = differenceFromPayPal(claim, paypal);
    if (differing !== undefined) {
      throw providerStatusError(
        lookup,
        'invalid_response',
        `the notification differs from PayPal's copy of the event in ${differing}`,
        {
          hint:
            'PayPal did not send this body (its signature covers only a CRC-32 of it); ' +
            'the event is not acted on',
        },
      );
    }
  }

  /** One GET with the access token; a token PayPal refuses is renewed once. */
  private async get(lookup: ProviderLookup, path: string): Promise<JsonObject> {
    for (let attempt = 1; ; attempt += 1) {
      const token = await this.accessToken();
      try {
        const { body } = await fetchProviderJson(
          { ...lookup, secrets: [...lookup.secrets, token.value] },
          {
            url: `${this.apiUrl}${path}`,
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
  private async accessToken(): Promise<CachedToken> {
    if (this.token && Date.now() < this.token.until) {
      return this.token;
    }
    this.pendingToken ??= this.requestToken().finally(() => (this.pendingToken = undefined));
    return (this.token = await this.pendingToken);
  }

  private async requestToken(): Promise<CachedToken> {
    const lookup = this.lookup('an access token', this.clientId);
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

  private lookup(what: string, id: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject: `${what} ${quoteReference(id)}`,
      secrets: [this.clientSecret, ...(this.token ? [this.token.value] : [])],
      timeoutMs: this.timeoutMs,
    };
  }
}

/** A capture id to look up alone (reconciliation asks with the stored `paymentRef`). */
function captureOf(paymentRef: string | null): PayPalResource | undefined {
  return paymentRef === null || paymentRef === '' ? undefined : { kind: 'capture', id: paymentRef };
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
