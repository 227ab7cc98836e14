import { constantTimeMatchAny } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { currencyExponent } from '../../core/minor-units';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import { defineProvider, SignatureScheme } from '../define-provider';
import { encodeFormBody } from '../form-body';
import { JsonObject, toCurrency } from '../parse-payload';
import { endpointLabel } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { jsonObject, oneOf, requireSecret } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import {
  WHAT,
  dateTimeOf,
  decodedFormText,
  minorUnitsOf,
  readNotification,
  requireId,
  textOf,
} from './cloudpayments-fields';

const KIND = 'cloudpayments';
const CONTENT_HMAC = 'content-hmac';
const X_CONTENT_HMAC = 'x-content-hmac';
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;
const SUCCEEDED_STATUSES = new Set(['Completed', 'Authorized']);

/**
 * One kind of CloudPayments notification.
 *
 * NOTE: spelled out rather than derived from `CLOUDPAYMENTS_NOTIFICATIONS`, which no entry
 * exports; `_everyKindListed` below keeps the two the same.
 */
export type CloudPaymentsNotification =
  'check' | 'pay' | 'fail' | 'confirm' | 'refund' | 'recurrent' | 'cancel';

/** The notifications CloudPayments sends, each to the URL the site's settings give it. */
export const CLOUDPAYMENTS_NOTIFICATIONS = [
  'check',
  'pay',
  'fail',
  'confirm',
  'refund',
  'recurrent',
  'cancel',
] as const satisfies readonly CloudPaymentsNotification[];

const _everyKindListed: [
  Exclude<CloudPaymentsNotification, (typeof CLOUDPAYMENTS_NOTIFICATIONS)[number]>,
] extends [never]
  ? true
  : never = true;

/** Options of the CloudPayments protocol, shared by `cloudPaymentsEndpoint()` and the provider. */
export interface CloudPaymentsProviderOptions {
  /**
   * The site's API secret ("Пароль для API" / API Secret in the back office: Сайты → the site →
   * Настройки), which keys the Content-HMAC of every notification. Pass a list while changing
   * it: a notification is accepted when any of them matches. Required.
   */
  apiSecret: string | readonly string[];
  /**
   * Which notification this endpoint receives. CloudPayments posts each kind to its own URL
   * (back office: the site's settings → Уведомления) and the body does not say which it is:
   * give each enabled kind its own endpoint and URL. Required.
   * @example 'pay'
   */
  notification: CloudPaymentsNotification;
  /**
   * The ISO 4217 code of amounts in notifications that carry no `Currency` (Refund and Cancel
   * send none): the site's currency.
   * @default 'RUB'
   */
  defaultCurrency?: string;
}

/** Options of `cloudPaymentsEndpoint()`. */
export interface CloudPaymentsEndpointOptions
  extends BaseEndpointOptions, CloudPaymentsProviderOptions {}

/** What a kind of notification means, and what its body must not say. */
interface KindRule {
  /**
   * The normalized type, from the body's `Status` and `OperationType`, where they decide it;
   * else the kind's entry in `EVENT_TYPES`.
   */
  readonly type?: (status?: string, operation?: string) => PaymentEventType | undefined;
  /** Why the body cannot be a notification of this kind (one sent to another URL), if it cannot. */
  readonly mismatch: (fields: JsonObject) => string | undefined;
}

const isPayment = (operation?: string) => operation === undefined || operation === 'Payment';
const refundFields = (fields: JsonObject) =>
  textOf(fields, 'PaymentTransactionId') !== undefined ||
  textOf(fields, 'OperationType') === 'Refund'
    ? 'it carries a refund'
    : undefined;
const succeededStatus = (fields: JsonObject) => {
  const status = textOf(fields, 'Status');
  return status !== undefined && SUCCEEDED_STATUSES.has(status)
    ? `its Status is ${status}`
    : undefined;
};

