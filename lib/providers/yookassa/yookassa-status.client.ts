import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { JsonObject, isJsonObject, readObject, readString, toCurrency } from '../parse-payload';
import {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../payment-status-client.interface';
import {
  ProviderLookup,
  fetchProviderJson,
  providerStatusError,
  quoteReference,
  requireCredential,
  resolveApiUrl,
  resolveTimeoutMs,
} from '../provider-http';

const CLIENT = 'YooKassaStatusClient';
const PROVIDER = 'YooKassa';
const DEFAULT_API_URL = 'https://api.yookassa.ru/v3';
const KEYS_PAGE = 'the YooKassa merchant profile → Integration → API keys';
// NOTE: YooKassa ids are UUID-like; anything else could change the request path.
const OBJECT_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,99}$/;

/** Options of `YooKassaStatusClient`. */
export interface YooKassaStatusClientOptions {
  /** The shop's id (`shopId`), the user name of HTTP Basic authentication. Required. */
  shopId: string;
  /** A secret key of the shop (`live_…` or `test_…`), the Basic password. Required. */
  secretKey: string;
  /**
   * Base URL of the YooKassa API, version included; point it at a local fake in tests.
   * @default 'https://api.yookassa.ru/v3'
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

/**
 * Asks YooKassa for the status of a payment (`GET {apiUrl}/payments/{id}`), or of a refund
 * (`GET {apiUrl}/refunds/{id}`, the id from the notification's `object.id`) for refund events,
 * with HTTP Basic authentication `shopId:secretKey`. YooKassa notifications carry no signature,
 * so this answer is what handlers should act on.
 *
 * | YooKassa status | type |
 * | --- | --- |
 * | payment `succeeded` | `payment.succeeded` |
 * | payment `waiting_for_capture` | `payment.authorized` |
 * | payment `canceled` | `payment.canceled` |
 * | refund `succeeded` | `refund.succeeded` |
 * | refund `canceled` | `refund.failed` |
 * | `pending` | undefined |
 *
 * The amount (`amount.value`, a decimal string) is converted to minor units exactly.
 *
 * @example
 * new YooKassaStatusClient({ shopId: process.env.YOOKASSA_SHOP_ID!, secretKey: process.env.YOOKASSA_SECRET_KEY! })
 */
export class YooKassaStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the YooKassa webhook provider. */
  readonly kind = 'yookassa';

  private readonly authorization: string;
  private readonly secretKey: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when a credential, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: YooKassaStatusClientOptions) {
    const shopId = requireCredential(CLIENT, 'shopId', options?.shopId, KEYS_PAGE);
    this.secretKey = requireCredential(CLIENT, 'secretKey', options.secretKey, KEYS_PAGE);
    this.authorization = `Basic ${Buffer.from(`${shopId}:${this.secretKey}`, 'utf8').toString('base64')}`;
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, DEFAULT_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Looks up the refund in the notification's `object.id` for refund events, otherwise the
   * payment `query.paymentRef`.
   * @throws ProviderStatusError `missing_reference` without a usable payment (or refund) id;
   * `unauthorized` on 401/403; `not_found` on 404; `unavailable` on a network error, 408, 429 or
   * 5xx; `timeout` after `timeoutMs`; `invalid_response` when the answer is not the object asked
   * for (or its amount is not a decimal amount), not JSON, a redirect or another status.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    if (isRefundQuery(query)) {
      const refundId = readString(readObject(asObject(query.payload), 'object'), 'id');
      const refund = await this.retrieve('refunds', 'refund', refundId);
      return this.toStatus(refund, mapRefundStatus(refund.status as string));
    }
    const payment = await this.retrieve('payments', 'payment', query.paymentRef ?? undefined);
    return this.toStatus(payment, mapPaymentStatus(payment.status as string));
  }

  private async retrieve(
    path: 'payments' | 'refunds',
    what: 'payment' | 'refund',
    id: string | undefined,
  ): Promise<JsonObject & { id: string }> {
    const lookup = this.lookup(what, id ?? '');
    if (id === undefined || id === '' || !OBJECT_ID.test(id)) {
      throw providerStatusError(
        lookup,
        'missing_reference',
        id === undefined || id === ''
          ? `the event carries no ${what} id`
          : `the ${what} id is not a YooKassa id`,
        {
          hint:
            what === 'refund'
              ? 'a refund notification names its refund in object.id'
              : 'a payment notification names its payment in object.id',
        },
      );
    }
    const { status: httpStatus, body } = await fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}/${path}/${encodeURIComponent(id)}`,
        method: 'GET',
        headers: { authorization: this.authorization, accept: 'application/json' },
      },
      (error) => readString(error, 'code'),
    );
    if (readString(body, 'status') === undefined) {
      throw providerStatusError(lookup, 'invalid_response', `the answer is not a ${what}`, {
        httpStatus,
      });
    }
    if (readString(body, 'id') !== id) {
      throw providerStatusError(lookup, 'invalid_response', `the answer is about another ${what}`, {
        httpStatus,
      });
    }
    const amount = readObject(body, 'amount');
    if (amount !== undefined && readAmount(amount) === undefined) {
      throw providerStatusError(lookup, 'invalid_response', 'the amount is not a decimal amount', {
        httpStatus,
      });
    }
    return body as JsonObject & { id: string };
  }

  private toStatus(
    object: JsonObject & { id: string },
    type: PaymentEventType | undefined,
  ): ProviderPaymentStatus {
    const amount = readObject(object, 'amount');
    return {
      paymentRef: object.id,
      status: object.status as string,
      type,
      ...(amount === undefined ? {} : readAmount(amount)),
      checkedAt: new Date(),
    };
  }

  private lookup(what: string, id: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject: `${what} ${quoteReference(id)}`,
      secrets: [this.authorization, this.authorization.slice('Basic '.length), this.secretKey],
      timeoutMs: this.timeoutMs,
    };
  }
}

function isRefundQuery(query: PaymentStatusQuery): boolean {
  return query.type.startsWith('refund.') || query.nativeType.startsWith('refund.');
}

function asObject(value: unknown): JsonObject | undefined {
  return isJsonObject(value) ? value : undefined;
}

/** `{ value: "10.50", currency: "RUB" }` as minor units and an upper-case code. */
function readAmount(amount: JsonObject): { amount: number; currency: string } | undefined {
  const currency = toCurrency(amount.currency);
  const value = readString(amount, 'value');
  if (currency === undefined || value === undefined) {
    return undefined;
  }
  const minor = toMinorUnits(value, currency);
  return minor === undefined ? undefined : { amount: minor, currency };
}

function mapPaymentStatus(status: string): PaymentEventType | undefined {
  if (status === 'succeeded') return 'payment.succeeded';
  if (status === 'waiting_for_capture') return 'payment.authorized';
  if (status === 'canceled') return 'payment.canceled';
  return undefined;
}

function mapRefundStatus(status: string): PaymentEventType | undefined {
  if (status === 'succeeded') return 'refund.succeeded';
  if (status === 'canceled') return 'refund.failed';
  return undefined;
}
