import { SberStatusClient, SberStatusClientOptions } from './sber-status.client';
import {
  KeyObject,
  X509Certificate,
  createPublicKey,
  verify as verifySignature,
} from 'node:crypto';
import { constantTimeIncludes } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { PaymentEventType } from '../../core/payment-event-types';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import {
  assertAcknowledgedWith200,
  defineEndpoint,
  plainTextAcknowledgement,
  requireSecrets,
} from '../define-endpoint';
import { FormFields, parseFormBody } from '../form-body';
import { endpointLabel, exactly200AcknowledgementMessage } from '../providers.messages';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookDeliveryMethod,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { ownValue } from '../../core/own-value';

const KIND = 'sber';
const WHAT = 'Sber callback';
const CHECKSUM = 'checksum';
const SIGN_ALIAS = 'sign_alias';
const EVEN_HEX = /^(?:[0-9a-fA-F]{2})+$/;
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

/** Options of the Sber protocol, shared by `sberEndpoint()` and `SberWebhookProvider`. */
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

/**
 * Maps `operation` and `status` (`'1'` success, `'0'` failure) to a normalized type, or
 * undefined when the pair has no normalized meaning.
 */
function mapSberOperation(operation: string, succeeded: boolean): PaymentEventType | undefined {
  switch (operation) {
    case 'deposited':
      return succeeded ? 'payment.succeeded' : 'payment.failed';
    case 'approved':
      return succeeded ? 'payment.authorized' : 'payment.failed';
    case 'reversed':
      // NOTE: a failed reversal leaves the payment as it was, so it is no cancellation.
      return succeeded ? 'payment.canceled' : undefined;
    case 'refunded':
      return succeeded ? 'refund.succeeded' : 'refund.failed';
    case 'declinedByTimeout':
      return 'payment.failed';
    default:
      return undefined;
  }
}

/**
 * Sber acquiring callbacks (the RBS/BPC gateway): the notification is a set of parameters, in the
 * query string of a GET or in a form-encoded POST body. `checksum` is computed over the other
 * parameters (without `sign_alias`) sorted by name and written as `name;value;`: HMAC-SHA256 keyed
 * by the callback token as upper-case hex, or an RSA SHA-512 signature as hex. There is no event
 * id and no timestamp; the dedup key is `${mdOrder}:${operation}:${status}`, and for `refunded`
 * also what tells one order's partial refunds apart (see `refundDiscriminator`).
 */
export class SberWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Sber counts exactly HTTP 200 as delivered; the body is not read. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** GET by default; POST when the merchant switched callbacks to POST. */
  readonly methods: readonly WebhookDeliveryMethod[] = Object.freeze(['GET', 'POST'] as const);

  private readonly tokens: readonly string[];
  private readonly publicKeys: readonly KeyObject[];
  private readonly allowUnsigned: boolean;

  private get checksChecksums(): boolean {
    return this.tokens.length > 0 || this.publicKeys.length > 0;
  }

  /**
   * @param options the Sber options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when neither a usable `callbackToken` nor a usable
   * `publicKey` is given (and unsigned callbacks are not allowed), or an option is malformed.
   */
  constructor(options: SberProviderOptions, endpointName = KIND) {
    const allowUnsigned: unknown = options?.allowUnsigned ?? false;
    if (typeof allowUnsigned !== 'boolean') {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)}: allowUnsigned must be true or false.`,
      );
    }
    this.allowUnsigned = allowUnsigned;
    this.tokens =
      options?.callbackToken === undefined
        ? []
        : requireSecrets(endpointName, KIND, 'callbackToken', options.callbackToken);
    this.publicKeys =
      options?.publicKey === undefined ? [] : loadPublicKeys(endpointName, options.publicKey);
    if (this.tokens.length === 0 && this.publicKeys.length === 0 && !allowUnsigned) {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)} has neither callbackToken nor publicKey: set ` +
          'callbackToken to the callback token Sber issued for the symmetric checksum, or ' +
          "publicKey to the bank's certificate for the asymmetric one (switch callback " +
          "checksums on with Sber's support if callbacks arrive without a checksum).",
      );
    }
  }

  /**
   * Recomputes `checksum` over the callback's other parameters.
   * @throws WebhookVerificationError when `checksum` is missing (and unsigned callbacks are not
   * allowed), malformed or does not match.
   * @throws WebhookPayloadError when the parameters are not valid form encoding or a name repeats.
   */
  verify(request: InboundWebhook): void {
    const fields = parseFormBody(request.rawBody, WHAT);
    const checksum = fields[CHECKSUM];
    if (checksum === undefined || checksum === '') {
      if (this.allowUnsigned) {
        return;
      }
      throw new WebhookVerificationError(
        'missing_signature',
        'Sber callback has no checksum parameter',
      );
    }
    if (!this.checksChecksums) {
      // NOTE: only reachable with allowUnsigned and no key: there is nothing to check against.
      return;
    }
    if (!EVEN_HEX.test(checksum)) {
      throw new WebhookVerificationError(
        'bad_signature',
        'Malformed checksum in the Sber callback: expected hex digits',
      );
    }
    const signed = Buffer.from(checksumString(fields), 'utf8');
    const symmetric = this.tokens.map((token) =>
      hmacSha256(token, [signed]).toString('hex').toUpperCase(),
    );
    const matches =
      constantTimeIncludes(symmetric, checksum.toUpperCase()) ||
      this.publicKeys.some((key) => rsaSha512Verifies(key, signed, checksum));
    if (!matches) {
      throw new WebhookVerificationError(
        'bad_signature',
        'checksum does not match the Sber callback parameters and the configured key',
      );
    }
  }

  /**
   * Parses a Sber callback and maps `operation` and `status` to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
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
    return {
      eventId,
      type: mapSberOperation(operation, status === '1') ?? `${KIND}:${operation}`,
      nativeType: operation,
      paymentRef: mdOrder,
      merchantRef: nonEmpty(fields.orderNumber),
      amount,
      currency: amount === undefined ? undefined : currencyOf(fields.currency),
      status,
      occurredAt: dateOf(fields.callbackCreationDate),
      // NOTE: the checksum covers callbackCreationDate, when verify() had a key to check it with.
      occurredAtSigned: this.checksChecksums && nonEmpty(fields[CHECKSUM]) !== undefined,
      payload: fields,
    };
  }
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

/** The string the checksum covers: parameters but `checksum` and `sign_alias`, as `name;value;`. */
function checksumString(fields: FormFields): string {
  return Object.keys(fields)
    .filter((name) => name !== CHECKSUM && name !== SIGN_ALIAS)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `${name};${fields[name]};`)
    .join('');
}