const KIND_RULES: Readonly<Record<CloudPaymentsNotification, KindRule>> = {
  check: { mismatch: refundFields },
  pay: {
    type: (status, operation) =>
      !isPayment(operation)
        ? undefined
        : status === 'Completed'
          ? 'payment.succeeded'
          : status === 'Authorized'
            ? 'payment.authorized'
            : undefined,
    mismatch: refundFields,
  },
  fail: {
    type: (_status, operation) => (isPayment(operation) ? 'payment.failed' : undefined),
    mismatch: (fields) => refundFields(fields) ?? succeededStatus(fields),
  },
  confirm: {
    mismatch: (fields) =>
      refundFields(fields) ??
      (textOf(fields, 'Status') === 'Authorized' ? 'its Status is Authorized' : undefined),
  },
  refund: {
    mismatch: (fields) =>
      textOf(fields, 'PaymentTransactionId') === undefined
        ? 'it has no PaymentTransactionId'
        : undefined,
  },
  recurrent: {
    mismatch: (fields) =>
      textOf(fields, 'TransactionId') !== undefined ? 'it carries a TransactionId' : undefined,
  },
  cancel: {
    mismatch: (fields) => refundFields(fields) ?? succeededStatus(fields),
  },
};

/** The kinds whose type their body does not change. */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  confirm: 'payment.succeeded',
  refund: 'refund.succeeded',
  cancel: 'payment.canceled',
};

/**
 * The acknowledgement CloudPayments reads: `{"code":0}`. For Check it allows the payment; every
 * other notification only needs it to stop repeating.
 */
const CODE_0: WebhookAcknowledgement = Object.freeze({
  status: 200,
  body: '{"code":0}',
  contentType: 'application/json; charset=utf-8',
});

function formBody(payload: CloudPaymentsFields): string {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(payload)) {
    fields[name] = value === null ? '' : String(value);
  }
  return encodeFormBody(fields);
}

function decodedForm(body: string): string {
  return body
    .split('&')
    .map((pair) => decodeURIComponent(pair.replace(/\+/g, ' ')))
    .join('&');
}

/**
 * `Content-HMAC` is the base64 HMAC-SHA256 of the body keyed by the site's API secret,
 * `X-Content-HMAC` the same over the URL-decoded form body (the body itself when it is JSON).
 * Either one matching is enough.
 */
const CONTENT_HMAC_SIGNATURE: SignatureScheme = {
  verify(request, secrets) {
    const sent = [CONTENT_HMAC, X_CONTENT_HMAC]
      .map((name) => request.headers[name]?.trim())
      .filter((value): value is string => value !== undefined && value !== '');
    if (sent.length === 0) {
      throw new WebhookVerificationError('missing_signature', 'Missing Content-HMAC header');
    }
    const candidates = sent.filter((value) => BASE64_SHA256.test(value));
    if (candidates.length === 0) {
      throw new WebhookVerificationError(
        'bad_signature',
        'Malformed Content-HMAC header: expected 44 characters of base64',
      );
    }
    const decoded = decodedFormText(request.rawBody);
    const signedForms = decoded === undefined ? [request.rawBody] : [request.rawBody, decoded];
    const expected = secrets.flatMap((secret) =>
      signedForms.map((form) => hmacSha256(secret, [form]).toString('base64')),
    );
    if (!constantTimeMatchAny(expected, candidates)) {
      throw new WebhookVerificationError(
        'bad_signature',
        'Content-HMAC does not match the body and the API secret (apiSecret is the site’s ' +
          '"Пароль для API" in the CloudPayments back office)',
      );
    }
  },
  sign(body, secret) {
    const json = body.trimStart().startsWith('{');
    const sign = (text: string) => hmacSha256(secret, [text]).toString('base64');
    return {
      'content-type': json ? 'application/json' : 'application/x-www-form-urlencoded',
      [CONTENT_HMAC]: sign(body),
      [X_CONTENT_HMAC]: sign(json ? body : decodedForm(body)),
    };
  },
};

/** A notification's parameters, as the signer takes them. */
type CloudPaymentsFields = Readonly<Record<string, string | number | boolean | null>>;

