import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError } from '../../core/webhook-errors';
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
  fetchProviderJson,
  providerStatusError,
  quoteReference,
  requireCredential,
  resolveApiUrl,
  resolveTimeoutMs,
} from '../provider-http';
import { stripeApiKeyMessage } from '../status-clients.messages';
import { isEventNotification, relatedObjectOf } from './stripe-event-notification';

const CLIENT = 'StripeStatusClient';
const PROVIDER = 'Stripe';
const DEFAULT_API_URL = 'https://api.stripe.com';
const KEYS_PAGE = 'Stripe Dashboard → Developers → API keys';
const PAYMENT_INTENT_ID = /^pi_[A-Za-z0-9_]{1,250}$/;
const REFUND_ID = /^re_[A-Za-z0-9_]{1,250}$/;
// NOTE: a related object's url is a path of Stripe's API; anything else (another host, `..`)
// would send the API key somewhere else.
const API_PATH = /^\/v[12]\/[A-Za-z0-9_.\-/]{1,500}$/;

/** Options of `StripeStatusClient`. */
export interface StripeStatusClientOptions {
  /**
   * A secret key (`sk_…`) or a restricted key (`rk_…`) with read access to PaymentIntents and
   * Refunds, of the same account and mode (test or live) as the webhooks. Required.
   */
  apiKey: string;
  /**
   * Base URL of the Stripe API; point it at a sandbox or a local fake in tests.
   * @default 'https://api.stripe.com'
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
 * Asks Stripe for the status of a PaymentIntent (`GET /v1/payment_intents/{id}`), or of a refund
 * (`GET /v1/refunds/{id}`) when the event is about one, with the API key as a Bearer token.
 *
 * | Stripe status | type |
 * | --- | --- |
 * | PaymentIntent `succeeded` | `payment.succeeded` |
 * | PaymentIntent `requires_capture` | `payment.authorized` |
 * | PaymentIntent `canceled` | `payment.canceled` |
 * | PaymentIntent `requires_payment_method` after a failed attempt (`last_payment_error` set) | `payment.failed` |
 * | Refund `succeeded` | `refund.succeeded` |
 * | Refund `failed` or `canceled` | `refund.failed` |
 * | anything else (`processing`, `requires_action`, `pending`, …) | undefined |
 *
 * For an event notification (a thin event) it also fetches the event (`GET
 * /v2/core/events/{id}`) and the object it names (`related_object.url`), as `ctx.fetchEvent()`
 * and `ctx.fetchRelatedObject()` do. An event of a connected account is asked about as that
 * account: with its `Stripe-Context` header for a notification (`context`), its
 * `Stripe-Account` header for a snapshot event (`account`).
 *
 * @example
 * new StripeStatusClient({ apiKey: process.env.STRIPE_SECRET_KEY! })
 */
export class StripeStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the Stripe webhook provider. */
  readonly kind = 'stripe';