function rsaSha512Verifies(key: KeyObject, signed: Buffer, checksum: string): boolean {
  try {
    return verifySignature('sha512', signed, key, Buffer.from(checksum, 'hex'));
  } catch {
    // NOTE: a signature of the wrong length for the key is a mismatch, not a server error.
    return false;
  }
}

function loadPublicKeys(endpointName: string, value: string | readonly string[]): KeyObject[] {
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  if (list.length === 0) {
    throw new WebhookConfigurationError(publicKeyMessage(endpointName, 'is an empty list'));
  }
  return list.map((entry, index) => {
    const which = list.length > 1 ? `publicKey[${index}]` : 'publicKey';
    const key = typeof entry === 'string' ? parsePublicKey(entry.trim()) : undefined;
    if (key === undefined) {
      throw new WebhookConfigurationError(
        publicKeyMessage(endpointName, `(${which}) is unreadable`),
      );
    }
    if (key.asymmetricKeyType !== 'rsa') {
      throw new WebhookConfigurationError(
        publicKeyMessage(endpointName, `(${which}) is not an RSA key`),
      );
    }
    return key;
  });
}

/** A public key from PEM (key or certificate) or from bare base64 DER (certificate or SPKI). */
function parsePublicKey(text: string): KeyObject | undefined {
  try {
    if (text.includes('-----BEGIN')) {
      return createPublicKey(text);
    }
    const der = Buffer.from(text.replace(/\s+/g, ''), 'base64');
    try {
      return new X509Certificate(der).publicKey;
    } catch {
      return createPublicKey({ key: der, format: 'der', type: 'spki' });
    }
  } catch {
    return undefined;
  }
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

function publicKeyMessage(name: unknown, problem: string): string {
  return (
    `${endpointLabel(name, KIND)}: publicKey ${problem}; give the bank's callback certificate or ` +
    'public key as PEM ("-----BEGIN CERTIFICATE-----" or "-----BEGIN PUBLIC KEY-----") or as ' +
    'the bare base64 of the DER certificate, one string per key.'
  );
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
  const provider = new SberWebhookProvider(options, options?.name);
  if (options.allowUnsigned === true && options.verifyWithProvider !== true) {
    throw new WebhookConfigurationError(sberUnsignedMessage(options.name));
  }
  assertAcknowledgedWith200(options, (status) => sberAcknowledgementMessage(options.name, status));
  return defineEndpoint(options, provider, {
    statusClient: options.api && new SberStatusClient(options.api),
  });
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
sberEndpoint.kind = 'sber';
/** Sber also calls back with GET, the notification in the query string. */
sberEndpoint.methods = ['GET', 'POST'] as const;
