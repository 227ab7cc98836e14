import { movedIntoApi } from '../../core/deprecated-options';
import { YooKassaStatusClient, YooKassaStatusClientOptions } from './yookassa-status.client';
import { currencyExponent, toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError, WebhookPayloadError } from '../../core/webhook-errors';
import { ownValue } from '../../core/own-value';
import { assertAcknowledgedWith200, plainTextAcknowledgement } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import {
  currencyCode,
  equalTo,
  jsonObject,
  nonEmptyString,
  optional,
  string,
} from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import { resolveNonEmptyString } from '../provider-options';
import { SignedDelivery } from '../signed-delivery';
import { jsonObject as jsonObjectInput, SigningInputError } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookEndpoint,
} from '../webhook-provider.interface';

const KIND = 'yookassa';

/**
 * The addresses YooKassa sends HTTP notifications from, as its documentation publishes them.
 * `yookassaEndpoint()` allows only these unless the endpoint sets its own `allowedIps`.
 */
export const YOOKASSA_IP_RANGES: readonly string[] = Object.freeze([
  '185.71.76.0/27',
  '185.71.77.0/27',
  '77.75.153.0/25',
  '77.75.156.11',
  '77.75.156.35',
  '77.75.154.128/25',
  '2a02:5180::/32',
]);

/** The YooKassa API v3 base URL. */
export const YOOKASSA_API_URL = 'https://api.yookassa.ru/v3';

/** Options of the YooKassa protocol, shared by `yookassaEndpoint()` and its signer. */
export interface YooKassaProviderOptions {
  /**
   * Key of the `metadata` entry (set by your app when creating the payment) that holds your
   * order id; it becomes `merchantRef`.
   * @default 'orderId'
   */
  merchantRefKey?: string;
}

/**
 * Options of `yookassaEndpoint()`. YooKassa does not sign notifications: trust comes from the
 * source-address allowlist (`allowedIps`, YooKassa's published ranges by default) and from
 * asking the API for the object's status (`verifyWithProvider`, on by default).
 */
export interface YooKassaEndpointOptions extends BaseEndpointOptions, YooKassaProviderOptions {
  /**
   * YooKassa API access for "ask the provider" (`verifyWithProvider`, `ctx.fetchStatus()`,
   * reconciliation): the shop's id and a secret key (YooKassa merchant profile → Integration →
   * API keys), the user name and password of HTTP Basic authentication. Required unless
   * `verifyWithProvider` is `false`.
   */
  api?: YooKassaStatusClientOptions;
  /**
   * The shop's id, given flat before 1.0.
   * @deprecated use `api: { shopId }`; read until 2.0.
   */
  shopId?: string;
  /**
   * The shop's secret API key, given flat before 1.0.
   * @deprecated use `api: { secretKey }`; read until 2.0.
   */
  secretKey?: string;
  /**
   * The API's base URL, given flat before 1.0.
   * @deprecated use `api: { apiUrl }`; read until 2.0.
   */
  apiUrl?: string;
  /**
   * The API's timeout in milliseconds, given flat before 1.0.
   * @deprecated use `api: { timeoutMs }` (the same milliseconds); read until 2.0.
   */
  timeoutMs?: number;
  /**
   * Asks the YooKassa API for the payment's (or refund's) status before handlers run; handlers
   * act on the API's answer, not on the unsigned notification's claim. Needs `api`. Set it to
   * `false` only to rely on the source-address allowlist alone.
   * @default true
   */
  verifyWithProvider?: boolean;
}

/** The body of a YooKassa HTTP notification, as handlers find it in `event.payload`. */
export interface YooKassaNotification {
  /** Always `'notification'`. */
  readonly type: 'notification';
  /** The event, e.g. `'payment.succeeded'`, `'refund.succeeded'`. */
  readonly event: string;
  /** The whole payment, refund, payout or deal object as the API would return it. */
  readonly object: YooKassaNotificationObject;
}

