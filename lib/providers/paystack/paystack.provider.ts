import { createHash } from 'node:crypto';
import { PaymentEventType } from '../../core/payment-event-types';
import { bodyHmacSignature, BodySignatureHeader } from '../body-signature';
import { defineProvider } from '../define-provider';
import { defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString } from '../envelope-rules';
import {
  JsonObject,
  parseIsoDate,
  readObject,
  readString,
  toCurrency,
  toIdentifier,
} from '../parse-payload';
import { BaseEndpointOptions, WebhookEndpoint } from '../webhook-provider.interface';

const KIND = 'paystack';
const PAYSTACK_SIGNATURE: BodySignatureHeader = {
  name: 'x-paystack-signature',
  algorithm: 'sha512',
  encoding: 'hex',
  shape: '128 hex digits (HMAC-SHA512)',
  mismatch:
    'x-paystack-signature does not match the payload and the secret key (live events are ' +
    'signed with sk_live_…, test events with sk_test_…)',
};
const SECRET_KEY = /^sk_(live|test)_/;
const DIGITS = /^\d{1,15}$/;

/**
 * The addresses Paystack sends webhooks from, the same for test and live mode. Pass them as an
 * endpoint's `allowedIps` to refuse (403) any other source; behind a proxy, turn on the module's
 * `trustProxy` so the client address is the one Paystack connected from.
 * @example paystackEndpoint({ name: 'paystack', secretKey, allowedIps: PAYSTACK_IP_ADDRESSES })
 */
export const PAYSTACK_IP_ADDRESSES: readonly string[] = Object.freeze([
  '52.31.139.75',
  '52.49.173.169',
  '52.214.14.220',
]);

/** Options of the Paystack protocol, shared by `paystackEndpoint()` and the provider. */
export interface PaystackProviderOptions {
  /**
   * The account's secret API key (Dashboard → Settings → API Keys & Webhooks), `sk_live_…` for
   * live events or `sk_test_…` for test events: Paystack signs webhooks with it, there is no
   * separate webhook secret. Pass a list while replacing a key: a delivery is accepted when any
   * key matches. Required.
   */
  secretKey: string | readonly string[];
}

/** Options of `paystackEndpoint()`. */
export interface PaystackEndpointOptions extends BaseEndpointOptions, PaystackProviderOptions {}

const PAYSTACK_EVENT = defineEnvelope({
  event: nonEmptyString(),
  data: jsonObject(),
});

const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'charge.success': 'payment.succeeded',
  'refund.processed': 'refund.succeeded',
  'refund.failed': 'refund.failed',
  'charge.dispute.create': 'dispute.opened',
  'charge.dispute.resolve': 'dispute.closed',
};

/** Fields that name the object an event is about, most specific first. */
const OBJECT_ID_FIELDS = [
  'id',
  'refund_reference',
  'transfer_code',
  'subscription_code',
  'invoice_code',
  'request_code',
  'reference',
];

/**
 * The dedup key of an event, from signed content only (Paystack sends no event id):
 * `<event>:<object id>:<status>`, with the object's update time when it has one, so two
 * refunds of one charge or two status changes of one object never share a key. An object with
 * no id at all is keyed by the SHA-256 of the whole body.
 */
function eventIdOf(event: string, data: JsonObject, rawBody: Buffer): string {
  const id = OBJECT_ID_FIELDS.map((field) => toIdentifier(data[field])).find(Boolean);
  if (id === undefined) {
    return `${event}:sha256:${createHash('sha256').update(rawBody).digest('hex')}`;
  }
  const status = readString(data, 'status') ?? '';
  const updated = readString(data, 'updatedAt') ?? readString(data, 'updated_at');
  return [event, id, status, ...(updated === undefined ? [] : [updated])].join(':');
}

/** An amount in subunits, as Paystack writes it: an integer, or (in refund events) its digits. */
function readSubunits(data: JsonObject | undefined): number | undefined {
  const value = data?.amount;
  if (typeof value === 'number') return Number.isSafeInteger(value) ? value : undefined;
  return typeof value === 'string' && DIGITS.test(value) ? Number(value) : undefined;
}

interface References {
  readonly paymentRef?: string;
  readonly merchantRef?: string;
  readonly money?: JsonObject;
}

