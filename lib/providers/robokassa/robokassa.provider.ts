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
 * Robokassa's ResultURL notification: a successful payment, as the query string of a GET or a
 * form-encoded POST (the shop's settings choose). `SignatureValue` is the hex hash of
 * `OutSum:InvId:Password#2`, followed by `:Shp_name=value` for each user parameter, sorted by
 * name. The answer is `OK{InvId}`; `InvId` is the dedup key.
 */
export class RobokassaWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** 200, text: `OK` followed by the notification's InvId (see `acknowledgementBody`). */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement('OK');
  /** Robokassa calls ResultURL with GET or POST, as the shop's settings say. */
  readonly methods: readonly WebhookDeliveryMethod[] = Object.freeze(['GET', 'POST'] as const);

  private readonly passwords: readonly string[];
  private readonly testPasswords: readonly string[];
  private readonly algorithm: RobokassaHashAlgorithm;
  private readonly currency: string;

  /**
   * @param options the Robokassa options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a password, the algorithm or the currency cannot work.
   */
  constructor(options: RobokassaProviderOptions, endpointName = KIND) {
    this.passwords = requireSecrets(endpointName, KIND, 'password2', options?.password2);
    this.testPasswords =
      options.testPassword2 === undefined
        ? []
        : requireSecrets(endpointName, KIND, 'testPassword2', options.testPassword2);
    const algorithm: unknown = options.hashAlgorithm ?? 'md5';
    if (typeof algorithm !== 'string' || !Object.hasOwn(HEX_LENGTHS, algorithm)) {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)}: hashAlgorithm must be one of ` +
          `${Object.keys(HEX_LENGTHS).join(', ')} (got ${JSON.stringify(algorithm)}): the ` +
          '"Алгоритм расчета хеша" of the shop’s technical settings in Robokassa.',
      );
    }
    this.algorithm = algorithm as RobokassaHashAlgorithm;
    const currency = options.currency ?? 'RUB';
    if (typeof currency !== 'string' || currencyExponent(currency) === undefined) {
      throw new WebhookConfigurationError(
        `${endpointLabel(endpointName, KIND)}: currency must be an ISO 4217 code such as "RUB" ` +
          `(got ${JSON.stringify(currency)}): the currency of the shop's OutSum.`,
      );
    }
    this.currency = currency.toUpperCase();
  }

  /**
   * Recomputes `SignatureValue` from OutSum, InvId, the password and the `Shp_` parameters.
   * @throws WebhookVerificationError when `SignatureValue` is missing, malformed or does not
   * match, or a test notification arrives without a test password configured.
   * @throws WebhookPayloadError when the parameters are not valid form encoding, a name repeats,
   * or OutSum or InvId is missing.
   */
  verify(request: InboundWebhook): void {
    const fields = parseFormBody(request.rawBody, WHAT);
    const signature = fields.SignatureValue;
    if (signature === undefined || signature === '') {
      throw new WebhookVerificationError('missing_signature', `${WHAT} has no SignatureValue`);
    }
    const length = HEX_LENGTHS[this.algorithm];
    if (!new RegExp(`^[0-9A-Fa-f]{${length}}$`).test(signature)) {
      throw new WebhookVerificationError(
        'bad_signature',
        `Malformed SignatureValue: expected ${length} hex digits (${this.algorithm})`,
      );
    }
    const test = fields.IsTest === '1';
    if (test && this.testPasswords.length === 0) {
      throw new WebhookVerificationError(
        'bad_signature',
        `${WHAT} is a test payment (IsTest=1) and the endpoint has no testPassword2`,
      );
    }
    // NOTE: IsTest is not signed; choosing the password by it is safe because a notification
    // moved to the other mode is checked against a password it was not made with.
    const base = signatureBase(fields);
    const expected = (test ? this.testPasswords : this.passwords).map((password) =>
      createHash(this.algorithm).update(base(password), 'utf8').digest('hex'),
    );
    if (!constantTimeIncludes(expected, signature.toLowerCase())) {
      throw new WebhookVerificationError(
        'bad_signature',
        `SignatureValue does not match OutSum, InvId, the Shp_ parameters and ${test ? 'testPassword2' : 'password2'} ` +
          `(${this.algorithm}; check hashAlgorithm against the shop's technical settings)`,
      );
    }
  }

  /**
   * Parses a ResultURL notification: a successful payment of the shop's invoice InvId.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const fields = parseFormBody(request.rawBody, WHAT);
    const invId = requireField(fields, 'InvId');
    const outSum = requireField(fields, 'OutSum');
    return {
      // NOTE: Robokassa takes one payment per invoice and repeats the notification unchanged.
      eventId: invId,
      type: 'payment.succeeded',
      nativeType: NATIVE_TYPE,
      paymentRef: invId,
      merchantRef: invId,
      amount: toMinorUnits(outSum, this.currency),
      currency: this.currency,
      status: fields.IsTest === '1' ? 'test' : undefined,
      payload: fields,
    };
  }

  /** `OK` and the InvId of the notification: what Robokassa reads as delivered. */
  acknowledgementBody(notifications: readonly NormalizedNotification[]): string {
    return `OK${notifications[0]?.merchantRef ?? ''}`;
  }
}

/**
 * What `SignatureValue` hashes, for a password: `OutSum:InvId:password`, then `:name=value` for
 * each user parameter (`Shp_…`, any case), sorted by name.
 * @throws WebhookPayloadError when OutSum or InvId is missing.
 */
function signatureBase(fields: FormFields): (password: string) => string {
  const outSum = requireField(fields, 'OutSum');
  const invId = requireField(fields, 'InvId');
  const user = Object.keys(fields)
    .filter((name) => USER_PARAMETER.test(name))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `:${name}=${fields[name]}`)
    .join('');
  return (password) => `${outSum}:${invId}:${password}${user}`;
}

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
  const provider = new RobokassaWebhookProvider(options, options?.name);
  assertAcknowledgedWith200(options, (status) =>
    robokassaAcknowledgementMessage(options.name, status),
  );
  return defineEndpoint(options, provider);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
robokassaEndpoint.kind = 'robokassa';
/** Robokassa calls ResultURL with GET or POST. */
robokassaEndpoint.methods = ['GET', 'POST'] as const;
