import { PaymentEventType } from '../../core/payment-event-types';
import { ProviderStatusError } from '../../core/webhook-errors';
import { JsonObject, readString, toIdentifier } from '../parse-payload';
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
import { tbankToken } from './tbank-token';
import { ownValue } from '../../core/own-value';

const CLIENT = 'TBankStatusClient';
const PROVIDER = 'T-Bank';
const DEFAULT_API_URL = 'https://securepay.tinkoff.ru/v2';
const TERMINALS_PAGE = 'the T-Bank business account → Интернет-эквайринг → Магазины → Терминалы';
// NOTE: GetState documents PaymentId as a string of at most 20 characters (digits in practice).
const PAYMENT_ID = /^[A-Za-z0-9_-]{1,20}$/;

/**
 * `ErrorCode`s of a `Success: false` answer that mean the terminal key or password is refused:
 * 202 terminal blocked, 204 wrong token (the TerminalKey/password pair), 205 terminal not found
 * by the token check, 501 terminal not found.
 */
const UNAUTHORIZED_CODES: ReadonlySet<string> = new Set(['202', '204', '205', '501']);
/** `ErrorCode`s that mean there is no such payment for this terminal. */
const NOT_FOUND_CODES: ReadonlySet<string> = new Set(['255']);

/**
 * What a T-Bank payment `Status` amounts to, the same in notifications and GetState answers;
 * statuses not listed (`NEW`, `AUTHORIZING`, …) are not yet an outcome.
 */
export const TBANK_STATUS_TYPES: Readonly<Record<string, PaymentEventType>> = {
  AUTHORIZED: 'payment.authorized',
  CONFIRMED: 'payment.succeeded',
  REJECTED: 'payment.failed',
  REVERSED: 'payment.canceled',
  // NOTE: part of the hold is released; the rest stays authorized and can still be confirmed.
  PARTIAL_REVERSED: 'payment.authorized',
  CANCELED: 'payment.canceled',
  REFUNDED: 'refund.succeeded',
  PARTIAL_REFUNDED: 'refund.succeeded',
};

/** Options of `TBankStatusClient`. */
export interface TBankStatusClientOptions {
  /** The terminal's key (`TerminalKey`), the same as in the terminal's notifications. Required. */
  terminalKey: string;
  /** The terminal's password, used only to compute each request's `Token`. Required. */
  password: string;
  /**
   * Base URL of the acquiring API, version included; point it at a local fake in tests.
   * @default 'https://securepay.tinkoff.ru/v2'
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
 * Asks T-Bank (Tinkoff) acquiring for the status of a payment: `POST {apiUrl}/GetState` with
 * `{ TerminalKey, PaymentId, Token }`, where `Token` is the request's signature made with the
 * terminal password (see `tbankToken`); the password itself is never sent.
 *
 * | T-Bank `Status` | type |
 * | --- | --- |
 * | `AUTHORIZED`, `PARTIAL_REVERSED` (a smaller hold, still to confirm) | `payment.authorized` |
 * | `CONFIRMED` | `payment.succeeded` |
 * | `REJECTED` | `payment.failed` |
 * | `REVERSED`, `CANCELED` | `payment.canceled` |
 * | `REFUNDED`, `PARTIAL_REFUNDED` | `refund.succeeded` |
 * | anything else (`NEW`, `FORM_SHOWED`, `AUTHORIZING`, `CONFIRMING`, …) | undefined |
 *
 * T-Bank answers errors with HTTP 200 and `Success: false`: `ErrorCode` 202, 204, 205 and 501
 * (terminal blocked or unknown, wrong token) fail with `unauthorized`, 255 (no such payment)
 * with `not_found`, any other code with `unavailable`, its `Message` and `Details` quoted.
 * Amounts are in kopecks, currency RUB.
 *
 * @example
 * new TBankStatusClient({ terminalKey: process.env.TBANK_TERMINAL_KEY!, password: process.env.TBANK_PASSWORD! })
 */
export class TBankStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the T-Bank webhook provider. */
  readonly kind = 'tbank';