/** The fields of a notification's `object` this package reads; the rest is kept as sent. */
export interface YooKassaNotificationObject {
  /** The object's id (payment id for `payment.*`, refund id for `refund.*`). */
  readonly id: string;
  /** The object's status, e.g. `'succeeded'`, `'waiting_for_capture'`, `'canceled'`. */
  readonly status?: string;
  /** For a payment: whether it has been paid. */
  readonly paid?: boolean;
  /** Amount as a decimal string (`'100.00'`) and currency. */
  readonly amount?: { readonly value: string; readonly currency: string };
  /** For a refund: the id of the refunded payment. */
  readonly payment_id?: string;
  /** Your key-value pairs, set when the payment was created. */
  readonly metadata?: Readonly<Record<string, string>>;
  /** When the object was created (ISO 8601). */
  readonly created_at?: string;
  /** For a payment: when it was captured (ISO 8601). */
  readonly captured_at?: string;
  /** Anything else the API returns. */
  readonly [field: string]: unknown;
}

const YOOKASSA_NOTIFICATION = defineEnvelope({
  type: equalTo('notification'),
  event: nonEmptyString(),
  object: jsonObject(),
});

const YOOKASSA_OBJECT = defineEnvelope({
  id: nonEmptyString(),
  status: optional(string()),
  payment_id: optional(string()),
  amount: optional(jsonObject()),
  metadata: optional(jsonObject()),
  created_at: optional(string()),
  captured_at: optional(string()),
});

const YOOKASSA_AMOUNT = defineEnvelope({
  value: nonEmptyString(),
  currency: currencyCode(),
});

/** A notification's parts after the envelope checks. */
interface CheckedNotification {
  readonly body: JsonObject;
  readonly event: string;
  readonly object: JsonObject;
  readonly id: string;
}

/**
 * Reads and checks the envelope. `verify()` and `normalize()` both go through this one
 * function over the same bytes.
 */
function readNotification(rawBody: Buffer): CheckedNotification {
  const body = parseJsonObject(rawBody, 'YooKassa notification body');
  const notification = checkEnvelope(YOOKASSA_NOTIFICATION, body, 'YooKassa notification');
  const object = checkEnvelope(
    YOOKASSA_OBJECT,
    notification.object,
    'YooKassa notification object',
  );
  return { body, event: notification.event, object, id: object.id };
}

const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'payment.succeeded': 'payment.succeeded',
  // NOTE: a two-stage payment the shop must capture (or cancel): the money is reserved.
  'payment.waiting_for_capture': 'payment.authorized',
  'payment.canceled': 'payment.canceled',
  'refund.succeeded': 'refund.succeeded',
};

/** The object's amount in minor units and its currency, when it has an amount. */
function readAmount(object: JsonObject): { amount?: number; currency?: string } {
  const raw = readObject(object, 'amount');
  if (raw === undefined) {
    return {};
  }
  const amount = checkEnvelope(YOOKASSA_AMOUNT, raw, 'YooKassa notification amount');
  // NOTE: the envelope check guarantees an ISO 4217 code here.
  const currency = toCurrency(amount.currency) as string;
  const minor = toMinorUnits(amount.value, currency);
  if (minor === undefined) {
    throw new WebhookPayloadError(
      `YooKassa notification amount is not valid: value ${JSON.stringify(amount.value)} is not ` +
        `a decimal amount of ${currency} with at most ${currencyExponent(currency)} decimals ` +
        '(e.g. "100.00"), or is too large to be held exactly',
    );
  }
  return { amount: minor, currency };
}

/** The payment a notification is about: the object itself, or the refunded payment. */
function paymentRefOf(event: string, object: JsonObject): string | undefined {
  if (event.startsWith('payment.')) return readString(object, 'id');
  if (event.startsWith('refund.')) return readString(object, 'payment_id');
  return undefined;
}

function acknowledgementMessage(name: unknown, status: unknown): string {
  return (
    `Webhook endpoint ${JSON.stringify(name)} (yookassa): acknowledgement.status ${String(status)} ` +
    'would make YooKassa retry every notification for 24 hours, because it counts only exactly ' +
    'HTTP 200 as delivered; remove acknowledgement.status (or set it to 200).'
  );
}

