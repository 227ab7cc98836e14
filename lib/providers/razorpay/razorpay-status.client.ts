import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import {
  JsonObject,
  isJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import {
  PaymentStatusClient,
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../payment-status-client.interface';
import {
  ProviderJsonAnswer,
  ProviderLookup,
  describeProviderError,
  fetchProviderJson,
  providerStatusError,
  quoteReference,
  requireCredential,
  resolveApiUrl,
  resolveTimeoutMs,
} from '../provider-http';
import { RAZORPAY_KEYS_PAGE, razorpayKeyIdMessage } from './razorpay.messages';

const CLIENT = 'RazorpayStatusClient';
const PROVIDER = 'Razorpay';
const DEFAULT_API_URL = 'https://api.razorpay.com';
const KEY_ID = /^rzp_(live|test)_[A-Za-z0-9]+$/;
const PAYMENT_ID = /^pay_[A-Za-z0-9]{1,64}$/;
const REFUND_ID = /^rfnd_[A-Za-z0-9]{1,64}$/;
const UNKNOWN_ID = 'The id provided does not exist';

const PAYMENT_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  authorized: 'payment.authorized',
  captured: 'payment.succeeded',
  refunded: 'refund.succeeded',
  failed: 'payment.failed',
};

const REFUND_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  processed: 'refund.succeeded',
  failed: 'refund.failed',
};

/** Options of `RazorpayStatusClient`. */
export interface RazorpayStatusClientOptions {
  /**
   * The API Key Id (`rzp_live_…` or `rzp_test_…`, Razorpay Dashboard → Account & Settings → API
   * Keys), of the same mode as the webhooks. Required.
   */
  keyId: string;
  /** The API Key Secret shown once with the Key Id when it was generated. Required. */
  keySecret: string;
  /**
   * Base URL of the Razorpay API; point it at a local fake in tests.
   * @default 'https://api.razorpay.com'
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
 * Asks Razorpay for the status of a payment (`GET /v1/payments/{id}`), or of a refund
 * (`GET /v1/refunds/{id}`) when the event is about one, with the key pair as HTTP Basic
 * credentials.
 *
 * | Razorpay status | type |
 * | --- | --- |
 * | payment `authorized` | `payment.authorized` |
 * | payment `captured` | `payment.succeeded` |
 * | payment `refunded` (in full) | `refund.succeeded` |
 * | payment `failed` | `payment.failed` |
 * | refund `processed` | `refund.succeeded` |
 * | refund `failed` | `refund.failed` |
 * | anything else (payment `created`, refund `pending`) | undefined |
 *
 * @example
 * new RazorpayStatusClient({
 *   keyId: process.env.RAZORPAY_KEY_ID!,
 *   keySecret: process.env.RAZORPAY_KEY_SECRET!,
 * })
 */
export class RazorpayStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the Razorpay webhook provider. */
  readonly kind = 'razorpay';