/** A notification's body: the parameters in the site's format, or the exact text given. */
export function notificationBody(
  payload: CloudPaymentsFields | string,
  format?: 'form' | 'json',
): string {
  if (typeof payload === 'string') return payload;
  return format === 'json' ? JSON.stringify(payload) : formBody(payload);
}

/** The notification kind, if the options give one CloudPayments sends, or a startup error. */
function checkNotification(endpointName: unknown, notification: unknown): void {
  if (!CLOUDPAYMENTS_NOTIFICATIONS.some((kind) => kind === notification)) {
    throw new WebhookConfigurationError(
      `${endpointLabel(endpointName, KIND)} has no usable notification (got ${JSON.stringify(notification)}): ` +
        `set it to the notification whose URL points at this endpoint, one of ${CLOUDPAYMENTS_NOTIFICATIONS.join(', ')}; ` +
        'CloudPayments posts each kind to its own URL and the body does not say which it is.',
    );
  }
}

/** The site's currency, upper case, or a startup error. */
function defaultCurrencyOf(options: CloudPaymentsProviderOptions, endpointName: unknown): string {
  const currency = options.defaultCurrency ?? 'RUB';
  if (typeof currency !== 'string' || currencyExponent(currency) === undefined) {
    throw new WebhookConfigurationError(
      `${endpointLabel(endpointName, KIND)}: defaultCurrency must be an ISO 4217 code such as "RUB" ` +
        `(got ${JSON.stringify(currency)}); it is the site's currency, used for Refund and Cancel.`,
    );
  }
  return currency.toUpperCase();
}

/** An endpoint's reader of the notifications of its kind, verifying with the definition. */
class CloudPaymentsWebhookProvider implements WebhookProvider {
  readonly kind = KIND;
  /** `{"code":0}` as JSON. */
  readonly acknowledgement: WebhookAcknowledgement = CODE_0;

  constructor(
    private readonly secrets: readonly string[],
    private readonly notification: CloudPaymentsNotification,
    private readonly defaultCurrency: string,
  ) {}

  verify(request: InboundWebhook): void {
    CONTENT_HMAC_SIGNATURE.verify(request, this.secrets);
  }

  /**
   * Parses a notification of the endpoint's kind and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError when the body is malformed, lacks its id, or cannot be a
   * notification of the endpoint's kind.
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const fields = readNotification(request.rawBody);
    const kind = this.notification;
    const rule = KIND_RULES[kind];
    const mismatch = rule.mismatch(fields);
    if (mismatch !== undefined) {
      throw new WebhookPayloadError(
        `${WHAT} is not valid: this endpoint receives ${kind} notifications, but ${mismatch}`,
      );
    }
    const status = textOf(fields, 'Status');
    const operation = textOf(fields, 'OperationType');
    const type =
      rule.type?.(status, operation) ?? ownValue(EVENT_TYPES, kind) ?? (`${KIND}:${kind}` as const);
    if (kind === 'recurrent') {
      return { ...this.subscription(fields, status), type, nativeType: kind };
    }
    const transactionId = requireId(fields, 'TransactionId');
    const currency = Object.hasOwn(fields, 'Currency')
      ? toCurrency(fields.Currency)
      : this.defaultCurrency;
    const occurredAt = dateTimeOf(fields);
    return {
      // NOTE: the refund and the payment have ids of their own; Status and OperationType keep a
      // payment's Authorized Pay apart from its Completed one, should both come to one URL.
      eventId: `${kind}:${transactionId}:${operation ?? ''}:${status ?? ''}`,
      type,
      nativeType: kind,
      paymentRef: kind === 'refund' ? textOf(fields, 'PaymentTransactionId') : transactionId,
      merchantRef: textOf(fields, 'InvoiceId'),
      amount: minorUnitsOf(fields, currency),
      currency,
      status,
      occurredAt,
      // NOTE: the HMAC covers the whole body, DateTime included, and no delivery time is signed.
      occurredAtSigned: occurredAt !== undefined,
      payload: fields,
    };
  }

  /**
   * A Recurrent notification: a subscription changed. Its key tells apart two changes to the same
   * status (Active, PastDue, Active) by the counts of successful and failed payments.
   */
  private subscription(
    fields: JsonObject,
    status: string | undefined,
  ): Omit<NormalizedNotification, 'type' | 'nativeType'> {
    const id = requireId(fields, 'Id');
    const successful = textOf(fields, 'SuccessfulTransactionsNumber') ?? '';
    const failed = textOf(fields, 'FailedTransactionsNumber') ?? '';
    const currency = toCurrency(fields.Currency);
    return {
      eventId: `recurrent:${id}:${status ?? ''}:${successful}:${failed}`,
      amount: minorUnitsOf(fields, currency),
      currency,
      status,
      payload: fields,
    };
  }
}

