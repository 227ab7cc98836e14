import { createHash } from 'node:crypto';
import { constantTimeIncludes } from '../../core/constant-time';
import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookPayloadError, WebhookVerificationError } from '../../core/webhook-errors';
import {
  assertAcknowledgedWith200,
  defineEndpoint,
  plainTextAcknowledgement,
  requireSecrets,
} from '../define-endpoint';
import { FormFields, parseFormBody } from '../form-body';
import { parseIsoDate } from '../parse-payload';
import { exactly200AcknowledgementMessage } from '../providers.messages';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { ownValue } from '../../core/own-value';

const KIND = 'yoomoney';
const WHAT = 'YooMoney notification';
const HEX_SHA1 = /^[0-9a-fA-F]{40}$/;
const UNACCEPTED = 'unaccepted';
const TEST_NOTIFICATION = 'test_notification';

/** The fields `sha1_hash` covers before the secret, in order. */
const SIGNED_BEFORE_SECRET = [
  'notification_type',
  'operation_id',
  'amount',
  'currency',
  'datetime',
  'sender',
  'codepro',
] as const;

/** Fields that may be absent (or empty) and are then hashed as empty strings. */
const OPTIONAL_SIGNED: ReadonlySet<string> = new Set(['sender', 'label']);

const TYPES: Readonly<Record<string, PaymentEventType>> = {
  'p2p-incoming': 'payment.succeeded',
  'card-incoming': 'payment.succeeded',
};

/** Options of the YooMoney protocol, shared by `yoomoneyEndpoint()` and `YooMoneyWebhookProvider`. */
export interface YooMoneyProviderOptions {
  /**
   * The wallet's notification secret (yoomoney.ru/transfer/myservices/http-notification →
   * "Show secret"). Pass a list while changing it: a notification is accepted when any of them
   * matches. Required.
   */
  notificationSecret: string | readonly string[];
}

/** Options of `yoomoneyEndpoint()`. */
export interface YooMoneyEndpointOptions extends BaseEndpointOptions, YooMoneyProviderOptions {}

/**
 * YooMoney wallet HTTP notifications (`p2p-incoming`, `card-incoming`): a form-encoded POST whose
 * `sha1_hash` is the lowercase hex SHA-1 (a plain hash, not an HMAC) of
 * `notification_type&operation_id&amount&currency&datetime&sender&codepro&notification_secret&label`.
 * `operation_id` is stable across the retries and is the dedup key.
 */
