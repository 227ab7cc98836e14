import { hmacSha256 } from '../../core/hmac';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { assertBodySignature, BodySignatureHeader } from '../body-signature';
import { defineProvider, SignatureScheme } from '../define-provider';
import { defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  readInteger,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import { SignedDelivery } from '../signed-delivery';
import { requireSecret, SigningInputError } from '../signing-input';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';
import { SquareApiOptions, SquareEventLog } from './square-event-log';

const KIND = 'square';
const LEGACY_SIGNATURE_HEADER = 'x-square-signature';
const SQUARE_SIGNATURE: BodySignatureHeader = {
  name: 'x-square-hmacsha256-signature',
  algorithm: 'sha256',
  encoding: 'base64',
  shape: '44 characters of base64',
  mismatch:
    'x-square-hmacsha256-signature does not match the payload, the signature key and the ' +
    "notificationUrl (check that notificationUrl is exactly the subscription's URL)",
};

/** Options of the Square protocol, shared by `squareEndpoint()` and `squareProvider`. */
export interface SquareProviderOptions {
  /**
   * The webhook subscription's signature key (Developer Console → your application → Webhooks →
   * Subscriptions → your subscription → Signature key), used verbatim. Pass a list while
   * replacing a key: a delivery is accepted when any key matches. Required.
   */
  signatureKey: string | readonly string[];
  /**
   * The subscription's notification URL exactly as registered with Square (scheme, host, port,
   * path and query): Square signs it together with the body. Used as written, never taken from
   * the request, so a proxy or a changed Host header cannot alter it. Required.
   * @example 'https://shop.example.com/webhooks/square'
   */
  notificationUrl: string;
}

/** Options of `squareEndpoint()`. */
export interface SquareEndpointOptions extends BaseEndpointOptions, SquareProviderOptions {
  /**
   * Square API access: the application's access token. The endpoint then searches Square's
   * events (the last 28 days; events search must be enabled) to recover events whose deliveries
   * never arrived.
   * @example api: { accessToken: process.env.SQUARE_ACCESS_TOKEN! }
   */
  api?: SquareApiOptions;
}

const SQUARE_EVENT = defineEnvelope({
  event_id: nonEmptyString(),
  type: nonEmptyString(),
  created_at: optional(string()),
  data: jsonObject(),
});

const PAYMENT_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  COMPLETED: 'payment.succeeded',
  FAILED: 'payment.failed',
  CANCELED: 'payment.canceled',
  APPROVED: 'payment.authorized',
};

const REFUND_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  COMPLETED: 'refund.succeeded',
  FAILED: 'refund.failed',
  REJECTED: 'refund.failed',
};

/** The types whose package type does not depend on the object's status. */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'dispute.created': 'dispute.opened',
};

// NOTE: the dispute states in which Square no longer expects anything from the seller.
const CLOSED_DISPUTE_STATES = new Set(['WON', 'LOST', 'ACCEPTED', 'INQUIRY_CLOSED']);

/** Which object an event type carries: `data.object.payment`, `.refund` or `.dispute`. */
type ObjectFamily = 'payment' | 'refund' | 'dispute';

function objectFamily(type: string): ObjectFamily | undefined {
  const family = type.split('.')[0];
  return family === 'payment' || family === 'refund' || family === 'dispute' ? family : undefined;
}

function mapSquareType(type: string, object: JsonObject | undefined): PaymentEventType | undefined {
  const status = readString(object, 'status');
  if (type === 'payment.created' || type === 'payment.updated') {
    return status === undefined ? undefined : ownValue(PAYMENT_STATUSES, status);
  }
  if (type === 'refund.created' || type === 'refund.updated') {
    return status === undefined ? undefined : ownValue(REFUND_STATUSES, status);
  }
  if (type === 'dispute.state.updated' || type === 'dispute.state.changed') {
    const state = readString(object, 'state');
    return state !== undefined && CLOSED_DISPUTE_STATES.has(state) ? 'dispute.closed' : undefined;
  }
  return undefined;
}

/**
 * The payment, refund or dispute an event carries. Square nests payments and refunds under their
 * name (`data.object.payment`) but a dispute under `data.object.object`.
 */
function eventObject(data: JsonObject, family: ObjectFamily): JsonObject | undefined {
  const container = readObject(data, 'object');
  return (
    readObject(container, family) ??
    (family === 'dispute' ? readObject(container, 'object') : undefined)
  );
}

function paymentRefOf(family: ObjectFamily, object: JsonObject | undefined): string | undefined {
  if (family === 'payment') return readString(object, 'id');
  if (family === 'refund') return readString(object, 'payment_id');
  return readString(readObject(object, 'disputed_payment'), 'payment_id');
}

function endpointLabel(name: unknown): string {
  return `Webhook endpoint ${JSON.stringify(name)} (${KIND})`;
}

