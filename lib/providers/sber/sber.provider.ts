import { createPublicKey, KeyObject } from 'node:crypto';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError, WebhookPayloadError } from '../../core/webhook-errors';
import { withEventIds } from '../delivery-event-ids';
import { assertAcknowledgedWith200 } from '../define-endpoint';
import { defineProvider } from '../define-provider';
import { encodeFormBody, FormFields, parseFormBody } from '../form-body';
import { endpointLabel, exactly200AcknowledgementMessage } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { formFields, oneOf, SigningInputError } from '../signing-input';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';
import { SberStatusClient, SberStatusClientOptions } from './sber-status.client';
import { loadPublicKeys, sberChecksum, SberChecksumKey, sberChecksumScheme } from './sber-checksum';

const KIND = 'sber';
const WHAT = 'Sber callback';
const DIGITS = /^\d+$/;
const ALPHA_CURRENCY = /^[A-Za-z]{3}$/;

/** ISO 4217 numeric codes the gateway may send, with their letter codes. */
const NUMERIC_CURRENCIES: Readonly<Record<string, string>> = {
  '643': 'RUB',
  '840': 'USD',
  '978': 'EUR',
  '156': 'CNY',
  '933': 'BYN',
  '398': 'KZT',
};

/** Options of the Sber protocol, shared by `sberEndpoint()` and its provider. */
export interface SberProviderOptions {
  /**
   * The callback token for the symmetric checksum (HMAC-SHA256), issued by Sber's support or
   * shown in the merchant settings when callback checksums are switched on. Pass a list while
   * changing it: a callback is accepted when any of them matches. Required unless `publicKey`
   * is given.
   */
  callbackToken?: string | readonly string[];
  /**
   * The bank's public key or certificate for the asymmetric checksum (RSA with SHA-512), as PEM
   * (`-----BEGIN PUBLIC KEY-----` or `-----BEGIN CERTIFICATE-----`) or as the bare base64 of the
   * DER certificate the bank hands out. Pass a list while the bank renews its certificate.
   * Required unless `callbackToken` is given.
   */
  publicKey?: string | readonly string[];
  /**
   * Accepts callbacks that carry no `checksum` (Sber sends them when checksums are not
   * switched on for the merchant). Such a callback proves nothing, so the endpoint must also
   * set `verifyWithProvider: true`, and handlers act on the status Sber's API returns.
   * With neither `callbackToken` nor `publicKey`, a checksum that is present is not checked.
   * @default false
   */
  allowUnsigned?: boolean;
}

/** Options of `sberEndpoint()`. */
export interface SberEndpointOptions extends BaseEndpointOptions, SberProviderOptions {
  /**
   * Sber API account for "ask the provider" (`getOrderStatusExtended.do`): `userName` and
   * `password` of the shop's API user, or a `token`.
   * @example api: { userName: 'shop-api', password: process.env.SBER_API_PASSWORD! }
   */
  api?: SberStatusClientOptions;
}

/** What the provider reads: the Sber options, the status API and what the endpoint answers. */
type SberOptions = SberProviderOptions &
  Pick<SberEndpointOptions, 'api' | 'verifyWithProvider' | 'acknowledgement'>;

/** What a successful (`status` `'1'`) operation means; other operations are `sber:<operation>`. */
const SBER_TYPES: Readonly<Record<string, PaymentEventType>> = {
  deposited: 'payment.succeeded',
  approved: 'payment.authorized',
  reversed: 'payment.canceled',
  refunded: 'refund.succeeded',
  declinedByTimeout: 'payment.failed',
};

/**
 * What a failed (`status` `'0'`) operation means.
 * NOTE: a failed reversal leaves the payment as it was, so it is no cancellation (`sber:reversed`).
 */
const SBER_FAILED_TYPES: Readonly<Record<string, PaymentEventType>> = {
  deposited: 'payment.failed',
  approved: 'payment.failed',
  refunded: 'refund.failed',
  declinedByTimeout: 'payment.failed',
};

/**
 * Sber acquiring callbacks (the RBS/BPC gateway): the notification is a set of parameters, in the
 * query string of a GET or in a form-encoded POST body. `checksum` is computed over the other
 * parameters (without `sign_alias`) sorted by name and written as `name;value;`: HMAC-SHA256 keyed
 * by the callback token as upper-case hex, or an RSA SHA-512 signature as hex. There is no event
 * id and no timestamp; the dedup key is `${mdOrder}:${operation}:${status}`, and for `refunded`
 * also what tells one order's partial refunds apart (see `refundDiscriminator`).
 */