function credentialsMessage(name: unknown): string {
  return (
    `Webhook endpoint ${JSON.stringify(name)} (yookassa) asks the YooKassa API about every ` +
    'notification (verifyWithProvider, on by default, because YooKassa does not sign them) but ' +
    'has no API credentials: set api: { shopId, secretKey } (YooKassa merchant profile → Integration → API keys), ' +
    'or set verifyWithProvider: false to rely on the source-address allowlist alone.'
  );
}

function apiUrlMessage(name: unknown): string {
  return (
    `Webhook endpoint ${JSON.stringify(name)} (yookassa): api.apiUrl must be an http(s) URL, ` +
    `e.g. apiUrl: "${YOOKASSA_API_URL}" (the default).`
  );
}

/** The API options of a YooKassa endpoint after the startup checks. */
interface YooKassaApiOptions {
  readonly verifyWithProvider: boolean;
  readonly shopId?: string;
  readonly secretKey?: string;
  readonly apiUrl: string;
  readonly timeoutMs?: number;
}

function resolveApiOptions(options: YooKassaEndpointOptions): YooKassaApiOptions {
  const name = options?.name;
  const api = movedIntoApi<YooKassaStatusClientOptions>(
    options,
    options?.api,
    ['shopId', 'secretKey', 'apiUrl', 'timeoutMs'],
    'yookassaEndpoint()',
    'NPW_DEP_YOOKASSA',
    `Webhook endpoint ${JSON.stringify(name)} (yookassa)`,
  );
  const { shopId, secretKey } = api ?? {};
  const verifyWithProvider = options?.verifyWithProvider ?? true;
  for (const [option, value] of [
    ['api.shopId', shopId],
    ['api.secretKey', secretKey],
  ] as const) {
    if (
      value !== undefined &&
      (typeof value !== 'string' || value.trim() === '' || value.trim() !== value)
    ) {
      throw new WebhookConfigurationError(
        `Webhook endpoint ${JSON.stringify(name)} (yookassa): ${option} must be a non-empty ` +
          'string without surrounding spaces, copied from the YooKassa merchant profile → ' +
          'Integration → API keys, or left out.',
      );
    }
  }
  if (verifyWithProvider !== false && (shopId === undefined || secretKey === undefined)) {
    throw new WebhookConfigurationError(credentialsMessage(name));
  }
  const apiUrl = api?.apiUrl ?? YOOKASSA_API_URL;
  if (!isHttpUrl(apiUrl)) {
    throw new WebhookConfigurationError(apiUrlMessage(name));
  }
  return { verifyWithProvider, shopId, secretKey, apiUrl, timeoutMs: api?.timeoutMs };
}

function isHttpUrl(value: unknown): boolean {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:';
  } catch {
    return false;
  }
}

/** YooKassa signs nothing: verifying checks that the body is a notification, signing adds no header. */
const YOOKASSA_UNSIGNED: SignatureScheme = {
  verify: (request) => void readNotification(request.rawBody),
  sign: () => ({}),
};

/** The body of the notification YooKassa posts about `object`. */
export function yookassaNotificationBody(event: string, object: object): string {
  return JSON.stringify({ type: 'notification', event, object });
}

/**
 * YooKassa (API v3) HTTP notifications: `{"type":"notification","event":…,"object":{…}}`, not
 * signed. `verify()` checks only that the body is such a notification, with an `event` and an
 * `object.id`, the fields the dedup key and the API check depend on; authenticity comes from the
 * endpoint's source-address allowlist and from asking the API (`verifyWithProvider`). YooKassa
 * has no event id; status changes are one-way, so `${event}:${object.id}` is the key. It counts
 * exactly 200 as delivered, ignores the body, and retries any other answer for 24 hours.
 */