  private readonly authorization: string;
  private readonly secrets: readonly string[];
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when a key, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: RazorpayStatusClientOptions) {
    const keyId = requireCredential(CLIENT, 'keyId', options?.keyId, RAZORPAY_KEYS_PAGE);
    if (!KEY_ID.test(keyId)) {
      throw new WebhookConfigurationError(razorpayKeyIdMessage());
    }
    const keySecret = requireCredential(CLIENT, 'keySecret', options.keySecret, RAZORPAY_KEYS_PAGE);
    const basic = Buffer.from(`${keyId}:${keySecret}`, 'utf8').toString('base64');
    this.authorization = `Basic ${basic}`;
    this.secrets = [keySecret, basic, this.authorization];
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, DEFAULT_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Looks up the refund an event is about (`payload.refund.entity.id`, `rfnd_…`), otherwise the
   * payment `query.paymentRef`.
   * @throws ProviderStatusError `missing_reference` without a `pay_…` reference (or a refund
   * id); `unauthorized` on 401/403; `not_found` on 404; `unavailable` on a network error, 408,
   * 429 or 5xx; `timeout` after `timeoutMs`; `invalid_response` when the answer is not the
   * entity asked for, not JSON, a redirect or another status.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const refundId = refundIdOf(query);
    if (refundId !== undefined) {
      const refund = await this.retrieve('refunds', 'refund', refundId);
      return toStatus(refund, refundId, ownValue(REFUND_STATUSES, refund.status as string));
    }
    const paymentId = this.requirePaymentId(query.paymentRef);
    const payment = await this.retrieve('payments', 'payment', paymentId);
    return toStatus(payment, paymentId, ownValue(PAYMENT_STATUSES, payment.status as string));
  }

  private requirePaymentId(paymentRef: string | null): string {
    if (paymentRef !== null && PAYMENT_ID.test(paymentRef)) {
      return paymentRef;
    }
    throw providerStatusError(
      this.lookup('payment', paymentRef ?? ''),
      'missing_reference',
      paymentRef === null || paymentRef === ''
        ? 'the event carries no payment reference'
        : 'the payment reference is not a payment id (pay_…)',
      { hint: 'only events about a payment, an order paid, a refund or a dispute can be checked' },
    );
  }

  private async retrieve(path: string, entity: string, id: string): Promise<JsonObject> {
    const lookup = this.lookup(entity, id);
    const { status: httpStatus, body } = await this.get(
      lookup,
      `/v1/${path}/${encodeURIComponent(id)}`,
    );
    const status = readString(body, 'status');
    if (status === undefined || (body.entity !== undefined && body.entity !== entity)) {
      throw providerStatusError(lookup, 'invalid_response', `the answer is not a ${entity}`, {
        httpStatus,
      });
    }
    const answeredId = readString(body, 'id');
    if (answeredId !== undefined && answeredId !== id) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is about another object', {
        httpStatus,
      });
    }
    return body;
  }

  /**
   * The 2xx answer to a GET. Razorpay answers an id it does not know with 400 and
   * "The id provided does not exist", which is `not_found` here as a 404 is elsewhere.
   */
  private async get(lookup: ProviderLookup, path: string): Promise<ProviderJsonAnswer> {
    let unknownId = false;
    try {
      return await fetchProviderJson(
        lookup,
        {
          url: `${this.apiUrl}${path}`,
          method: 'GET',
          headers: { authorization: this.authorization, accept: 'application/json' },
        },
        (answer) => {
          const error = readObject(answer, 'error');
          unknownId = error?.description === UNKNOWN_ID;
          return describeProviderError(lookup, 'code', error?.code, [error?.description]);
        },
      );
    } catch (error) {
      if (unknownId && error instanceof ProviderStatusError && error.httpStatus === 400) {
        throw providerStatusError(lookup, 'not_found', 'the provider does not know it', {
          httpStatus: 400,
          detail: UNKNOWN_ID,
          hint: 'it may belong to another account or mode (test or live)',
        });
      }
      throw error;
    }
  }

  private lookup(what: string, id: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject: `${what} ${quoteReference(id)}`,
      secrets: this.secrets,
      timeoutMs: this.timeoutMs,
    };
  }
}

/** The refund id of a refund event (`payload.refund.entity.id`, `rfnd_…`), else undefined. */
function refundIdOf(query: PaymentStatusQuery): string | undefined {
  const isRefundEvent = query.type.startsWith('refund.') || query.nativeType.startsWith('refund.');
  if (!isRefundEvent || !isJsonObject(query.payload)) {
    return undefined;
  }
  const payload = readObject(query.payload, 'payload');
  const id = readString(readObject(readObject(payload, 'refund'), 'entity'), 'id');
  return id !== undefined && REFUND_ID.test(id) ? id : undefined;
}

function toStatus(
  entity: JsonObject,
  id: string,
  type: PaymentEventType | undefined,
): ProviderPaymentStatus {
  return {
    paymentRef: id,
    status: entity.status as string,
    type,
    amount: readInteger(entity, 'amount'),
    currency: toCurrency(entity.currency),
    checkedAt: new Date(),
  };
}