/**
 * CloudPayments notifications (Check, Pay, Fail, Confirm, Refund, Recurrent, Cancel), form-encoded
 * or JSON, signed in `Content-HMAC` and `X-Content-HMAC`. The body names no kind of notification:
 * each endpoint receives one, set by `notification`.
 */
export const cloudPaymentsProvider = defineProvider<CloudPaymentsProviderOptions>({
  kind: KIND,
  name: 'CloudPayments',
  // NOTE: no retryHorizon: the API reference read for this provider gives no retry schedule, so
  // dedup keys keep the package's 7-day minimum (see docs/providers/cloudpayments.md).
  secrets: {
    option: 'apiSecret',
    howToCopy:
      'Copy the API secret ("Пароль для API") from the site’s settings in the CloudPayments back office',
  },
  checkOptions: (options, endpointName) => checkNotification(endpointName, options.notification),
  signature: CONTENT_HMAC_SIGNATURE,
  acknowledgement: CODE_0,
  types: EVENT_TYPES,
  create: (options, endpointName, secrets) =>
    new CloudPaymentsWebhookProvider(
      secrets,
      options.notification,
      defaultCurrencyOf(options, endpointName),
    ),
  cli: {
    title: 'CloudPayments (Content-HMAC)',
    secret: "the site's API secret",
    payload:
      'the notification parameters as one JSON object (send them to the endpoint of their kind)',
    flags: [
      {
        name: 'notification',
        value: '<name>',
        help: `the endpoint's notification (${CLOUDPAYMENTS_NOTIFICATIONS.join(', ')}), which starts the event's id (default none: no id)`,
      },
      {
        name: 'format',
        value: '<form|json>',
        help: "the body's format as the site's notification settings choose it (default form)",
      },
    ],
    sign: (input): SignedDelivery =>
      // NOTE: without --notification no endpoint reads the body, and the delivery has no id.
      cloudPaymentsProvider.signed(
        notificationBody(
          jsonObject(KIND, input, 'the notification parameters') as CloudPaymentsFields,
          oneOf('format', input.options.format, ['form', 'json'] as const),
        ),
        requireSecret(KIND, input),
        undefined,
        {
          notification: oneOf(
            'notification',
            input.options.notification,
            CLOUDPAYMENTS_NOTIFICATIONS,
          ),
        },
      ),
  },
  sample: {
    secret: 'cp_sample_api_secret_0000',
    body: '{"TransactionId":7,"InvoiceId":"order-7","Amount":"1.00","Currency":"RUB","Status":"Completed"}',
    options: { notification: 'confirm' },
    flags: { notification: 'confirm' },
  },
});

/**
 * A CloudPayments notification endpoint for one kind of notification: give its URL
 * `https://<host>/<path>/<name>` to that notification in the site's settings (format
 * CloudPayments, UTF-8, POST).
 * @throws WebhookConfigurationError at startup when the API secret, the notification or the
 * default currency cannot work.
 * @example
 * cloudPaymentsEndpoint({
 *   name: 'cloudpayments-pay',
 *   notification: 'pay',
 *   apiSecret: process.env.CLOUDPAYMENTS_API_SECRET!,
 * })
 */
export function cloudPaymentsEndpoint(options: CloudPaymentsEndpointOptions): WebhookEndpoint {
  return cloudPaymentsProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
cloudPaymentsEndpoint.kind = KIND;
