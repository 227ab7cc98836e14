import { createHash } from 'node:crypto';
import { constantTimeIncludes } from '../../core/constant-time';
import { currencyExponent, toMinorUnits } from '../../core/minor-units';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import {
  assertAcknowledgedWith200,
  plainTextAcknowledgement,
  requireSecrets,
} from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { encodeFormBody, FormFields, parseFormBody } from '../form-body';
import { endpointLabel, exactly200AcknowledgementMessage } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { formFields, oneOf, requireSecret } from '../signing-input';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';

const KIND = 'robokassa';
const WHAT = 'Robokassa ResultURL notification';
const NATIVE_TYPE = 'result';
const USER_PARAMETER = /^shp_/i;

/** The hash Robokassa computes `SignatureValue` with, as chosen in the shop's technical settings. */
export type RobokassaHashAlgorithm = 'md5' | 'sha1' | 'sha256' | 'sha384' | 'sha512';

/**
 * The hash functions a shop can choose in Robokassa's technical settings, by hex length.
 * NOTE: typed by `RobokassaHashAlgorithm` rather than the type derived from it, as the entries
 * that export the type do not export this table.
 */
const HEX_LENGTHS: Readonly<Record<RobokassaHashAlgorithm, number>> = {
  md5: 32,
  sha1: 40,
  sha256: 64,
  sha384: 96,
  sha512: 128,
};

/** Options of the Robokassa protocol, shared by `robokassaEndpoint()` and the provider. */
export interface RobokassaProviderOptions {
  /**
   * Password #2 of the shop (Robokassa back office: Мои магазины → the shop → Технические
   * настройки → Пароль #2), which Robokassa hashes into the ResultURL `SignatureValue`. Pass a
   * list while changing it: a notification is accepted when any of them matches. Required.
   */
  password2: string | readonly string[];
  /**
   * The test Password #2 (same page, "Параметры проведения тестовых платежей"). Only
   * notifications with `IsTest=1` are checked against it, and only these; without it a test
   * notification is refused. Set it on an endpoint for testing, not on the live one: a test
   * payment is delivered as `payment.succeeded` like any other.
   * @default none: test notifications are refused
   */
  testPassword2?: string | readonly string[];
  /**
   * The hash algorithm chosen in the shop's technical settings ("Алгоритм расчета хеша").
   * @default 'md5'
   */
  hashAlgorithm?: RobokassaHashAlgorithm;
  /**
   * The ISO 4217 code of `OutSum`: the shop's currency (`KZT` for a shop of Robokassa
   * Kazakhstan).
   * @default 'RUB'
   */
  currency?: string;
}

/** Options of `robokassaEndpoint()`. */
export interface RobokassaEndpointOptions extends BaseEndpointOptions, RobokassaProviderOptions {}

/**
 * What Robokassa's ResultURL `SignatureValue` hashes: `OutSum:InvId:password`, then
 * `:Shp_name=value` for each user parameter (`Shp_…`, any case), sorted by name.
 */
export function robokassaSignatureBase(
  payload: Readonly<Record<string, string>>,
  password2: string,
): string {
  const user = Object.keys(payload)
    .filter((name) => USER_PARAMETER.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `:${name}=${payload[name]}`)
    .join('');
  return `${payload.OutSum}:${payload.InvId}:${password2}${user}`;
}

/** `SignatureValue` in lowercase hex, one definition for verifying and signing. */
function robokassaHash(
  payload: Readonly<Record<string, string>>,
  password: string,
  algorithm: RobokassaHashAlgorithm,
): string {
  return createHash(algorithm)
    .update(robokassaSignatureBase(payload, password), 'utf8')
    .digest('hex');
}

/**
 * A ResultURL notification as Robokassa sends it: `payload` (without a `SignatureValue` of its
 * own) with `SignatureValue` (upper-case hex) appended, as a form POST or a GET query string, and
 * the ids the endpoint stores it under.
 */
export function robokassaSignedNotification(
  fields: Readonly<Record<string, string>>,
  password2: string,
  hashAlgorithm?: RobokassaHashAlgorithm,
  method: 'GET' | 'POST' = 'POST',
): SignedDelivery {
  const { SignatureValue: _ignored, ...payload } = fields;
  const signature = robokassaHash(payload, password2, hashAlgorithm ?? 'md5').toUpperCase();
  const delivery: SignedDelivery = {
    provider: KIND,
    method,
    body: encodeFormBody({ ...payload, SignatureValue: signature }),
    headers: method === 'POST' ? { 'content-type': 'application/x-www-form-urlencoded' } : {},
  };
  return withEventIds(delivery, () => robokassaProvider.provider({ password2, hashAlgorithm }));
}

