import { constantTimeIncludes } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { Checked, checkEnvelope, defineEnvelope } from '../envelope';
import {
  integer,
  jsonObject,
  nonEmptyArray,
  nonEmptyString,
  oneOf,
  optional,
  string,
} from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import { jsonPost, requireSecret, SigningInputError } from '../signing-input';
import { adyenSigningInput } from './adyen-signing-input';
import { SignedDelivery } from '../signed-delivery';
import {
  BaseEndpointOptions,
  InboundWebhook,
  WebhookEndpoint,
} from '../webhook-provider.interface';

const KIND = 'adyen';
const EVEN_LENGTH_HEX = /^(?:[0-9a-fA-F]{2})+$/;
// NOTE: an HMAC-SHA256 digest is 32 bytes, which standard base64 writes as 43 characters and "=".
const BASE64_SHA256 = /^[A-Za-z0-9+/]{43}=$/;

/** Options of the Adyen protocol, shared by `adyenEndpoint()` and the provider it builds. */
export interface AdyenProviderOptions {
  /**
   * The webhook's HMAC key as Adyen shows it: hex (64 characters), from Customer Area →
   * Developers → Webhooks → your webhook → Security → HMAC key. Pass a list while rotating:
   * an item is accepted when its signature matches any key. Required.
   */
  hmacKey: string | readonly string[];
  /**
   * Merchant account(s) this endpoint accepts notifications for (`merchantAccountCode`). A
   * signed item for any other account is refused, so a webhook configured on the company
   * account cannot deliver another merchant account's events here.
   * @default every merchant account
   */
  merchantAccount?: string | readonly string[];
}

/** Options of `adyenEndpoint()`. */
export interface AdyenEndpointOptions extends BaseEndpointOptions, AdyenProviderOptions {}

/** `amount` of an Adyen notification item. */
export interface AdyenAmount {
  /** Amount in minor units. */
  readonly value?: number;
  /** ISO 4217 currency code. */
  readonly currency?: string;
}

/**
 * One `NotificationRequestItem` of an Adyen standard webhook, as handlers find it in
 * `event.payload.notificationItems[0].NotificationRequestItem`.
 */
export interface AdyenNotificationRequestItem {
  /** Adyen's reference of the payment, or of the modification (capture, refund, …). */
  readonly pspReference: string;
  /** For a modification: the `pspReference` of the payment it modifies. */
  readonly originalReference?: string;
  /** The merchant account the event belongs to. */
  readonly merchantAccountCode: string;
  /** Your reference, sent when the payment (or modification) was created. */
  readonly merchantReference?: string;
  /** Amount in minor units and currency. */
  readonly amount?: AdyenAmount;
  /** The event, e.g. `'AUTHORISATION'`, `'CAPTURE'`, `'REFUND'`. */
  readonly eventCode: string;
  /** When the event happened (ISO 8601). */
  readonly eventDate?: string;
  /** Whether the operation succeeded: `'true'` or `'false'`. */
  readonly success: 'true' | 'false' | boolean;
  /** Why it failed (or the authorisation code and card details on success). */
  readonly reason?: string;
  /** Payment method variant, e.g. `'visa'`. */
  readonly paymentMethod?: string;
  /** Modifications still possible on the payment, e.g. `['CAPTURE', 'REFUND']`. */
  readonly operations?: readonly string[];
  /** Extra fields; `hmacSignature` carries the item's signature. */
  readonly additionalData?: Readonly<Record<string, string | undefined>>;
}

/**
 * An Adyen standard webhook request. Each stored event holds the one-item request Adyen would
 * have sent for that item alone, so `notificationItems` has exactly one entry in
 * `event.payload`.
 */
export interface AdyenNotificationRequest {
  /** `'true'` for the live environment, `'false'` for test. */
  readonly live?: 'true' | 'false' | boolean;
  /** The notifications. */
  readonly notificationItems: readonly {
    readonly NotificationRequestItem: AdyenNotificationRequestItem;
  }[];
}

/** What `live` and `success` may hold: the strings Adyen sends, or booleans. */
const BOOLEAN_FLAG = ['true', 'false', true, false] as const;

const ADYEN_NOTIFICATION_REQUEST = defineEnvelope({
  live: optional(oneOf(...BOOLEAN_FLAG)),
  notificationItems: nonEmptyArray(),
});

const ADYEN_NOTIFICATION_ITEM = defineEnvelope({ NotificationRequestItem: jsonObject() });