export class YooMoneyWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** YooMoney counts exactly HTTP 200 as delivered; the body is not read. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  private readonly secrets: readonly string[];

  /**
   * @param options the YooMoney options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when no usable secret is given.
   */
  constructor(options: YooMoneyProviderOptions, endpointName = KIND) {
    this.secrets = requireSecrets(
      endpointName,
      KIND,
      'notificationSecret',
      options?.notificationSecret,
    );
  }

  /**
   * Recomputes `sha1_hash` from the notification's fields and each configured secret.
   * @throws WebhookVerificationError when `sha1_hash` is missing, malformed or does not match.
   * @throws WebhookPayloadError when the body is not valid form encoding, a name repeats, or a
   * field the hash covers is missing.
   */
  verify(request: InboundWebhook): void {
    const fields = parseFormBody(request.rawBody, WHAT);
    const hash = fields.sha1_hash;
    if (hash === undefined || hash === '') {
      throw new WebhookVerificationError('missing_signature', `${WHAT} has no sha1_hash`);
    }
    if (!HEX_SHA1.test(hash)) {
      throw new WebhookVerificationError(
        'bad_signature',
        `Malformed sha1_hash in the ${WHAT}: expected 40 hex digits`,
      );
    }
    const before = SIGNED_BEFORE_SECRET.map((name) => signedField(fields, name));
    const label = signedField(fields, 'label');
    const expected = this.secrets.map((secret) =>
      createHash('sha1')
        .update([...before, secret, label].join('&'), 'utf8')
        .digest('hex'),
    );
    if (!constantTimeIncludes(expected, hash.toLowerCase())) {
      throw new WebhookVerificationError(
        'bad_signature',
        `sha1_hash does not match the ${WHAT} and the notification secret`,
      );
    }
  }

  /**
   * Parses a YooMoney notification. A transfer that is not credited yet (`unaccepted=true`, or
   * `codepro=true`: protected by a code the recipient has not entered) is `yoomoney:unaccepted`,
   * never `payment.succeeded`; a test sent from the wallet settings is
   * `yoomoney:test_notification`.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const fields = parseFormBody(request.rawBody, WHAT);
    const notificationType = requireField(fields, 'notification_type');
    const operationId = requireField(fields, 'operation_id');
    const amount = minorUnits(requireField(fields, 'amount'));
    const currency = requireField(fields, 'currency');
    const datetime = requireField(fields, 'datetime');
    const common = {
      paymentRef: operationId,
      merchantRef: fields.label === '' ? undefined : fields.label,
      amount,
      // NOTE: YooMoney wallets hold roubles only; 643 is the ISO 4217 number of RUB.
      currency: currency === '643' ? 'RUB' : undefined,
      occurredAt: parseIsoDate(datetime),
      // NOTE: datetime is one of the fields sha1_hash covers.
      occurredAtSigned: true,
      payload: fields,
    };
    if (fields.test_notification === 'true') {
      return {
        ...common,
        eventId: operationId,
        type: `${KIND}:${TEST_NOTIFICATION}`,
        nativeType: TEST_NOTIFICATION,
      };
    }
    if (fields.unaccepted === 'true' || fields.codepro === 'true') {
      return {
        ...common,
        // NOTE: its own key, so the notification for the same operation once credited is not
        // taken for a re-delivery of this one.
        eventId: `${operationId}:${UNACCEPTED}`,
        type: `${KIND}:${UNACCEPTED}`,
        nativeType: UNACCEPTED,
      };
    }
    return {
      ...common,
      eventId: operationId,
      type: ownValue(TYPES, notificationType) ?? `${KIND}:${notificationType}`,
      nativeType: notificationType,
    };
  }
}

/** A field the hash covers, as sent; `sender` and `label` may be absent and count as empty. */
function signedField(fields: FormFields, name: string): string {
  const value = fields[name];
  if (value === undefined) {
    if (OPTIONAL_SIGNED.has(name)) {
      return '';
    }
    throw new WebhookPayloadError(`${WHAT} is not valid: ${name} is missing`);
  }
  return value;
}

function requireField(fields: FormFields, name: string): string {
  const value = fields[name];
  if (value === undefined || value === '') {
    throw new WebhookPayloadError(`${WHAT} is not valid: ${name} is missing or empty`);
  }
  return value;
}

/**
 * Roubles as written by YooMoney (`'300.00'`) in kopecks, without floating point.
 * @throws WebhookPayloadError when the text is not a non-negative amount in whole kopecks.
 */
function minorUnits(text: string): number {
  const kopecks = toMinorUnits(text, 'RUB');
  if (kopecks === undefined) {
    throw new WebhookPayloadError(
      `${WHAT} is not valid: amount must be roubles with at most two decimals, e.g. "300.00"`,
    );
  }
  return kopecks;
}

/** A YooMoney endpoint was configured to answer something YooMoney counts as a failed delivery. */
export function yoomoneyAcknowledgementMessage(name: unknown, status: unknown): string {
  return exactly200AcknowledgementMessage(name, KIND, status, 'YooMoney repeat every notification');
}

/**
 * A YooMoney wallet notification endpoint: enter `https://<host>/<path>/<name>` as the
 * notification address in the wallet's HTTP-notification settings.
 * @throws WebhookConfigurationError at startup when no usable secret is given, or when
 * `acknowledgement.status` is set to anything but 200.
 * @example
 * yoomoneyEndpoint({ name: 'yoomoney', notificationSecret: process.env.YOOMONEY_NOTIFICATION_SECRET! })
 */
export function yoomoneyEndpoint(options: YooMoneyEndpointOptions): WebhookEndpoint {
  const provider = new YooMoneyWebhookProvider(options, options?.name);
  assertAcknowledgedWith200(options, (status) =>
    yoomoneyAcknowledgementMessage(options.name, status),
  );
  return defineEndpoint(options, provider);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
yoomoneyEndpoint.kind = 'yoomoney';