/** The transaction an event is about: the charge itself, or the one refunded or disputed. */
function referencesOf(event: string, data: JsonObject): References {
  if (event.startsWith('charge.dispute.')) {
    const transaction = readObject(data, 'transaction');
    return {
      paymentRef: toIdentifier(transaction?.id),
      merchantRef: readString(transaction, 'reference'),
      money: data.amount === undefined ? transaction : data,
    };
  }
  if (event.startsWith('charge.')) {
    return {
      paymentRef: toIdentifier(data.id),
      merchantRef: readString(data, 'reference'),
      money: data,
    };
  }
  if (event.startsWith('refund.')) {
    const transaction = readObject(data, 'transaction');
    return {
      paymentRef: toIdentifier(transaction?.id),
      merchantRef:
        readString(data, 'transaction_reference') ?? readString(transaction, 'reference'),
      money: data,
    };
  }
  return { merchantRef: readString(data, 'reference'), money: data };
}

const SECRET_KEY_SHAPE =
  'is not a Paystack secret key. Paystack signs webhooks with the secret key (sk_live_… for ' +
  'live events, sk_test_… for test events) from Dashboard → Settings → API Keys & Webhooks; the ' +
  'public key (pk_…) cannot check a signature.';

/**
 * Paystack webhooks: `x-paystack-signature` is the hex HMAC-SHA512 of the raw body keyed by the
 * account's secret key. Paystack sends no event id and signs no delivery time; the dedup key is
 * made from the signed event (see `eventIdOf`). Amounts are in subunits (kobo, pesewas, cents).
 */
export const paystackProvider = defineProvider<
  PaystackProviderOptions,
  typeof PAYSTACK_EVENT.rules
>({
  kind: KIND,
  name: 'Paystack',
  retryHorizon: {
    days: 4,
    documented:
      'live mode: every 3 minutes for the first 4 tries, then hourly for 72 hours (test mode: hourly for 10 hours)',
  },
  secrets: {
    option: 'secretKey',
    howToCopy: 'Copy the secret key from the Paystack Dashboard → Settings → API Keys & Webhooks',
    check: (key) => (SECRET_KEY.test(key) ? undefined : SECRET_KEY_SHAPE),
  },
  signature: bodyHmacSignature(PAYSTACK_SIGNATURE),
  envelope: PAYSTACK_EVENT,
  types: EVENT_TYPES,
  normalize({ request, event: body }) {
    const { event, data } = body;
    const { paymentRef, merchantRef, money } = referencesOf(event, data);
    const paidAt =
      event === 'charge.success' ? parseIsoDate(data.paid_at ?? data.paidAt) : undefined;
    return {
      eventId: eventIdOf(event, data, request.rawBody),
      nativeType: event,
      paymentRef,
      merchantRef,
      // NOTE: Paystack sends amounts in the currency's subunit already (kobo, pesewas, cents).
      amount: readSubunits(money),
      currency: toCurrency(money?.currency),
      status: readString(data, 'status'),
      occurredAt:
        paidAt ??
        parseIsoDate(data.updatedAt ?? data.updated_at ?? data.createdAt ?? data.created_at),
      // NOTE: only a charge's paid_at is the event's own time; a dispute reminder or a refund
      // carries times of the object, which may be older than the dedup window.
      occurredAtSigned: paidAt !== undefined,
      payload: body,
    };
  },
  cli: {
    secret: 'the secret key (sk_test_… or sk_live_…)',
    payload: 'the event {"event":…,"data":{…}}, signed byte for byte',
    flags: [],
  },
  sample: {
    secret: 'sk_test_sample00000000000000000000000000',
    body: '{"event":"charge.success","data":{"id":1,"status":"success","reference":"r-1"}}',
  },
});

/**
 * A Paystack webhook endpoint (Dashboard → Settings → API Keys & Webhooks → Webhook URL).
 * @throws WebhookConfigurationError at startup when the secret key cannot work.
 * @example
 * paystackEndpoint({
 *   name: 'paystack',
 *   secretKey: process.env.PAYSTACK_SECRET_KEY!,
 *   allowedIps: PAYSTACK_IP_ADDRESSES,
 * })
 */
export function paystackEndpoint(options: PaystackEndpointOptions): WebhookEndpoint {
  return paystackProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
paystackEndpoint.kind = KIND;