const ADYEN_NOTIFICATION_REQUEST_ITEM = defineEnvelope({
  pspReference: nonEmptyString(),
  originalReference: optional(string()),
  merchantAccountCode: nonEmptyString(),
  merchantReference: optional(string()),
  amount: optional(jsonObject()),
  eventCode: nonEmptyString(),
  eventDate: optional(string()),
  success: oneOf(...BOOLEAN_FLAG),
  additionalData: optional(jsonObject()),
});

const ADYEN_AMOUNT = defineEnvelope({
  value: optional(integer()),
  currency: optional(string()),
});

/** One item of a request, checked, with the request's `live` flag it travels with. */
interface CheckedItem {
  readonly index: number;
  readonly live: unknown;
  /** The item as parsed from the bytes; the exact object the signature was checked on. */
  readonly item: JsonObject;
  readonly fields: Checked<typeof ADYEN_NOTIFICATION_REQUEST_ITEM>;
  readonly amount: Checked<typeof ADYEN_AMOUNT>;
}

/**
 * Reads and checks every item of an Adyen request. `verify()` and `normalize()` both go through
 * this one function over the same bytes, so normalize never yields an item verify did not check.
 */
function readNotificationItems(rawBody: Buffer): CheckedItem[] {
  const body = parseJsonObject(rawBody, 'Adyen notification request body');
  const request = checkEnvelope(ADYEN_NOTIFICATION_REQUEST, body, 'Adyen notification request');
  return request.notificationItems.map((entry: unknown, index) => {
    const what = `Adyen notification item ${index}`;
    const item = checkEnvelope(ADYEN_NOTIFICATION_ITEM, entry, what).NotificationRequestItem;
    const fields = checkEnvelope(ADYEN_NOTIFICATION_REQUEST_ITEM, item, what);
    const amount = checkEnvelope(ADYEN_AMOUNT, fields.amount ?? {}, what);
    return { index, live: request.live, item, fields, amount };
  });
}

/**
 * The string Adyen signs for one item:
 * `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`,
 * a missing field written as the empty string and nothing escaped, exactly as
 * `hmacValidator.getDataToSign()` of `@adyen/api-library` builds it.
 */
export function adyenSigningString(item: AdyenNotificationRequestItem): string {
  return [
    item.pspReference,
    item.originalReference,
    item.merchantAccountCode,
    item.merchantReference,
    item.amount?.value,
    item.amount?.currency,
    item.eventCode,
    item.success,
  ]
    .map((field) => (field === undefined || field === null ? '' : String(field)))
    .join(':');
}

/**
 * The HMAC key bytes of an Adyen hex key, or undefined when the key is not hex of even length.
 * NOTE: Buffer.from(hex) silently drops an odd last digit and stops at the first non-hex
 * character; a key it truncates would never match, so it is refused instead.
 */
export function decodeAdyenHmacKey(hexKey: string): Buffer | undefined {
  return EVEN_LENGTH_HEX.test(hexKey) ? Buffer.from(hexKey, 'hex') : undefined;
}

const ON_SUCCESS: Readonly<Record<string, PaymentEventType>> = {
  // NOTE: an authorisation reserves the money; it is captured later (automatically or by a
  // capture request), so it is not yet a succeeded payment.
  AUTHORISATION: 'payment.authorized',
  CAPTURE: 'payment.succeeded',
  CANCELLATION: 'payment.canceled',
  TECHNICAL_CANCEL: 'payment.canceled',
  REFUND: 'refund.succeeded',
  REFUND_FAILED: 'refund.failed',
  CHARGEBACK: 'dispute.opened',
  CHARGEBACK_REVERSED: 'dispute.closed',
  SECOND_CHARGEBACK: 'dispute.closed',
  PREARBITRATION_WON: 'dispute.closed',
  PREARBITRATION_LOST: 'dispute.closed',
};

// NOTE: a failed capture or cancellation leaves the authorisation in place, so only these two
// failures have a normalized meaning; the others stay 'adyen:<eventCode>' with success "false".
const ON_FAILURE: Readonly<Record<string, PaymentEventType>> = {
  AUTHORISATION: 'payment.failed',
  REFUND: 'refund.failed',
};

function hmacKeyFormatMessage(name: unknown, index: number, count: number): string {
  const which = count > 1 ? `hmacKey[${index}]` : 'hmacKey';
  return (
    `Webhook endpoint ${JSON.stringify(name)} (adyen): ${which} is not a hex string of even length. ` +
    'Copy the HMAC key from Customer Area → Developers → Webhooks → your webhook → Security → ' +
    'HMAC key (64 hex characters, 0-9 and A-F) exactly, without spaces or line breaks.'
  );
}

/**
 * The decoded HMAC keys of the options.
 * @throws WebhookConfigurationError when a key is missing, not hex or of odd length.
 */
