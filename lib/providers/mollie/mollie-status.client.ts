import { WebhookConfigurationError } from '../../core/webhook-errors';
import { JsonObject, readObject, readString } from '../parse-payload';
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
import { paymentState } from './mollie-payment';

const CLIENT = 'MollieStatusClient';
const PROVIDER = 'Mollie';
/** The Mollie API v2 base URL. */
export const MOLLIE_API_URL = 'https://api.mollie.com/v2';
const KEYS_PAGE = 'the Mollie Dashboard → Developers → API keys';
// NOTE: a payment id is `tr_` and letters or digits; anything else could change the request path.
const PAYMENT_ID = /^tr_[A-Za-z0-9]{1,100}$/;
const API_KEY = /^(live|test|access)_[A-Za-z0-9_]+$/;

/** Options of `MollieStatusClient`. */
export interface MollieStatusClientOptions {
  /**
   * A Mollie API key (`live_…` or `test_…`, Dashboard → Developers → API keys) of the profile the
   * payments belong to, in the same mode as the webhooks, or an organization access token
   * (`access_…`). Sent as `Authorization: Bearer <apiKey>`. Required.
   */
  apiKey: string;
  /**
   * Base URL of the Mollie API, version included; point it at a local fake in tests.
   * @default 'https://api.mollie.com/v2'
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

/** A Mollie payment as the API returns it, with its refunds, chargebacks and captures embedded. */
export type MolliePayment = JsonObject & { readonly id: string; readonly status: string };

/**
 * Asks Mollie for a payment (`GET {apiUrl}/payments/{id}?embed=refunds,chargebacks,captures`)
 * with the API key as a Bearer token.
 *
 * | Mollie state | type |
 * | --- | --- |
 * | `paid` | `payment.succeeded` |
 * | `authorized` | `payment.authorized` |
 * | `failed` | `payment.failed` |
 * | `canceled`, `expired` | `payment.canceled` |
 * | `open`, `pending` | undefined |
 * | latest refund `refunded` | `refund.succeeded` |
 * | latest refund `failed` or `canceled` | `refund.failed` |
 * | latest refund `queued`, `pending`, `processing` | undefined |
 * | a chargeback (`reversedAt` set) | `dispute.opened` (`dispute.closed`) |
 *
 * The amount (`amount.value`, a decimal string; a refund's or chargeback's own amount for those)
 * is converted to minor units by the currency's exponent.
 *
 * @example
 * new MollieStatusClient({ apiKey: process.env.MOLLIE_API_KEY! })
 */
export class MollieStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the Mollie webhook provider. */
  readonly kind = 'mollie';

  private readonly apiKey: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when the key, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: MollieStatusClientOptions) {
    this.apiKey = requireCredential(CLIENT, 'apiKey', options?.apiKey, KEYS_PAGE);
    if (!API_KEY.test(this.apiKey)) {
      throw new WebhookConfigurationError(
        `${CLIENT}: apiKey must be a Mollie API key (live_… or test_…) or an organization ` +
          `access token (access_…); the value given is neither. Copy it from ${KEYS_PAGE}, for ` +
          'the same mode (test or live) as the webhooks.',
      );
    }
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, MOLLIE_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Looks up the payment `query.paymentRef` (`tr_…`).
   * @throws ProviderStatusError `missing_reference` without a payment id; `unauthorized` on
   * 401/403; `not_found` on 404; `unavailable` on a network error, 408, 429 or 5xx; `timeout`
   * after `timeoutMs`; `invalid_response` when the answer is not the payment asked for.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const payment = await this.fetchPayment(query.paymentRef ?? '');
    const state = paymentState(payment);
    return {
      paymentRef: payment.id,
      status: state.status,
      type: state.type,
      amount: state.amount,
      currency: state.currency,
      checkedAt: new Date(),
    };
  }

  /**
   * The payment as Mollie's API returns it now, its refunds, chargebacks and captures embedded.
   * @throws ProviderStatusError as {@link fetchStatus}.
   */
  async fetchPayment(id: string): Promise<MolliePayment> {
    const lookup = this.lookup(id);
    if (!PAYMENT_ID.test(id)) {
      throw providerStatusError(
        lookup,
        'missing_reference',
        id === '' ? 'the event carries no payment id' : 'the reference is not a payment id (tr_…)',
        { hint: 'only events about a Mollie payment can be checked' },
      );
    }
    const { status: httpStatus, body } = await fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}/payments/${encodeURIComponent(id)}?embed=refunds,chargebacks,captures`,
        method: 'GET',
        headers: { authorization: `Bearer ${this.apiKey}`, accept: 'application/hal+json' },
      },
      (error) => describeProviderError(lookup, 'status', error.status, [error.title, error.detail]),
    );
    if (readString(body, 'status') === undefined || body.resource !== 'payment') {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is not a payment', {
        httpStatus,
      });
    }
    if (readString(body, 'id') !== id) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is about another payment', {
        httpStatus,
      });
    }
    if (readObject(body, 'amount') === undefined) {
      throw providerStatusError(lookup, 'invalid_response', 'the payment has no amount', {
        httpStatus,
      });
    }
    return body as MolliePayment;
  }

  private lookup(id: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject: `payment ${quoteReference(id)}`,
      secrets: [this.apiKey, `Bearer ${this.apiKey}`],
      timeoutMs: this.timeoutMs,
    };
  }
}