/**
 * Robokassa signs inside the parameters (`SignatureValue`), not in a header: the endpoint
 * verifies with `verify`, and `robokassaSignedNotification()` signs with the same
 * `robokassaHash()`. A test notification (`IsTest=1`) is checked against `testPassword2` alone.
 */
function robokassaSignature(options: RobokassaProviderOptions): SignatureScheme {
  const algorithm = options.hashAlgorithm ?? 'md5';
  const testPasswords =
    options.testPassword2 === undefined
      ? []
      : Array.isArray(options.testPassword2)
        ? options.testPassword2
        : [options.testPassword2];
  return {
    verify(request, passwords) {
      const fields = parseFormBody(request.rawBody, WHAT);
      const signature = fields.SignatureValue;
      if (signature === undefined || signature === '') {
        throw new WebhookVerificationError('missing_signature', `${WHAT} has no SignatureValue`);
      }
      const length = HEX_LENGTHS[algorithm];
      if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(signature)) {
        throw new WebhookVerificationError(
          'bad_signature',
          `Malformed SignatureValue: expected ${length} hex digits (${algorithm})`,
        );
      }
      const test = fields.IsTest === '1';
      if (test && testPasswords.length === 0) {
        throw new WebhookVerificationError(
          'bad_signature',
          `${WHAT} is a test payment (IsTest=1) and the endpoint has no testPassword2`,
        );
      }
      requireField(fields, 'OutSum');
      requireField(fields, 'InvId');
      // NOTE: IsTest is not signed; choosing the password by it is safe because a notification
      // moved to the other mode is checked against a password it was not made with.
      const expected = (test ? testPasswords : passwords).map((password) =>
        robokassaHash(fields, password, algorithm),
      );
      if (!constantTimeIncludes(expected, signature.toLowerCase())) {
        throw new WebhookVerificationError(
          'bad_signature',
          `SignatureValue does not match OutSum, InvId, the Shp_ parameters and ${test ? 'testPassword2' : 'password2'} ` +
            `(${algorithm}; check hashAlgorithm against the shop's technical settings)`,
        );
      }
    },
    sign() {
      throw new TypeError(
        'Robokassa signs inside the parameters: sign with robokassaSignedNotification()',
      );
    },
  };
}

/**
 * Robokassa's ResultURL notification: a successful payment, as the query string of a GET or a
 * form-encoded POST (the shop's settings choose). `SignatureValue` is the hex hash of
 * `OutSum:InvId:Password#2`, followed by `:Shp_name=value` for each user parameter, sorted by
 * name. The answer is `OK{InvId}`; `InvId` is the dedup key.
 */