  private readonly terminalKey: string;
  private readonly password: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when a credential, `apiUrl` or `timeoutMs` cannot work.
   */
  constructor(options: TBankStatusClientOptions) {
    this.terminalKey = requireCredential(
      CLIENT,
      'terminalKey',
      options?.terminalKey,
      TERMINALS_PAGE,
    );
    this.password = requireCredential(CLIENT, 'password', options.password, TERMINALS_PAGE);
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, DEFAULT_API_URL);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
  }

  /**
   * Calls GetState for `query.paymentRef` (the notification's `PaymentId`).
   * @throws ProviderStatusError `missing_reference` without a usable PaymentId; `unauthorized`,
   * `not_found` or `unavailable` for a `Success: false` answer (see above) or the same HTTP
   * statuses as the other clients; `timeout` after `timeoutMs`; `invalid_response` when the
   * answer has no `Success` or `Status`, is about another payment, or is not JSON.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const paymentId = query.paymentRef ?? '';
    const request = { TerminalKey: this.terminalKey, PaymentId: paymentId };
    const token = tbankToken(request, this.password);
    const lookup: ProviderLookup = {
      provider: PROVIDER,
      subject: `payment ${quoteReference(paymentId)}`,
      secrets: [this.password, token],
      timeoutMs: this.timeoutMs,
    };
    if (!PAYMENT_ID.test(paymentId)) {
      throw providerStatusError(
        lookup,
        'missing_reference',
        paymentId === ''
          ? 'the event carries no PaymentId'
          : 'the payment reference is not a T-Bank PaymentId',
        { hint: 'the notification names its payment in PaymentId' },
      );
    }
    const answer = await fetchProviderJson(
      lookup,
      {
        url: `${this.apiUrl}/GetState`,
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify({ ...request, Token: token }),
      },
      (error) => describeError(error, lookup),
    );
    return toStatus(answer, paymentId, lookup);
  }
}

function toStatus(
  answer: ProviderJsonAnswer,
  paymentId: string,
  lookup: ProviderLookup,
): ProviderPaymentStatus {
  const { body, status: httpStatus } = answer;
  if (typeof body.Success !== 'boolean') {
    throw providerStatusError(lookup, 'invalid_response', 'the answer has no Success flag', {
      httpStatus,
    });
  }
  const status = readString(body, 'Status');
  const answeredId = toIdentifier(body.PaymentId);
  const errorCode = toIdentifier(body.ErrorCode);
  if (!body.Success) {
    // NOTE: an answer about this very payment (its id and a status) describes the payment even
    // with Success false, e.g. a REJECTED payment that still carries the decline's ErrorCode.
    const describesPayment = status !== undefined && answeredId === paymentId;
    if (!describesPayment || (errorCode !== undefined && UNAUTHORIZED_CODES.has(errorCode))) {
      throw refusal(answer, errorCode, lookup);
    }
  }
  if (status === undefined) {
    throw providerStatusError(lookup, 'invalid_response', 'the answer has no Status', {
      httpStatus,
    });
  }
  if (answeredId !== undefined && answeredId !== paymentId) {
    throw providerStatusError(lookup, 'invalid_response', 'the answer is about another payment', {
      httpStatus,
    });
  }
  const amount = body.Amount;
  return {
    paymentRef: paymentId,
    status,
    type: ownValue(TBANK_STATUS_TYPES, status),
    ...(typeof amount === 'number' && Number.isSafeInteger(amount) && amount >= 0
      ? { amount, currency: 'RUB' }
      : {}),
    checkedAt: new Date(),
  };
}

/** The failure a `Success: false` answer amounts to (see the class documentation). */
function refusal(
  answer: ProviderJsonAnswer,
  errorCode: string | undefined,
  lookup: ProviderLookup,
): ProviderStatusError {
  const facts = { httpStatus: answer.status, detail: describeError(answer.body, lookup) };
  if (errorCode !== undefined && UNAUTHORIZED_CODES.has(errorCode)) {
    return providerStatusError(lookup, 'unauthorized', 'the terminal key or password was refused', {
      ...facts,
      hint: 'check terminalKey and password: the same terminal (test or live) as the notifications',
    });
  }
  if (errorCode !== undefined && NOT_FOUND_CODES.has(errorCode)) {
    return providerStatusError(lookup, 'not_found', 'T-Bank does not know this payment', {
      ...facts,
      hint: 'it may belong to another terminal (test or live)',
    });
  }
  return providerStatusError(lookup, 'unavailable', 'T-Bank answered with an error', {
    ...facts,
    hint: 'asking again later may succeed',
  });
}

function describeError(body: JsonObject, lookup: ProviderLookup): string | undefined {
  return describeProviderError(lookup, 'ErrorCode', body.ErrorCode, [body.Message, body.Details]);
}
