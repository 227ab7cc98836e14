import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { ProviderStatusFailure, WebhookConfigurationError } from '../../core/webhook-errors';
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
  providerText,
  quoteReference,
  requireCredential,
  resolveApiUrl,
  resolveTimeoutMs,
} from '../provider-http';

const CLIENT = 'BraintreeStatusClient';
const KEYS_PAGE = 'the Braintree Control Panel → Settings → API → API Keys';
const API_URLS = {
  production: 'https://payments.braintree-api.com/graphql',
  sandbox: 'https://payments.sandbox.braintree-api.com/graphql',
} as const;
/** The GraphQL API version the queries are written for (the date the API behaves as of). */
const BRAINTREE_VERSION = '2019-01-01';
const LEGACY_ID = /^[A-Za-z0-9_-]{1,64}$/;

const ID_QUERY =
  'query IdFromLegacyId($legacyId: ID!, $type: LegacyIdType!) ' +
  '{ idFromLegacyId(legacyId: $legacyId, type: $type) }';
const NODE_QUERY =
  'query PaymentStatus($id: ID!) { node(id: $id) { ' +
  '... on Transaction { legacyId status amount { value currencyCode } } ' +
  '... on Refund { legacyId status amount { value currencyCode } } } }';

const SUCCEEDED = ['SETTLED', 'SETTLING', 'SUBMITTED_FOR_SETTLEMENT'];
const FAILED = ['FAILED', 'PROCESSOR_DECLINED', 'GATEWAY_REJECTED', 'SETTLEMENT_DECLINED'];
const TRANSACTION_TYPES: Readonly<Record<string, PaymentEventType>> = {
  ...Object.fromEntries(SUCCEEDED.map((status) => [status, 'payment.succeeded'])),
  ...Object.fromEntries(FAILED.map((status) => [status, 'payment.failed'])),
  AUTHORIZED: 'payment.authorized',
  VOIDED: 'payment.canceled',
  AUTHORIZATION_EXPIRED: 'payment.canceled',
};
const REFUND_TYPES: Readonly<Record<string, PaymentEventType>> = {
  ...Object.fromEntries(SUCCEEDED.map((status) => [status, 'refund.succeeded'])),
  ...Object.fromEntries([...FAILED, 'VOIDED'].map((status) => [status, 'refund.failed'])),
};

// NOTE: Braintree's GraphQL API answers 200 with an `errors` list; its class says why.
const ERROR_CLASSES: Readonly<Record<string, ProviderStatusFailure>> = {
  AUTHENTICATION: 'unauthorized',
  AUTHORIZATION: 'unauthorized',
  NOT_FOUND: 'not_found',
  RESOURCE_LIMIT: 'unavailable',
  INTERNAL: 'unavailable',
  SERVICE_AVAILABILITY: 'unavailable',
};

/** Options of `BraintreeStatusClient`. */
export interface BraintreeStatusClientOptions {
  /** The public key of an API key (Control Panel → Settings → API → API Keys). Required. */
  publicKey: string;
  /** The private key of the same API key. Required. */
  privateKey: string;
  /**
   * Which Braintree environment the key belongs to: `'production'`
   * (`https://payments.braintree-api.com/graphql`) or `'sandbox'`
   * (`https://payments.sandbox.braintree-api.com/graphql`).
   * @default 'production'
   */
  environment?: 'production' | 'sandbox';
  /**
   * URL of the GraphQL endpoint, in place of the environment's; a local fake in tests.
   * @default the environment's
   * @advanced
   */
  apiUrl?: string;
  /**
   * Longest wait for each whole answer, in milliseconds; then the lookup fails with `timeout`.
   * @default 10000
   * @advanced
   */
  timeoutMs?: number;
}

/**
 * Asks Braintree's GraphQL API for the status of the transaction a notification is about (the
 * refund, for a refund's notification): `idFromLegacyId` turns the id the notification carries
 * into a GraphQL id, then `node` reads the transaction or refund. Authenticated with the API key
 * as HTTP Basic `publicKey:privateKey`, `Braintree-Version: 2019-01-01`.
 *
 * | GraphQL status | transaction | refund |
 * | --- | --- | --- |
 * | `SETTLED`, `SETTLING`, `SUBMITTED_FOR_SETTLEMENT` | `payment.succeeded` | `refund.succeeded` |
 * | `AUTHORIZED` | `payment.authorized` | |
 * | `FAILED`, `PROCESSOR_DECLINED`, `GATEWAY_REJECTED`, `SETTLEMENT_DECLINED` | `payment.failed` | `refund.failed` |
 * | `VOIDED` | `payment.canceled` | `refund.failed` |
 * | `AUTHORIZATION_EXPIRED` | `payment.canceled` | |
 * | anything else (`AUTHORIZING`, `SETTLEMENT_PENDING`, …) | undefined | undefined |
 *
 * @example
 * new BraintreeStatusClient({
 *   publicKey: process.env.BRAINTREE_PUBLIC_KEY!,
 *   privateKey: process.env.BRAINTREE_PRIVATE_KEY!,
 *   environment: 'sandbox',
 * })
 */
export class BraintreeStatusClient implements PaymentStatusClient {
  /** Provider kind, as on the Braintree webhook provider. */
  readonly kind = 'braintree';

  private readonly authorization: string;
  private readonly privateKey: string;
  private readonly apiUrl: string;
  private readonly timeoutMs: number;

