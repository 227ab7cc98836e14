import { PaymentEventType } from '../../core/payment-event-types';
import { ProviderStatusError, WebhookConfigurationError } from '../../core/webhook-errors';
import { JsonObject, toIdentifier } from '../parse-payload';
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
import { sberCredentialsMessage } from '../status-clients.messages';
import { ownValue } from '../../core/own-value';

const CLIENT = 'SberStatusClient';
const PROVIDER = 'Sber';
const DEFAULT_API_URL = 'https://securepayments.sberbank.ru/payment/rest';
const CREDENTIALS_PAGE = 'the credentials Sber issued with the shop (the "-api" account)';
// NOTE: the gateway's order id (mdOrder) is documented as at most 36 characters (a UUID).
const ORDER_ID = /^[A-Za-z0-9_-]{1,36}$/;

/** `orderStatus` values of getOrderStatusExtended.do and what each amounts to. */
const ORDER_STATUS_TYPES: Readonly<Record<string, PaymentEventType | undefined>> = {
  '0': undefined, // registered, not paid
  '1': 'payment.authorized', // amount held (two-stage payment)
  '2': 'payment.succeeded', // deposited
  '3': 'payment.canceled', // authorization reversed
  '4': 'refund.succeeded', // refunded
  '5': undefined, // ACS authentication (3-D Secure) under way
  '6': 'payment.failed', // authorization declined
};

// NOTE: ISO 4217 numeric codes of currencies the gateway is used with; others stay unknown.
const NUMERIC_CURRENCIES: Readonly<Record<string, string>> = {
  '643': 'RUB',
  '840': 'USD',
  '978': 'EUR',
  '156': 'CNY',
  '933': 'BYN',
  '398': 'KZT',
  '51': 'AMD',
  '417': 'KGS',
  '860': 'UZS',
  '944': 'AZN',
  '981': 'GEL',
  '972': 'TJS',
  '826': 'GBP',
};

/** Options every `SberStatusClient` takes. */
export interface SberStatusClientBaseOptions {
  /**
   * Base URL of the gateway's REST API; `https://3dsec.sberbank.ru/payment/rest` is the test
   * gateway, a local fake in tests.
   * @default 'https://securepayments.sberbank.ru/payment/rest'
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

/** Options of `SberStatusClient`: the API account's login and password, or a token. */
export type SberStatusClientOptions = SberStatusClientBaseOptions &
  (
    | {
        /** Login of the shop's API account (usually ending in `-api`). */
        userName: string;
        /** Password of the shop's API account. */
        password: string;
        token?: undefined;
      }
    | {
        /** The token issued for the shop instead of a login and password. */
        token: string;
        userName?: undefined;
        password?: undefined;
      }
  );

/**
 * Asks the Sber acquiring gateway (RBS) for the status of an order:
 * `POST {apiUrl}/getOrderStatusExtended.do` as a form with the credentials, `orderId` (the
 * gateway's order id, `mdOrder` in callbacks) and `language=en`. Credentials travel in the
 * request body, never in the URL.
 *
 * | `orderStatus` | meaning | type |
 * | --- | --- | --- |
 * | 0 | registered, not paid | undefined |
 * | 1 | amount held (two-stage) | `payment.authorized` |
 * | 2 | deposited | `payment.succeeded` |
 * | 3 | authorization reversed | `payment.canceled` |
 * | 4 | refunded | `refund.succeeded` |
 * | 5 | 3-D Secure under way | undefined |
 * | 6 | declined | `payment.failed` |
 *
 * The gateway answers errors with HTTP 200 and a non-zero `errorCode`: 5 (access denied, or
 * the password must be changed) fails with `unauthorized`, 6 (order not found, unregistered
 * orderId) with `not_found`, any other code (7 is a system error) with `unavailable`, its
 * `errorMessage` quoted. The currency's numeric code (643) is returned as its letters (RUB).
 *
 * @example
 * new SberStatusClient({ userName: process.env.SBER_USER!, password: process.env.SBER_PASSWORD! })
 */
export class SberStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the Sber webhook provider. */
  readonly kind = 'sber';