  private readonly apiKey: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when the key, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: StripeStatusClientOptions) {
    this.apiKey = requireCredential(CLIENT, 'apiKey', options?.apiKey, KEYS_PAGE);
    if (!/^(sk|rk)_/.test(this.apiKey)) {
      throw new WebhookConfigurationError(stripeApiKeyMessage(describeWrongKey(this.apiKey)));
    }
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, DEFAULT_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Looks up the refund named by the event's object (`re_…`) for refund events, otherwise the
   * PaymentIntent `query.paymentRef`.
   * @throws ProviderStatusError `missing_reference` without a `pi_…` reference (or a refund id);
   * `unauthorized` on 401/403; `not_found` on 404; `unavailable` on a network error, 408, 429 or
   * 5xx; `timeout` after `timeoutMs`; `invalid_response` when the answer is not the object asked
   * for, not JSON, a redirect or another status.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const refundId = refundIdOf(query);
    const account = accountHeaders(query);
    if (refundId !== undefined) {
      const refund = await this.retrieve('refunds', 'refund', 'refund', refundId, account);
      return toStatus(refund, refundId, mapRefundStatus(refund.status as string));
    }
    const paymentIntentId = this.requirePaymentIntentId(query.paymentRef);
    const intent = await this.retrieve(
      'payment_intents',
      'payment_intent',
      'PaymentIntent',
      paymentIntentId,
      account,
    );
    return toStatus(intent, paymentIntentId, mapPaymentIntent(intent));
  }

  /**
   * The event an event notification names, `GET /v2/core/events/{id}`: its `data` and
   * `changes`, which the notification leaves out.
   * @throws ProviderStatusError `missing_reference` for a snapshot event (its whole event is
   * the payload); otherwise as {@link fetchStatus}.
   */
  async fetchEvent(query: PaymentStatusQuery): Promise<Record<string, unknown>> {
    const id = this.requireNotification(query, 'ctx.fetchEvent()');
    const lookup = this.lookup('event', id);
    const answer = await this.get(
      lookup,
      `/v2/core/events/${encodeURIComponent(id)}`,
      accountHeaders(query),
    );
    return requireAnswerAbout(lookup, answer, id);
  }

  /**
   * The object an event notification is about, from its `related_object.url`, as it is now;
   * null when the notification names no object.
   * @throws ProviderStatusError `missing_reference` for a snapshot event (its object is
   * `payload.data.object`) or a url that is no path of Stripe's API; otherwise as
   * {@link fetchStatus}.
   */
  async fetchRelatedObject(query: PaymentStatusQuery): Promise<Record<string, unknown> | null> {
    this.requireNotification(query, 'ctx.fetchRelatedObject()');
    const related = relatedObjectOf(query.payload);
    if (related?.url === undefined) {
      return null;
    }
    const lookup = this.lookup(related.type ?? 'related object', related.id ?? related.url);
    if (!API_PATH.test(related.url) || related.url.split('/').includes('..')) {
      throw providerStatusError(lookup, 'missing_reference', 'its url is no path of the API');
    }
    const answer = await this.get(lookup, related.url, accountHeaders(query));
    return related.id === undefined ? answer.body : requireAnswerAbout(lookup, answer, related.id);
  }

  /** The notification's id, or a `missing_reference` error naming `call`. */
  private requireNotification(query: PaymentStatusQuery, call: string): string {
    const payload = isJsonObject(query.payload) ? query.payload : undefined;
    const id = readString(payload, 'id');
    if (payload !== undefined && isEventNotification(payload) && id !== undefined) {
      return id;
    }
    throw providerStatusError(
      this.lookup('event', id ?? ''),
      'missing_reference',
      `${call} is for event notifications (thin events), and this is a snapshot event`,
      { hint: 'its object is event.payload.data.object' },
    );
  }

  private requirePaymentIntentId(paymentRef: string | null): string {
    if (paymentRef !== null && PAYMENT_INTENT_ID.test(paymentRef)) {
      return paymentRef;
    }
    const lookup = this.lookup('PaymentIntent', paymentRef ?? '');
    throw providerStatusError(
      lookup,
      'missing_reference',
      paymentRef === null || paymentRef === ''
        ? 'the event carries no payment reference'
        : 'the payment reference is not a PaymentIntent id (pi_…)',
      {
        hint: 'only events about a PaymentIntent, a Checkout Session with a payment, a charge of a PaymentIntent or a refund can be checked',
      },
    );
  }

  private async get(
    lookup: ProviderLookup,
    path: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<ProviderJsonAnswer> {
    return fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}${path}`,
        method: 'GET',
        headers: {
          authorization: `Bearer ${this.apiKey}`,
          accept: 'application/json',
          ...headers,
        },
      },
      stripeErrorCode,
    );
  }

  private async retrieve(
    path: string,
    objectName: string,
    label: string,
    id: string,
    headers: Readonly<Record<string, string>>,
  ): Promise<JsonObject> {
    const lookup = this.lookup(label, id);
    const { status: httpStatus, body } = await this.get(
      lookup,
      `/v1/${path}/${encodeURIComponent(id)}`,
      headers,
    );
    const status = readString(body, 'status');
    const answeredId = readString(body, 'id');
    const object = body.object;
    if (status === undefined || (object !== undefined && object !== objectName)) {
      throw providerStatusError(lookup, 'invalid_response', `the answer is not a ${objectName}`, {
        httpStatus,
      });
    }
    if (answeredId !== undefined && answeredId !== id) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer is about another object', {
        httpStatus,
      });
    }
    return body;
  }

  private lookup(what: string, id: string): ProviderLookup {
    return {
      provider: PROVIDER,
      subject: `${what} ${quoteReference(id)}`,
      secrets: [this.apiKey, `Bearer ${this.apiKey}`],
      timeoutMs: this.timeoutMs,
    };
  }
}

/**
 * The account header of a lookup about `query`'s event, when it happened on a connected
 * account: `Stripe-Context` for an event notification (its `context`, the header the v2 API
 * takes and the v1 API takes too), `Stripe-Account` for a snapshot event (its `account`).
 */
function accountHeaders(query: PaymentStatusQuery): Record<string, string> {
  const payload = isJsonObject(query.payload) ? query.payload : undefined;
  const notification = payload !== undefined && isEventNotification(payload);
  const account =
    query.account ?? readString(payload, notification ? 'context' : 'account') ?? undefined;
  if (account === undefined || account.length === 0) {
    return {};
  }
  return notification ? { 'stripe-context': account } : { 'stripe-account': account };
}

/** The answer's body when it is about `id`; an `invalid_response` error when it names another object. */
function requireAnswerAbout(
  lookup: ProviderLookup,
  { status: httpStatus, body }: ProviderJsonAnswer,
  id: string,
): JsonObject {
  const answeredId = readString(body, 'id');
  if (answeredId !== undefined && answeredId !== id) {
    throw providerStatusError(lookup, 'invalid_response', 'the answer is about another object', {
      httpStatus,
    });
  }
  return body;
}

/** The refund id when the event is about a refund object (`re_…`), else undefined. */
function refundIdOf(query: PaymentStatusQuery): string | undefined {
  if (isJsonObject(query.payload) && isEventNotification(query.payload)) {
    const related = relatedObjectOf(query.payload);
    const isRefund = related?.type === 'refund' && query.type.startsWith('refund.');
    return isRefund && related.id !== undefined && REFUND_ID.test(related.id)
      ? related.id
      : undefined;
  }
  const isRefundEvent =
    query.type.startsWith('refund.') ||
    query.nativeType.startsWith('refund.') ||
    query.nativeType.startsWith('charge.refund.');
  if (!isRefundEvent || !isJsonObject(query.payload)) {
    return undefined;
  }
  const id = readString(readObject(readObject(query.payload, 'data'), 'object'), 'id');
  // NOTE: charge.refunded carries the charge, not a refund; its PaymentIntent is asked instead.
  return id !== undefined && REFUND_ID.test(id) ? id : undefined;
}

function mapPaymentIntent(intent: JsonObject): PaymentEventType | undefined {
  switch (intent.status) {
    case 'succeeded':
      return 'payment.succeeded';
    case 'requires_capture':
      return 'payment.authorized';
    case 'canceled':
      return 'payment.canceled';
    case 'requires_payment_method':
      // NOTE: a new PaymentIntent waits in the same status; only one with a failed attempt failed.
      return isJsonObject(intent.last_payment_error) ? 'payment.failed' : undefined;
    default:
      return undefined;
  }
}

function mapRefundStatus(status: string): PaymentEventType | undefined {
  if (status === 'succeeded') return 'refund.succeeded';
  if (status === 'failed' || status === 'canceled') return 'refund.failed';
  return undefined;
}

function toStatus(
  object: JsonObject,
  id: string,
  type: PaymentEventType | undefined,
): ProviderPaymentStatus {
  return {
    paymentRef: id,
    status: object.status as string,
    type,
    amount: readInteger(object, 'amount'),
    currency: toCurrency(object.currency),
    checkedAt: new Date(),
  };
}

function stripeErrorCode(body: JsonObject): string | undefined {
  const error = readObject(body, 'error');
  return readString(error, 'code') ?? readString(error, 'type');
}

function describeWrongKey(key: string): string {
  if (key.startsWith('pk_')) return 'looks like a publishable key (pk_…)';
  if (key.startsWith('whsec_')) return 'looks like a webhook signing secret (whsec_…)';
  return 'does not start with sk_ or rk_';
}