  /**
   * @throws WebhookConfigurationError when a key, `environment`, `apiUrl` or `timeoutMs` cannot
   * work.
   */
  constructor(options: BraintreeStatusClientOptions) {
    const publicKey = requireCredential(CLIENT, 'publicKey', options?.publicKey, KEYS_PAGE);
    this.privateKey = requireCredential(CLIENT, 'privateKey', options.privateKey, KEYS_PAGE);
    const environment = options.environment ?? 'production';
    if (environment !== 'production' && environment !== 'sandbox') {
      throw new WebhookConfigurationError(
        `${CLIENT}: environment must be "production" or "sandbox", the environment of the API ` +
          'key given; or set apiUrl.',
      );
    }
    this.apiUrl = resolveApiUrl(CLIENT, options.apiUrl, API_URLS[environment]);
    this.timeoutMs = resolveTimeoutMs(CLIENT, options.timeoutMs);
    this.authorization = `Basic ${Buffer.from(`${publicKey}:${this.privateKey}`).toString('base64')}`;
  }

  /**
   * Looks up the refund the notification carries for a refund event (a transaction of type
   * `credit`), otherwise the transaction `query.paymentRef`.
   * @throws ProviderStatusError `missing_reference` without a usable id; `unauthorized`,
   * `not_found`, `unavailable`, `timeout` or `invalid_response` as the API answers.
   */
  async fetchStatus(query: PaymentStatusQuery): Promise<ProviderPaymentStatus> {
    const refundId = refundIdOf(query.payload);
    const [type, id] =
      refundId === undefined ? (['TRANSACTION', query.paymentRef] as const) : ['REFUND', refundId];
    const lookup = this.lookup(type === 'REFUND' ? 'refund' : 'transaction', id ?? '');
    if (id === null || !LEGACY_ID.test(id)) {
      throw providerStatusError(lookup, 'missing_reference', 'the event names no transaction id', {
        hint: 'only transaction, subscription charge, dispute and refund notifications can be checked',
      });
    }
    const ids = await this.query(lookup, ID_QUERY, { legacyId: id, type });
    const globalId = readString(ids, 'idFromLegacyId');
    if (globalId === undefined) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer has no idFromLegacyId');
    }
    const node = readObject(await this.query(lookup, NODE_QUERY, { id: globalId }), 'node');
    if (node === undefined) {
      throw providerStatusError(lookup, 'not_found', 'the provider does not know it');
    }
    const status = readString(node, 'status');
    if (status === undefined || (node.legacyId !== undefined && node.legacyId !== id)) {
      throw providerStatusError(
        lookup,
        'invalid_response',
        `the answer is not that ${type.toLowerCase()}`,
      );
    }
    const money = readObject(node, 'amount');
    const currency = toCurrency(money?.currencyCode);
    const value = readString(money, 'value');
    return {
      paymentRef: id,
      status,
      type: ownValue(type === 'REFUND' ? REFUND_TYPES : TRANSACTION_TYPES, status),
      amount:
        value === undefined || currency === undefined ? undefined : toMinorUnits(value, currency),
      currency,
      checkedAt: new Date(),
    };
  }

  /** Sends one GraphQL query and returns its `data`, or throws what its `errors` say. */
  private async query(
    lookup: ProviderLookup,
    query: string,
    variables: Record<string, string>,
  ): Promise<JsonObject> {
    const { status, body } = await fetchProviderJson(
      lookup,
      {
        url: this.apiUrl,
        method: 'POST',
        headers: {
          authorization: this.authorization,
          'braintree-version': BRAINTREE_VERSION,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ query, variables }),
      },
      (answer) => firstError(answer)?.message,
    );
    const error = firstError(body);
    if (error !== undefined) {
      const failure = ownValue(ERROR_CLASSES, error.errorClass ?? '') ?? 'invalid_response';
      throw providerStatusError(
        lookup,
        failure,
        failure === 'not_found'
          ? 'the provider does not know it'
          : 'the API answered with an error',
        {
          httpStatus: status,
          detail: [error.errorClass, providerText(error.message, lookup.secrets)]
            .filter(Boolean)
            .join(': '),
        },
      );
    }
    const data = readObject(body, 'data');
    if (data === undefined) {
      throw providerStatusError(lookup, 'invalid_response', 'the answer has no data', {
        httpStatus: status,
      });
    }
    return data;
  }

  private lookup(what: string, id: string): ProviderLookup {
    const token = this.authorization.slice('Basic '.length);
    return {
      provider: 'Braintree',
      subject: `${what} ${quoteReference(id)}`,
      secrets: [this.privateKey, token, this.authorization],
      timeoutMs: this.timeoutMs,
    };
  }
}

/** The first GraphQL error of an answer: its class and message. */
function firstError(body: JsonObject): { errorClass?: string; message?: string } | undefined {
  const errors = body.errors;
  if (!Array.isArray(errors) || errors.length === 0) return undefined;
  const error = isJsonObject(errors[0]) ? errors[0] : {};
  return {
    errorClass: readString(readObject(error, 'extensions'), 'errorClass'),
    message: readString(error, 'message'),
  };
}

/** The refund's id when the notification is about a refund (a transaction of type `credit`). */
function refundIdOf(payload: unknown): string | undefined {
  const subject = isJsonObject(payload) ? readObject(payload, 'subject') : undefined;
  const transaction = readObject(subject, 'transaction');
  return readString(transaction, 'type') === 'credit' ? readString(transaction, 'id') : undefined;
}
