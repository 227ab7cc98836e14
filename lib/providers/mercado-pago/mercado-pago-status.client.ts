import { WebhookConfigurationError } from '../../core/webhook-errors';
import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { JsonObject, readString, toCurrency, toIdentifier } from '../parse-payload';
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
import {
  MercadoPagoPayment,
  decimalToMinorUnits,
  mercadoPagoPaymentState,
} from './mercado-pago-payment';

const CLIENT = 'MercadoPagoStatusClient';
const PROVIDER = 'Mercado Pago';
const DEFAULT_API_URL = 'https://api.mercadopago.com';
const CREDENTIALS_PAGE =
  'Mercado Pago Developers → Your integrations → your application → Production credentials (or Test credentials) → Access Token';
// NOTE: payment ids are numbers and order ids `ORD…`; anything else could change the request path.
const RESOURCE_ID = /^[A-Za-z0-9_-]{1,64}$/;

/** Options of `MercadoPagoStatusClient`. */
export interface MercadoPagoStatusClientOptions {
  /**
   * The application's Access Token (`APP_USR-…`, or `TEST-…` for test credentials) of the same
   * seller and mode as the notifications, sent as `Authorization: Bearer …`. Required.
   */
  accessToken: string;
  /**
   * Base URL of the Mercado Pago API; point it at a local fake in tests.
   * @default 'https://api.mercadopago.com'
   * @advanced
   */
  apiUrl?: string;
  /**
   * Longest wait for the whole answer, in milliseconds; then the lookup fails with `timeout`.
   * @default 10000
   * @advanced
   */
  timeoutMs?: number;
}

const ORDER_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  processed: 'payment.succeeded',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  expired: 'payment.canceled',
  refunded: 'refund.succeeded',
  charged_back: 'dispute.opened',
};

/** The two resources a lookup reads. */
type Resource = 'payment' | 'order';

/**
 * Asks Mercado Pago for the state of a payment (`GET /v1/payments/{id}`) or, for an Orders API
 * notification, of the order (`GET /v1/orders/{id}`), with the Access Token as a Bearer token.
 * Mercado Pago signs only the notified id, so this answer is what handlers should act on.
 *
 * | Mercado Pago status | type |
 * | --- | --- |
 * | payment `approved`, order `processed` | `payment.succeeded` |
 * | payment `authorized` | `payment.authorized` |
 * | payment `rejected`, order `failed` | `payment.failed` |
 * | payment `cancelled`, order `canceled` or `expired` | `payment.canceled` |
 * | `refunded` | `refund.succeeded` |
 * | `charged_back`, payment `in_mediation` | `dispute.opened` |
 * | `pending`, `in_process`, order `created`, `processing`, `action_required`, … | undefined |
 * | a payment's latest refund `approved` (`rejected`, `cancelled`) | `refund.succeeded` (`refund.failed`) |
 *
 * A payment with refunds is reported by its latest refund (a partial refund leaves it
 * `approved`), with the refund's amount, unless it is `charged_back` or `in_mediation`.
 * Amounts (`transaction_amount`, a refund's `amount`, an order's `total_paid_amount` or
 * `total_amount`, decimals) become minor units by the currency's ISO 4217 exponent: CLP has none.
 *
 * @example
 * new MercadoPagoStatusClient({ accessToken: process.env.MERCADO_PAGO_ACCESS_TOKEN! })
 */