function hmacKeysOf(options: AdyenProviderOptions, endpointName: string): Buffer[] {
  const hexKeys = requireSecrets(endpointName, KIND, 'hmacKey', options?.hmacKey);
  return hexKeys.map((hexKey, index) => {
    const key = decodeAdyenHmacKey(hexKey);
    if (key === undefined) {
      throw new WebhookConfigurationError(
        hmacKeyFormatMessage(endpointName, index, hexKeys.length),
      );
    }
    return key;
  });
}

function merchantAccountMessage(name: unknown): string {
  return (
    `Webhook endpoint ${JSON.stringify(name)} (adyen): merchantAccount must be a merchant ` +
    'account name or a list of them (non-empty strings), e.g. merchantAccount: "ShopEU"; ' +
    'leave it out to accept every merchant account.'
  );
}

/** The merchant accounts an endpoint accepts, or undefined for every one; null when malformed. */
function merchantAccountsOf(
  value: string | readonly string[] | undefined,
): ReadonlySet<string> | undefined | null {
  if (value === undefined) {
    return undefined;
  }
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  if (list.length === 0 || list.some((entry) => typeof entry !== 'string' || entry === '')) {
    return null;
  }
  return new Set(list as string[]);
}

/**
 * The `additionalData.hmacSignature` of one item: HMAC-SHA256, keyed by the hex-decoded HMAC key,
 * of its signing string. The endpoint checks it and the signers write it (base64).
 */
function adyenItemSignature(key: Buffer, item: AdyenNotificationRequestItem): Buffer {
  return hmacSha256(key, [adyenSigningString(item)]);
}

/**
 * Adyen signs inside the body: every item's `additionalData.hmacSignature` (see
 * {@link adyenItemSignature}), checked here together with the item's merchant account when the
 * endpoint is restricted to some. Adyen signs fields, not bytes, so the body is parsed first;
 * nothing is acted on before every item has passed.
 */
function adyenItemSignatures(
  keys: readonly Buffer[],
  merchantAccounts: ReadonlySet<string> | undefined,
): SignatureScheme {
  return {
    verify(request: InboundWebhook): void {
      for (const { index, item, fields } of readNotificationItems(request.rawBody)) {
        const where = `Adyen notification item ${index} (pspReference ${fields.pspReference})`;
        const signature = readObject(item, 'additionalData')?.hmacSignature;
        if (signature === undefined || signature === null || signature === '') {
          throw new WebhookVerificationError(
            'missing_signature',
            `${where} has no additionalData.hmacSignature; switch on HMAC signing for this webhook ` +
              'in Customer Area',
          );
        }
        if (typeof signature !== 'string' || !BASE64_SHA256.test(signature)) {
          throw new WebhookVerificationError(
            'bad_signature',
            `${where} has a malformed hmacSignature: expected base64 of 32 bytes`,
          );
        }
        const signed = item as unknown as AdyenNotificationRequestItem;
        const expected = keys.map((key) => adyenItemSignature(key, signed));
        if (!constantTimeIncludes(expected, Buffer.from(signature, 'base64'))) {
          throw new WebhookVerificationError(
            'bad_signature',
            `${where}: hmacSignature does not match the item and the HMAC key`,
          );
        }
        if (merchantAccounts && !merchantAccounts.has(fields.merchantAccountCode)) {
          throw new WebhookVerificationError(
            'bad_signature',
            `${where} is for merchant account ${JSON.stringify(fields.merchantAccountCode)}, ` +
              "which is not in this endpoint's merchantAccount list",
          );
        }
      }
    },
    sign(): never {
      throw new TypeError(
        'Adyen signs each notification item inside the body: sign with signAdyenDelivery()',
      );
    },
  };
}

/**
 * The JSON request Adyen posts for `items`, each signed under `key` (an existing
 * `hmacSignature` is replaced).
 */
export function adyenRequestBody(
  key: Buffer,
  items: readonly AdyenNotificationRequestItem[],
  live: 'true' | 'false' = 'false',
): string {
  const notificationItems = items.map((item) => ({
    NotificationRequestItem: {
      ...item,
      additionalData: {
        ...item.additionalData,
        hmacSignature: adyenItemSignature(key, item).toString('base64'),
      },
    },
  }));
  return JSON.stringify({ live, notificationItems });
}

const SAMPLE_KEY = '44782DEF547AAA06C910C43932B1EB0C71FC68D9D0C057550C48EC2ACF6BA056';