export const robokassaProvider = defineProvider<RobokassaProviderOptions>({
  kind: KIND,
  name: 'Robokassa',
  // NOTE: no retryHorizon: the documentation read for this provider gives no retry schedule, so
  // dedup keys keep the package's 7-day minimum (see docs/providers/robokassa.md).
  secrets: {
    option: 'password2',
    howToCopy:
      "Copy Password #2 from the shop's technical settings in Robokassa " +
      '(Мои магазины → the shop → Технические настройки → Пароль #2)',
    // NOTE: the shop chooses its passwords.
    allowWhitespace: true,
  },
  signature: robokassaSignature,
  /** 200, text: `OK` followed by the notification's InvId (see `acknowledgementBody`). */
  acknowledgement: plainTextAcknowledgement('OK'),
  protocol: {
    /** Robokassa calls ResultURL with GET or POST, as the shop's settings say. */
    methods: Object.freeze(['GET', 'POST'] as const),
    /** `OK` and the InvId of the notification: what Robokassa reads as delivered. */
    acknowledgementBody: (notifications) => `OK${notifications[0]?.merchantRef ?? ''}`,
  },
  types: { [NATIVE_TYPE]: 'payment.succeeded' },
  checkOptions(options: RobokassaEndpointOptions, endpointName) {
    const name = String(endpointName ?? KIND);
    if (options.testPassword2 !== undefined) {
      requireSecrets(name, KIND, 'testPassword2', options.testPassword2);
    }
    const algorithm: unknown = options.hashAlgorithm ?? 'md5';
    if (typeof algorithm !== 'string' || !Object.hasOwn(HEX_LENGTHS, algorithm)) {
      throw new WebhookConfigurationError(
        `${endpointLabel(name, KIND)}: hashAlgorithm must be one of ` +
          `${Object.keys(HEX_LENGTHS).join(', ')} (got ${JSON.stringify(algorithm)}): the ` +
          '"Алгоритм расчета хеша" of the shop’s technical settings in Robokassa.',
      );
    }
    const currency: unknown = options.currency ?? 'RUB';
    if (typeof currency !== 'string' || currencyExponent(currency) === undefined) {
      throw new WebhookConfigurationError(
        `${endpointLabel(name, KIND)}: currency must be an ISO 4217 code such as "RUB" ` +
          `(got ${JSON.stringify(currency)}): the currency of the shop's OutSum.`,
      );
    }
    assertAcknowledgedWith200(options, (status) =>
      robokassaAcknowledgementMessage(options.name, status),
    );
  },
  normalize({ request, options }) {
    const fields = parseFormBody(request.rawBody, WHAT);
    const invId = requireField(fields, 'InvId');
    const outSum = requireField(fields, 'OutSum');
    const currency = (options.currency ?? 'RUB').toUpperCase();
    return {
      // NOTE: Robokassa takes one payment per invoice and repeats the notification unchanged.
      eventId: invId,
      nativeType: NATIVE_TYPE,
      paymentRef: invId,
      merchantRef: invId,
      amount: toMinorUnits(outSum, currency),
      currency,
      status: fields.IsTest === '1' ? 'test' : undefined,
      payload: fields,
    };
  },
  cli: {
    title: 'Robokassa (ResultURL)',
    secret: 'Password #2 of the shop (the test Password #2 for IsTest=1)',
    payload: 'the ResultURL parameters (OutSum, InvId, Shp_…) as one flat JSON object',
    flags: [
      {
        name: 'hash-algorithm',
        value: '<md5|sha1|sha256|sha384|sha512>',
        help: "the shop's hash algorithm (default md5)",
      },
      { name: 'method', value: '<POST|GET>', help: 'how Robokassa calls (default POST)' },
    ],
    sign: (input) =>
      robokassaSignedNotification(
        formFields(KIND, input, 'the ResultURL parameters'),
        requireSecret(KIND, input),
        oneOf('hash-algorithm', input.options['hash-algorithm'], [
          'md5',
          'sha1',
          'sha256',
          'sha384',
          'sha512',
        ] as const),
        oneOf('method', input.options.method, ['POST', 'GET'] as const),
      ),
  },
  sample: {
    secret: 'sample-password-2',
    body: JSON.stringify({ OutSum: '100.000000', InvId: '5', Shp_order: 'order-1' }),
    withoutSignature: (delivery) => {
      const { SignatureValue: _signature, ...fields } = parseFormBody(
        Buffer.from(delivery.body),
        WHAT,
      );
      return { ...delivery, body: encodeFormBody(fields) };
    },
  },
});

function requireField(fields: FormFields, name: string): string {
  const value = fields[name];
  if (value === undefined || value === '') {
    throw new WebhookPayloadError(`${WHAT} is not valid: ${name} is missing or empty`);
  }
  return value;
}

/** A Robokassa endpoint was configured to answer with a status Robokassa does not take. */
export function robokassaAcknowledgementMessage(name: unknown, status: unknown): string {
  return exactly200AcknowledgementMessage(name, KIND, status, 'Robokassa repeat the notification');
}

/**
 * A Robokassa ResultURL endpoint, answering GET and POST: enter `https://<host>/<path>/<name>`
 * as the shop's Result URL in its technical settings.
 * @throws WebhookConfigurationError at startup when a password, the algorithm or the currency
 * cannot work, or when `acknowledgement.status` is set to anything but 200.
 * @example
 * robokassaEndpoint({ name: 'robokassa', password2: process.env.ROBOKASSA_PASSWORD_2! })
 */
export function robokassaEndpoint(options: RobokassaEndpointOptions): WebhookEndpoint {
  return robokassaProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
robokassaEndpoint.kind = KIND;
/** Robokassa calls ResultURL with GET or POST. */
robokassaEndpoint.methods = ['GET', 'POST'] as const;