  private readonly credentials: Readonly<Record<string, string>>;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when the credentials, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: SberStatusClientOptions) {
    this.credentials = resolveCredentials(options);
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, DEFAULT_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Asks for the order `query.paymentRef` (the callback's `mdOrder`).
   * @throws ProviderStatusError `missing_reference` without a usable order id; `unauthorized`,
   * `not_found` or `unavailable` for a non-zero `errorCode` (see above) or the same HTTP statuses
   * as the other clients; `timeout` after `timeoutMs`; `invalid_response` when the answer has no
   * `orderStatus` or is not JSON.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const orderId = query.paymentRef ?? '';
    const lookup: ProviderLookup = {
      provider: PROVIDER,
      subject: `order ${quoteReference(orderId)}`,
      secrets: Object.entries(this.credentials)
        .filter(([name]) => name !== 'userName')
        .flatMap(([name, value]) => [
          value,
          encodeURIComponent(value),
          new URLSearchParams({ [name]: value }).toString().slice(name.length + 1),
        ]),
      timeoutMs: this.timeoutMs,
    };
    if (!ORDER_ID.test(orderId)) {
      throw providerStatusError(
        lookup,
        'missing_reference',
        orderId === ''
          ? 'the event carries no order id (mdOrder)'
          : 'the payment reference is not a gateway order id (mdOrder)',
        { hint: 'callbacks name the order in mdOrder' },
      );
    }
    const answer = await fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}/getOrderStatusExtended.do`,
        method: 'POST',
        headers: {
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ ...this.credentials, orderId, language: 'en' }).toString(),
      },
      (error) => describeError(error, lookup),
    );
    return toStatus(answer, orderId, lookup);
  }
}

function resolveCredentials(options: SberStatusClientOptions): Record<string, string> {
  const given = options as Partial<Record<'userName' | 'password' | 'token', unknown>> | undefined;
  const hasLogin = given?.userName !== undefined || given?.password !== undefined;
  const hasToken = given?.token !== undefined;
  if (hasLogin && hasToken) {
    throw new WebhookConfigurationError(sberCredentialsMessage('both'));
  }
  if (hasToken) {
    return { token: requireCredential(CLIENT, 'token', given?.token, CREDENTIALS_PAGE) };
  }
  if (!hasLogin) {
    throw new WebhookConfigurationError(sberCredentialsMessage('none'));
  }
  if (given?.userName === undefined || given?.password === undefined) {
    throw new WebhookConfigurationError(sberCredentialsMessage('half'));
  }
  return {
    userName: requireCredential(CLIENT, 'userName', given.userName, CREDENTIALS_PAGE),
    password: requireCredential(CLIENT, 'password', given.password, CREDENTIALS_PAGE),
  };
}

function toStatus(
  answer: ProviderJsonAnswer,
  orderId: string,
  lookup: ProviderLookup,
): ProviderPaymentStatus {
  const { body, status: httpStatus } = answer;
  // NOTE: the gateway sends errorCode as a string ("0"), older versions as a number or not at
  // all on success.
  const errorCode = body.errorCode === undefined ? '0' : toIdentifier(body.errorCode);
  if (errorCode === undefined) {
    throw providerStatusError(lookup, 'invalid_response', 'the errorCode is unreadable', {
      httpStatus,
    });
  }
  if (errorCode !== '0') {
    throw refusal(errorCode, answer, lookup);
  }
  const orderStatus = toIdentifier(body.orderStatus);
  if (orderStatus === undefined || !/^\d+$/.test(orderStatus)) {
    throw providerStatusError(lookup, 'invalid_response', 'the answer has no orderStatus', {
      httpStatus,
    });
  }
  const amount = body.amount;
  const currency = toAlphaCurrency(toIdentifier(body.currency));
  return {
    paymentRef: orderId,
    status: orderStatus,
    type: ownValue(ORDER_STATUS_TYPES, orderStatus),
    ...(typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0
      ? { amount }
      : {}),
    ...(currency === undefined ? {} : { currency }),
    checkedAt: new Date(),
  };
}

/** Letters of an ISO 4217 currency given by number (`643`) or letters; undefined if unknown. */
function toAlphaCurrency(code: string | undefined): string | undefined {
  if (code === undefined) {
    return undefined;
  }
  if (/^[A-Za-z]{3}$/.test(code)) {
    return code.toUpperCase();
  }
  return /^\d{1,3}$/.test(code) ? ownValue(NUMERIC_CURRENCIES, String(Number(code))) : undefined;
}

/** The failure a non-zero `errorCode` amounts to (see the class documentation). */
function refusal(
  errorCode: string,
  answer: ProviderJsonAnswer,
  lookup: ProviderLookup,
): ProviderStatusError {
  const facts = { httpStatus: answer.status, detail: describeError(answer.body, lookup) };
  if (errorCode === '5') {
    return providerStatusError(lookup, 'unauthorized', 'access to the order was denied', {
      ...facts,
      hint: 'check userName and password (or token): the API account of this shop, on the same gateway (test or live)',
    });
  }
  if (errorCode === '6') {
    return providerStatusError(lookup, 'not_found', 'the gateway does not know this order', {
      ...facts,
      hint: 'it may belong to another shop or gateway (test or live)',
    });
  }
  return providerStatusError(lookup, 'unavailable', 'the gateway answered with an error', {
    ...facts,
    hint: 'asking again later may succeed',
  });
}

function describeError(body: JsonObject, lookup: ProviderLookup): string | undefined {
  return describeProviderError(lookup, 'errorCode', body.errorCode, [body.errorMessage]);
}