export const sberProvider = defineProvider<SberOptions>({
  kind: KIND,
  name: 'Sber',
  retryHorizon: {
    days: 1,
    documented: 'every 30 s until answered or 3 consecutive failures (gateway default)',
  },
  // NOTE: optional, since the bank's certificate (publicKey) may stand in for the token.
  secrets: {
    option: 'callbackToken',
    optional: true,
    howToCopy: "Copy the callback token as Sber's support or the merchant settings give it,",
  },
  checkOptions(options, endpointName) {
    const allowUnsigned: unknown = options?.allowUnsigned ?? false;
    if (typeof allowUnsigned !== 'boolean') {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)}: allowUnsigned must be true or false.`,
      );
    }
    const publicKeys =
      options?.publicKey === undefined ? [] : loadPublicKeys(endpointName, options.publicKey);
    if (options?.callbackToken === undefined && publicKeys.length === 0 && !allowUnsigned) {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)} has neither callbackToken nor publicKey: set ` +
          'callbackToken to the callback token Sber issued for the symmetric checksum, or ' +
          "publicKey to the bank's certificate for the asymmetric one (switch callback " +
          "checksums on with Sber's support if callbacks arrive without a checksum).",
      );
    }
    if (allowUnsigned && options.verifyWithProvider !== true) {
      throw new WebhookConfigurationError(sberUnsignedMessage(endpointName));
    }
    assertAcknowledgedWith200(options as BaseEndpointOptions, (status) =>
      sberAcknowledgementMessage(endpointName, status),
    );
  },
  signature: (options) =>
    sberChecksumScheme(
      options?.publicKey === undefined ? [] : loadPublicKeys(KIND, options.publicKey),
      options?.allowUnsigned === true,
    ),
  // NOTE: Sber counts exactly HTTP 200 as delivered; the body is not read (the default answer).
  // GET by default; POST when the merchant switched callbacks to POST.
  protocol: { methods: Object.freeze(['GET', 'POST'] as const) },
  types: SBER_TYPES,
  eventName: WHAT,
  normalize({ request, options }) {
    const fields = parseFormBody(request.rawBody, WHAT);
    const mdOrder = requireField(fields, 'mdOrder');
    const operation = requireField(fields, 'operation');
    const status = requireField(fields, 'status');
    if (status !== '0' && status !== '1') {
      throw new WebhookPayloadError(
        `${WHAT} is not valid: status must be "1" (success) or "0" (failure)`,
      );
    }
    const isRefund = operation === 'refunded';
    // NOTE: `amount` is the order's registered amount; a refund's own is operationRefundedAmount.
    const amount = wholeNumber(fields, isRefund ? 'operationRefundedAmount' : 'amount');
    const refundedAmount = wholeNumber(fields, 'refundedAmount');
    let eventId = `${mdOrder}:${operation}:${status}`;
    const refund = isRefund ? refundDiscriminator(fields, refundedAmount) : undefined;
    if (refund !== undefined) {
      eventId += `:${refund}`;
    }
    // NOTE: the startup checks refuse a callbackToken or publicKey that is given but unusable.
    const checksChecksums =
      options?.callbackToken !== undefined || options?.publicKey !== undefined;
    return {
      eventId,
      ...(status === '1'
        ? {}
        : { type: ownValue(SBER_FAILED_TYPES, operation) ?? `${KIND}:${operation}` }),
      nativeType: operation,
      paymentRef: mdOrder,
      merchantRef: nonEmpty(fields.orderNumber),
      amount,
      currency: amount === undefined ? undefined : currencyOf(fields.currency),
      status,
      occurredAt: dateOf(fields.callbackCreationDate),
      // NOTE: the checksum covers callbackCreationDate, when verify() had a key to check it with.
      occurredAtSigned: checksChecksums && nonEmpty(fields.checksum) !== undefined,
      payload: fields,
    };
  },
  extras: (options) => ({ statusClient: options.api && new SberStatusClient(options.api) }),
  cli: {
    title: 'Sber (callback with checksum)',
    secret: 'the callback token (symmetric checksum); or give --private-key instead',
    secretAlternative: 'private-key',
    payload: 'the callback parameters as a flat object, without checksum',
    flags: [
      {
        name: 'method',
        value: 'GET|POST',
        help: 'GET puts the parameters in the query string, POST in a form body (default GET)',
      },
      {
        name: 'private-key',
        value: '<pem file>',
        help: 'RSA private key for the asymmetric checksum (RSA SHA-512), instead of --secret',
      },
    ],
    sign: (input) => {
      const privateKeyFile = input.options['private-key'];
      if ((input.secret === undefined) === (privateKeyFile === undefined)) {
        throw new SigningInputError(
          '--provider sber needs exactly one of --secret (callback token) and --private-key',
        );
      }
      return sberCallback(
        formFields(KIND, input, 'the callback parameters'),
        privateKeyFile === undefined
          ? { callbackToken: input.secret as string }
          : { privateKey: input.readFile('private-key') },
        oneOf('method', input.options.method?.toUpperCase(), ['GET', 'POST'] as const),
      );
    },
  },
  sample: {
    secret: 'ooc7slpvc61k7sf7ma7p4hrefr',
    otherSecret: 'sber_previous_callback_token',
    body: JSON.stringify({
      mdOrder: '06cf5599-3f17-7c86-bdbc-bd7d00a8b38b',
      orderNumber: '2003',
      operation: 'deposited',
      status: '1',
      amount: '19200',
    }),
    withoutSignature: (delivery) => {
      const { checksum: _checksum, ...fields } = parseFormBody(Buffer.from(delivery.body), WHAT);
      return { ...delivery, body: encodeFormBody(fields) };
    },
  },
});