/** The notification URL as given, if it is an absolute http(s) URL, or a startup error. */
function resolveNotificationUrl(name: unknown, value: unknown): string {
  let url: URL | undefined;
  try {
    url = typeof value === 'string' && value.trim() === value ? new URL(value) : undefined;
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== 'https:' && url.protocol !== 'http:')) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name)} has no usable notificationUrl: set it to the subscription's ` +
        'notification URL exactly as registered with Square (Developer Console → Webhooks → ' +
        'Subscriptions), an absolute http(s) URL such as "https://shop.example.com/webhooks/square"; ' +
        'Square signs that exact text, so a different scheme, host, path, slash or query fails every delivery.',
    );
  }
  return value as string;
}

/**
 * How Square signs for one notification URL: `x-square-hmacsha256-signature` is HMAC-SHA256
 * (base64) of `notificationUrl + rawBody` keyed by the subscription's signature key.
 */
function squareSignature(notificationUrl: string): SignatureScheme {
  return {
    verify(request, secrets) {
      const value = request.headers[SQUARE_SIGNATURE.name]?.trim();
      const legacy = request.headers[LEGACY_SIGNATURE_HEADER] !== undefined;
      // NOTE: a delivery signed only the first version's way is told why it is refused.
      if ((value === undefined || value === '') && legacy) {
        throw new WebhookVerificationError(
          'missing_signature',
          'Missing x-square-hmacsha256-signature header (the HMAC-SHA1 x-square-signature of ' +
            'Square’s first webhook version is not accepted)',
        );
      }
      assertBodySignature(request, SQUARE_SIGNATURE, secrets, notificationUrl);
    },
    sign: (body, secret) => ({
      [SQUARE_SIGNATURE.name]: hmacSha256(secret, [notificationUrl, body]).toString('base64'),
    }),
  };
}

const SAMPLE_URL = 'https://shop.example.test/webhooks/square';

/**
 * Square webhooks: `x-square-hmacsha256-signature` is HMAC-SHA256 (base64) of
 * `notificationUrl + rawBody` keyed by the subscription's signature key. There is no signed
 * delivery timestamp, but the signed body's `created_at` bounds a replay; event ids (`event_id`)
 * are stable across retries.
 */
export const squareProvider = defineProvider<
  SquareProviderOptions & Pick<SquareEndpointOptions, 'api'>,
  typeof SQUARE_EVENT.rules
>({
  kind: KIND,
  name: 'Square',
  retryHorizon: {
    days: 3,
    documented: 'retries for up to 24 hours (another version of the docs says 72 hours)',
  },
  secrets: {
    option: 'signatureKey',
    howToCopy:
      "Copy the subscription's signature key from Developer Console → Webhooks → Subscriptions",
  },
  checkOptions: (options, endpointName) =>
    void resolveNotificationUrl(endpointName, options.notificationUrl),
  signature: (options) => squareSignature(options.notificationUrl),
  extras: (options) => ({ eventLog: options.api && new SquareEventLog(options.api) }),
  // NOTE: Square accepts any 2xx within 10 seconds; the default empty 200 is the plainest.
  envelope: SQUARE_EVENT,
  types: EVENT_TYPES,
  normalize({ event }) {
    const family = objectFamily(event.type);
    const object = family === undefined ? undefined : eventObject(event.data, family);
    const money = readObject(object, 'amount_money');
    return {
      eventId: event.event_id,
      type: mapSquareType(event.type, object),
      nativeType: event.type,
      paymentRef: family === undefined ? undefined : paymentRefOf(family, object),
      merchantRef: family === 'payment' ? readString(object, 'reference_id') : undefined,
      amount: readInteger(money, 'amount'),
      currency: toCurrency(money?.currency),
      status: readString(object, family === 'dispute' ? 'state' : 'status'),
      occurredAt: parseIsoDate(event.created_at),
      // NOTE: Square signs the whole body, created_at included, but no delivery timestamp.
      occurredAtSigned: true,
      payload: event,
    };
  },
  cli: {
    secret: "the subscription's signature key",
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'notification-url',
        value: '<url>',
        help: 'the notification URL as registered, signed with the body (send: default the target URL)',
      },
    ],
    sign: (input): SignedDelivery => {
      const notificationUrl = input.options['notification-url'] ?? input.url;
      if (notificationUrl === undefined || notificationUrl === '') {
        throw new SigningInputError(
          '--provider square needs --notification-url (the URL exactly as registered with Square)',
        );
      }
      return squareProvider.signed(input.text, requireSecret(KIND, input), undefined, {
        notificationUrl,
      });
    },
  },
  sample: {
    secret: 'gRjS7mWQ0A1sTq2_vX9zLw',
    body: '{"event_id":"e-1","type":"dispute.created","data":{"object":{"dispute":{"id":"d-1","state":"EVIDENCE_REQUIRED"}}}}',
    options: { notificationUrl: SAMPLE_URL },
    flags: { 'notification-url': SAMPLE_URL },
  },
});

/**
 * A Square webhook endpoint.
 * @throws WebhookConfigurationError at startup when a signature key or the notification URL
 * cannot work.
 * @example
 * squareEndpoint({
 *   name: 'square',
 *   signatureKey: process.env.SQUARE_WEBHOOK_SIGNATURE_KEY!,
 *   notificationUrl: 'https://shop.example.com/webhooks/square',
 * })
 */
export function squareEndpoint(options: SquareEndpointOptions): WebhookEndpoint {
  return squareProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
squareEndpoint.kind = KIND;