/**
 * Adyen standard (payments) webhooks. One request carries one or more
 * `notificationItems[].NotificationRequestItem`; each item is signed on its own: its
 * `additionalData.hmacSignature` is base64 HMAC-SHA256, keyed by the hex-decoded HMAC key, of
 * `pspReference:originalReference:merchantAccountCode:merchantReference:value:currency:eventCode:success`.
 * One item that fails the check refuses the whole request, so nothing of it is stored and Adyen
 * sends it again. Adyen has no event id; the dedup key is `${pspReference}:${eventCode}:${success}`.
 * Each item is stored as the one-item request Adyen would have sent for it alone (`storedBody`),
 * which the provider accepts back unchanged.
 */
export const adyenProvider = defineProvider<AdyenProviderOptions>({
  kind: KIND,
  name: 'Adyen',
  retryHorizon: {
    days: 30,
    documented: '3 quick retries, then a retry queue for up to 30 days',
  },
  // NOTE: no `secrets`: Adyen signs inside the body, where a delivery stripped of its headers is
  // still signed and a changed last byte is no JSON (a payload error), and a key with a space is
  // refused as not hex; the HMAC keys are checked with the other options instead.
  checkOptions(options, endpointName) {
    hmacKeysOf(options, String(endpointName));
    if (merchantAccountsOf(options.merchantAccount) === null) {
      throw new WebhookConfigurationError(merchantAccountMessage(endpointName));
    }
  },
  signature: (options) =>
    adyenItemSignatures(
      hmacKeysOf(options, KIND),
      merchantAccountsOf(options.merchantAccount) ?? undefined,
    ),
  // NOTE: Adyen accepts any 2xx today; `[accepted]` is the body its older integrations required,
  // kept so every Adyen setup counts the delivery as done.
  acknowledgement: plainTextAcknowledgement('[accepted]'),
  // NOTE: an item that failed maps through ON_FAILURE in normalize; this table is for successes.
  types: ON_SUCCESS,
  normalize({ request }) {
    return readNotificationItems(request.rawBody).map(({ live, item, fields, amount }) => {
      const payload: JsonObject = {
        ...(live === undefined ? {} : { live }),
        notificationItems: [{ NotificationRequestItem: item }],
      };
      const success = String(fields.success);
      const code = fields.eventCode;
      return {
        eventId: `${fields.pspReference}:${code}:${success}`,
        ...(success === 'true' ? {} : { type: ownValue(ON_FAILURE, code) ?? `${KIND}:${code}` }),
        nativeType: code,
        paymentRef: readString(item, 'originalReference') ?? fields.pspReference,
        merchantRef: readString(item, 'merchantReference'),
        amount: readInteger(readObject(item, 'amount'), 'value'),
        currency: toCurrency(amount.currency),
        status: success,
        occurredAt: parseIsoDate(fields.eventDate),
        payload,
        storedBody: JSON.stringify(payload),
      };
    });
  },
  cli: {
    title: 'Adyen (standard notifications)',
    secret: 'the HMAC key (hex, as Customer Area shows it)',
    payload:
      'a notification request { "live", "notificationItems": [ … ] }, a list of items, or one NotificationRequestItem; each item is signed',
    flags: [],
    sign: (input): SignedDelivery => {
      const { items, live } = adyenSigningInput<AdyenNotificationRequestItem>(input);
      const hmacKey = requireSecret(KIND, input);
      const key = decodeAdyenHmacKey(hmacKey);
      if (key === undefined) {
        throw new SigningInputError('--secret for adyen must be the HMAC key in hex (even length)');
      }
      const delivery = jsonPost(KIND, { text: adyenRequestBody(key, items, live) }, {});
      return withEventIds(delivery, () => adyenProvider.provider({ hmacKey }));
    },
  },
  sample: {
    secret: SAMPLE_KEY,
    options: { hmacKey: SAMPLE_KEY },
    body: JSON.stringify({
      live: 'false',
      notificationItems: [
        {
          NotificationRequestItem: {
            pspReference: 'QFQTPCQ8HXSKGK82',
            merchantAccountCode: 'ShopEU',
            merchantReference: 'order-1',
            amount: { value: 1999, currency: 'EUR' },
            eventCode: 'AUTHORISATION',
            eventDate: '2026-01-01T12:00:00+01:00',
            success: 'true',
          },
        },
      ],
    }),
  },
});

/**
 * An Adyen standard webhook endpoint (Customer Area → Developers → Webhooks → Standard webhook,
 * JSON over HTTP POST, HMAC signing on).
 * @throws WebhookConfigurationError at startup when an option cannot work.
 * @example
 * adyenEndpoint({ name: 'adyen', hmacKey: process.env.ADYEN_HMAC_KEY!, merchantAccount: 'ShopEU' })
 */
export function adyenEndpoint(options: AdyenEndpointOptions): WebhookEndpoint {
  return adyenProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
adyenEndpoint.kind = KIND;