/**
 * A callback exactly as the Sber gateway sends it: the parameters with `checksum` appended, in
 * the query string (GET, the body of the delivery is the query string without `?`) or as a
 * form-encoded POST body, with the id the endpoint stores it under.
 */
export function sberCallback(
  payload: Readonly<Record<string, string>>,
  key: SberChecksumKey,
  method: 'GET' | 'POST' = 'GET',
): SignedDelivery {
  const { checksum: _ignored, ...fields } = payload;
  const delivery: SignedDelivery = {
    provider: KIND,
    method,
    body: encodeFormBody({ ...fields, checksum: sberChecksum(fields, key) }),
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
  };
  const verifier =
    'callbackToken' in key
      ? { callbackToken: key.callbackToken }
      : { publicKey: publicKeyPem(key.privateKey) };
  return withEventIds(delivery, () => sberProvider.provider(verifier));
}

/** The PEM public key of a private key: what the receiving endpoint checks the checksum with. */
function publicKeyPem(privateKey: string | KeyObject): string {
  return createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
}

/**
 * What tells the partial refunds of one order apart, from the first of these parameters the
 * callback carries (each is an extra the merchant has Sber switch on):
 * - `refundedAmount`, the order's refunded total, which grows with every refund;
 * - `externalRefundId`, the id the merchant gave the refund;
 * - `refundedDate`, when the order was last refunded;
 * - `callbackCreationDate`, when the gateway created this callback.
 * All of them are the same on every retry of one callback, which the gateway repeats unchanged.
 * Without any, two refunds of one order share the key `${mdOrder}:refunded:${status}`.
 */
function refundDiscriminator(
  fields: FormFields,
  refundedAmount: number | undefined,
): string | undefined {
  if (refundedAmount !== undefined) {
    return String(refundedAmount);
  }
  return (
    nonEmpty(fields.externalRefundId) ??
    nonEmpty(fields.refundedDate) ??
    nonEmpty(fields.callbackCreationDate)
  );
}

function requireField(fields: FormFields, name: string): string {
  const value = fields[name];
  if (value === undefined || value === '') {
    throw new WebhookPayloadError(`${WHAT} is not valid: ${name} is missing or empty`);
  }
  return value;
}

/**
 * A whole number of minor units, when the parameter is present.
 * @throws WebhookPayloadError when it is present but not a whole, non-negative number.
 */
function wholeNumber(fields: FormFields, name: string): number | undefined {
  const value = fields[name];
  if (value === undefined || value === '') {
    return undefined;
  }
  const number = DIGITS.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(number)) {
    throw new WebhookPayloadError(
      `${WHAT} is not valid: ${name} must be a whole, non-negative number of kopecks`,
    );
  }
  return number;
}

/** The letter code of a `currency` parameter (letters or ISO numeric); roubles when absent. */
function currencyOf(value: string | undefined): string | undefined {
  if (value === undefined || value === '') {
    return 'RUB';
  }
  if (ALPHA_CURRENCY.test(value)) {
    return value.toUpperCase();
  }
  return ownValue(NUMERIC_CURRENCIES, value.padStart(3, '0'));
}

/** `callbackCreationDate` (e.g. `Mon Jan 31 21:46:52 UTC 2022`), when it parses. */
function dateOf(value: string | undefined): Date | undefined {
  if (value === undefined || value === '') {
    return undefined;
  }
  const millis = Date.parse(value);
  return Number.isNaN(millis) ? undefined : new Date(millis);
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** A Sber endpoint allows unsigned callbacks without asking Sber's API about them. */
export function sberUnsignedMessage(name: unknown): string {
  return (
    `${endpointLabel(name, KIND)}: allowUnsigned needs verifyWithProvider: true, because a callback ` +
    "without a checksum proves nothing and only Sber's API can confirm the payment; set " +
    'verifyWithProvider: true with the API credentials, or switch callback checksums on with ' +
    "Sber's support and set callbackToken instead of allowUnsigned."
  );
}

/** A Sber endpoint was configured to answer something Sber counts as a failed delivery. */
export function sberAcknowledgementMessage(name: unknown, status: unknown): string {
  return exactly200AcknowledgementMessage(name, KIND, status, 'Sber repeat every callback');
}

/**
 * A Sber acquiring callback endpoint, answering GET and POST: give Sber the callback URL
 * `https://<host>/<path>/<name>`.
 * @throws WebhookConfigurationError at startup when neither a usable `callbackToken` nor a usable
 * `publicKey` is given, when `allowUnsigned` is set without `verifyWithProvider: true`, or when
 * `acknowledgement.status` is set to anything but 200.
 * @example
 * sberEndpoint({ name: 'sber', callbackToken: process.env.SBER_CALLBACK_TOKEN! })
 */
export function sberEndpoint(options: SberEndpointOptions): WebhookEndpoint {
  return sberProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
sberEndpoint.kind = KIND;
/** Sber also calls back with GET, the notification in the query string. */
sberEndpoint.methods = ['GET', 'POST'] as const;