export class MercadoPagoStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the Mercado Pago webhook provider. */
  readonly kind = 'mercado-pago';

  private readonly accessToken: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when the token, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: MercadoPagoStatusClientOptions) {
    this.accessToken = requireCredential(
      CLIENT,
      'accessToken',
      options?.accessToken,
      CREDENTIALS_PAGE,
    );
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, DEFAULT_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Looks up the order `query.paymentRef` for an Orders API notification (`type: 'order'`),
   * otherwise the payment `query.paymentRef`.
   * @throws ProviderStatusError `missing_reference` without a usable id; `unauthorized` on
   * 401/403; `not_found` on 404; `unavailable` on a network error, 408, 429 or 5xx; `timeout`
   * after `timeoutMs`; `invalid_response` when the answer is not the resource asked for (or its
   * amount is not a decimal amount of its currency), not JSON, a redirect or another status.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const resource = resourceOf(query);
    const id = query.paymentRef ?? '';
    const { lookup, httpStatus, body } = await this.read(resource, id);
    const money = amountOf(resource, body);
    if (money === undefined) {
      throw providerStatusError(lookup, 'invalid_response', 'the amount is not a decimal amount', {
        httpStatus,
      });
    }
    const status = body.status;
    if (resource === 'order') {
      return {
        paymentRef: id,
        status,
        type: ownValue(ORDER_STATUSES, status),
        ...money,
        checkedAt: new Date(),
      };
    }
    const state = mercadoPagoPaymentState(body);
    return {
      paymentRef: id,
      status,
      type: state.type,
      amount: state.amount,
      currency: state.currency,
      checkedAt: new Date(),
    };
  }

  /**
   * The payment as Mercado Pago's API returns it now (`GET /v1/payments/{id}`), its refunds
   * included; its amounts are not checked here.
   * @throws ProviderStatusError as {@link fetchStatus}.
   */
  async fetchPayment(id: string): Promise<MercadoPagoPayment> {
    return (await this.read('payment', id)).body;
  }

  /** Reads the resource, checked to be the one asked for: its `id` and a `status`. */
  private async read(
    resource: Resource,
    id: string,
  ): Promise<{ lookup: ProviderLookup; httpStatus: number; body: MercadoPagoPayment }> {
    const lookup = this.lookup(resource, id);
    if (!RESOURCE_ID.test(id)) {
      throw providerStatusError(
        lookup,
        'missing_reference',
        id === ''
          ? `the event carries no ${resource} id`
          : `the ${resource} id is not a Mercado Pago id`,
        { hint: `a ${resource} notification names its ${resource} in data.id` },
      );
    }
    const { status: httpStatus, body } = await fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}/v1/${resource}s/${encodeURIComponent(id)}`,
        method: 'GET',
        headers: { authorization: `Bearer ${this.accessToken}`, accept: 'application/json' },
      },
      (error) => describeProviderError(lookup, 'error', error.error, [error.message]),
    );
    const status = readString(body, 'status');
    if (status === undefined || toIdentifier(body.id) !== id) {
      throw providerStatusError(
        lookup,
        'invalid_response',
        status === undefined
          ? `the answer is not a ${resource}`
          : `the answer is about another ${resource}`,
        { httpStatus },
      );
    }
    return { lookup, httpStatus, body: body as MercadoPagoPayment };
  }

  private lookup(resource: Resource, id: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject: `${resource} ${quoteReference(id)}`,
      secrets: [this.accessToken, `Bearer ${this.accessToken}`],
      timeoutMs: this.timeoutMs,
    };
  }
}

/** Orders API notifications name an order; every other lookup is of a payment. */
function resourceOf(query: PaymentStatusQuery): Resource {
  const payload = query.payload as { type?: unknown } | null | undefined;
  return typeof payload === 'object' && payload?.type === 'order' ? 'order' : 'payment';
}

/**
 * The amount in minor units and the currency; no amount when the answer has none or no currency,
 * undefined when it has one that is not a decimal amount of its currency.
 */
function amountOf(
  resource: Resource,
  body: JsonObject,
): { amount?: number; currency?: string } | undefined {
  const currency = toCurrency(body.currency_id ?? body.currency);
  const raw =
    resource === 'payment'
      ? body.transaction_amount
      : (body.total_paid_amount ?? body.total_amount);
  // NOTE: an amount without its currency cannot be put in minor units; it is left out.
  if (raw === undefined || raw === null || currency === undefined) {
    return { currency };
  }
  const amount = decimalToMinorUnits(raw, currency);
  return amount === undefined ? undefined : { amount, currency };
}

/** Mercado Pago waits 22 s for the answer; a payment notification waits for the API before it. */
const LONGEST_API_WAIT_MS = 18_000;

/** What an endpoint's options say of its API access. */
interface ApiAccessOptions {
  readonly api?: MercadoPagoStatusClientOptions;
  readonly verifyWithProvider?: boolean;
}

// NOTE: the provider confirms payments with the status client the endpoint hands out, so both
// take the one made for the options object.
const statusClients = new WeakMap<object, MercadoPagoStatusClient>();

/**
 * The status client of an endpoint's `api`, one per options object; none without `api`.
 * @throws WebhookConfigurationError at startup when `api` is needed (`verifyWithProvider` on,
 * the default) and missing, or its timeout is longer than a payment notification can wait.
 */
export function mercadoPagoStatusClientOf(
  options: ApiAccessOptions | undefined,
  endpointName: string,
): MercadoPagoStatusClient | undefined {
  const label = `Webhook endpoint ${JSON.stringify(endpointName)} (mercado-pago)`;
  if (options?.api === undefined) {
    if (options?.verifyWithProvider !== false) {
      throw new WebhookConfigurationError(
        `${label} reads each notified payment from the Mercado Pago API ` +
          '(verifyWithProvider, on by default, because Mercado Pago signs only its id) but has no ' +
          'API access: set api: { accessToken } (Your integrations → your application → ' +
          'credentials → Access Token), or set verifyWithProvider: false to act on the notification alone.',
      );
    }
    return undefined;
  }
  const timeoutMs = options.api.timeoutMs;
  if (typeof timeoutMs === 'number' && timeoutMs > LONGEST_API_WAIT_MS) {
    throw new WebhookConfigurationError(
      `${label}: api.timeoutMs ${timeoutMs} is longer than a payment notification ` +
        'can wait for the Mercado Pago API (Mercado Pago waits 22 s for the answer); use at most ' +
        `${LONGEST_API_WAIT_MS}, or leave it out for 10000.`,
    );
  }
  let client = statusClients.get(options);
  if (client === undefined) {
    client = new MercadoPagoStatusClient(options.api);
    statusClients.set(options, client);
  }
  return client;
}