export const yookassaProvider = defineProvider<YooKassaProviderOptions>({
  kind: KIND,
  name: 'YooKassa',
  retryHorizon: { days: 1, documented: 'keeps delivering for 24 hours' },
  signature: YOOKASSA_UNSIGNED,
  types: EVENT_TYPES,
  checkOptions(options: YooKassaEndpointOptions) {
    assertAcknowledgedWith200(options, (status) => acknowledgementMessage(options.name, status));
  },
  // NOTE: built here, not from normalize, because reading merchantRef needs merchantRefKey.
  create(options, endpointName) {
    const merchantRefKey = resolveNonEmptyString(
      endpointName,
      KIND,
      'merchantRefKey',
      options?.merchantRefKey,
      'orderId',
    );
    return {
      kind: KIND,
      acknowledgement: plainTextAcknowledgement(),
      verify: (request) => YOOKASSA_UNSIGNED.verify(request, []),
      normalize: (request) => readYooKassaNotification(request, merchantRefKey),
    };
  },
  extras(options: YooKassaEndpointOptions) {
    const api = resolveApiOptions(options);
    const statusClient =
      api.shopId !== undefined && api.secretKey !== undefined
        ? new YooKassaStatusClient({
            shopId: api.shopId,
            secretKey: api.secretKey,
            apiUrl: api.apiUrl,
            timeoutMs: api.timeoutMs,
          })
        : undefined;
    return {
      statusClient,
      verifyWithProviderByDefault: true,
      defaultSources: {
        ranges: YOOKASSA_IP_RANGES,
        name: "YooKassa's published ranges (YOOKASSA_IP_RANGES)",
      },
    };
  },
  cli: {
    title: 'YooKassa (unsigned: the endpoint trusts source addresses)',
    secret: null,
    payload: 'the notification: { "event": "payment.succeeded", "object": { … } }',
    flags: [],
    sign: (input): SignedDelivery => {
      const { event, object } = jsonObjectInput(KIND, input, '{ "event": …, "object": { … } }');
      if (typeof event !== 'string' || object === null || typeof object !== 'object') {
        throw new SigningInputError(
          '--provider yookassa takes { "event": "payment.succeeded", "object": { … } } in --file',
        );
      }
      return yookassaProvider.signed(yookassaNotificationBody(event, object), '');
    },
  },
  sample: {
    options: { verifyWithProvider: false },
    body: JSON.stringify({
      type: 'notification',
      event: 'payment.succeeded',
      object: { id: '2d9f3a6c-000f-5000-8000-1a2b3c4d5e6f', status: 'succeeded' },
    }),
  },
});

/** Parses a YooKassa notification; the event id is `${event}:${object.id}`. */
function readYooKassaNotification(
  request: InboundWebhook,
  merchantRefKey: string,
): NormalizedNotification {
  const { body, event, object, id } = readNotification(request.rawBody);
  const { amount, currency } = readAmount(object);
  return {
    eventId: `${event}:${id}`,
    type: ownValue(EVENT_TYPES, event) ?? `${KIND}:${event}`,
    nativeType: event,
    paymentRef: paymentRefOf(event, object),
    merchantRef: readString(readObject(object, 'metadata'), merchantRefKey),
    amount,
    currency,
    status: readString(object, 'status'),
    occurredAt: parseIsoDate(object.captured_at) ?? parseIsoDate(object.created_at),
    payload: body,
  };
}

/**
 * A YooKassa HTTP-notification endpoint. Only YooKassa's published addresses
 * (`YOOKASSA_IP_RANGES`) may deliver unless `allowedIps` says otherwise; behind a proxy, turn
 * on the module's `trustProxy` so the client address is the one YooKassa connected from.
 * @throws WebhookConfigurationError at startup when an option cannot work, in particular when
 * `verifyWithProvider` is on (the default) without `api: { shopId, secretKey }`.
 * @example
 * yookassaEndpoint({
 *   name: 'yookassa',
 *   api: { shopId: process.env.YOOKASSA_SHOP_ID!, secretKey: process.env.YOOKASSA_SECRET_KEY! },
 * })
 */
export function yookassaEndpoint(options: YooKassaEndpointOptions): WebhookEndpoint {
  return yookassaProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
yookassaEndpoint.kind = KIND;
