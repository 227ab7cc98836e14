import { createHash } from 'node:crypto';
import { constantTimeIncludes } from '../../core/constant-time';
import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookPayloadError, WebhookVerificationError } from '../../core/webhook-errors';
import { assertAcknowledgedWith200 } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { encodeFormBody, FormFields, parseFormBody } from '../form-body';
import { parseIsoDate } from '../parse-payload';
import { exactly200AcknowledgementMessage } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { formFields, requireSecret } from '../signing-input';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';

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

/** Options of the YooMoney protocol, shared by `yoomoneyEndpoint()` and its signer. */
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
 * `sha1_hash`, one definition for verifying and signing: the lowercase hex SHA-1 (a plain hash,
 * not an HMAC) of
 * `notification_type&operation_id&amount&currency&datetime&sender&codepro&notification_secret&label`.
 * @param field a signed field's value by name.
 */
export function yoomoneyHash(field: (name: string) => string, secret: string): string {
  const text = [...SIGNED_BEFORE_SECRET.map(field), secret, field('label')].join('&');
  return createHash('sha1').update(text, 'utf8').digest('hex');
}

/**
 * YooMoney signs inside the form body (`sha1_hash`), not in a header: the endpoint verifies with
 * `verify`, and `yoomoneySignedNotification()` signs with the same `yoomoneyHash()`.
 */
const YOOMONEY_SIGNATURE: SignatureScheme = {
  verify(request, secrets) {
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
    const signed = Object.fromEntries(
      [...SIGNED_BEFORE_SECRET, 'label'].map((name) => [name, signedField(fields, name)]),
    );
    const expected = secrets.map((secret) => yoomoneyHash((name) => signed[name], secret));
    if (!constantTimeIncludes(expected, hash.toLowerCase())) {
      throw new WebhookVerificationError(
        'bad_signature',
        `sha1_hash does not match the ${WHAT} and the notification secret`,
      );
    }
  },
  sign() {
    throw new TypeError(
      'YooMoney signs inside the form body: sign with yoomoneySignedNotification()',
    );
  },
};

/**
 * A notification exactly as YooMoney posts it: `fields` (without a `sha1_hash` of their own) with
 * `sha1_hash` appended as a form body, and the ids the endpoint stores it under.
 */
export function yoomoneySignedNotification(
  fields: Readonly<Record<string, string>>,
  notificationSecret: string,
): SignedDelivery {
  const { sha1_hash: _ignored, ...payload } = fields;
  const sha1_hash = yoomoneyHash((name) => payload[name] ?? '', notificationSecret);
  const delivery: SignedDelivery = {
    provider: KIND,
    method: 'POST',
    body: encodeFormBody({ ...payload, sha1_hash }),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
  return withEventIds(delivery, () => yoomoneyProvider.provider({ notificationSecret }));
}

/**
 * YooMoney wallet HTTP notifications (`p2p-incoming`, `card-incoming`): a form-encoded POST signed
 * by its `sha1_hash` field (see `yoomoneyHash()`). `operation_id` is stable across the retries and
 * is the dedup key. A transfer that is not credited yet (`unaccepted=true`, or `codepro=true`:
 * protected by a code the recipient has not entered) is `yoomoney:unaccepted`, never
 * `payment.succeeded`; a test sent from the wallet settings is `yoomoney:test_notification`.
 * YooMoney counts exactly HTTP 200 as delivered; the body is not read.
 */
export const yoomoneyProvider = defineProvider<YooMoneyProviderOptions>({
  kind: KIND,
  name: 'YooMoney',
  retryHorizon: {
    days: 1,
    documented: 'three attempts: immediately, after 10 minutes and after an hour',
  },
  secrets: {
    option: 'notificationSecret',
    howToCopy:
      "Copy the notification secret from the wallet's HTTP-notification settings " +
      '(yoomoney.ru/transfer/myservices/http-notification → "Show secret")',
  },
  signature: YOOMONEY_SIGNATURE,
  types: TYPES,
  checkOptions(options: YooMoneyEndpointOptions) {
    assertAcknowledgedWith200(options, (status) =>
      yoomoneyAcknowledgementMessage(options.name, status),
    );
  },
  normalize({ request }) {
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
      return { ...common, eventId: operationId, nativeType: TEST_NOTIFICATION };
    }
    if (fields.unaccepted === 'true' || fields.codepro === 'true') {
      return {
        ...common,
        // NOTE: its own key, so the notification for the same operation once credited is not
        // taken for a re-delivery of this one.
        eventId: `${operationId}:${UNACCEPTED}`,
        nativeType: UNACCEPTED,
      };
    }
    return { ...common, eventId: operationId, nativeType: notificationType };
  },
  cli: {
    title: 'YooMoney (wallet notifications)',
    secret: "the wallet's notification secret",
    payload: 'the notification fields as a flat object, without sha1_hash',
    flags: [],
    sign: (input) =>
      yoomoneySignedNotification(
        formFields(KIND, input, 'the notification fields'),
        requireSecret(KIND, input),
      ),
  },
  sample: {
    secret: 'sample-notification-secret',
    body: JSON.stringify({
      notification_type: 'p2p-incoming',
      operation_id: '1234567',
      amount: '300.00',
      currency: '643',
      datetime: '2011-07-01T09:00:00.000+04:00',
      sender: '41001000000000',
      codepro: 'false',
      label: 'order-1',
    }),
    withoutSignature: (delivery) => {
      const { sha1_hash: _signature, ...fields } = parseFormBody(Buffer.from(delivery.body), WHAT);
      return { ...delivery, body: encodeFormBody(fields) };
    },
  },
});

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
  return yoomoneyProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
yoomoneyEndpoint.kind = KIND;
