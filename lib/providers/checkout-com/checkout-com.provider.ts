import { constantTimeIncludes } from '../../core/constant-time';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { bodyHmacSignature, BodySignatureHeader } from '../body-signature';
import { defineProvider, SignatureScheme } from '../define-provider';
import { defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import { JsonObject, parseIsoDate, readString, toCurrency } from '../parse-payload';
import { SigningInput } from '../provider-descriptor.interface';
import { SignedDelivery } from '../signed-delivery';
import { requireSecret } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  WebhookEndpoint,
} from '../webhook-provider.interface';
import { checkoutComMinorUnits } from './checkout-com-amounts';

const KIND = 'checkout-com';
const AUTHORIZATION_HEADER = 'authorization';
const CKO_SIGNATURE: BodySignatureHeader = {
  name: 'Cko-Signature',
  algorithm: 'sha256',
  encoding: 'hex',
  shape: '64 hex digits (HMAC-SHA256)',
  mismatch: "Cko-Signature does not match the payload and the webhook's signature key",
};

/** Options of the Checkout.com protocol, shared by `checkoutComEndpoint()` and the provider. */
export interface CheckoutComProviderOptions {
  /**
   * The webhook's signature key (Dashboard → Developers → Webhooks → your configuration →
   * Signature key; or the `signature.key` of the workflow's webhook action), used verbatim.
   * Checkout.com signs the body with it in `Cko-Signature`. Pass a list while replacing it: a
   * delivery is accepted when any key matches. Required.
   */
  signatureKey: string | readonly string[];
  /**
   * The Authorization header key configured on the same webhook, which Checkout.com sends as
   * the `Authorization` header of every delivery. When set, a delivery without it or with
   * another value is refused. A list while replacing it.
   * @default none: the Authorization header is not checked
   */
  authorization?: string | readonly string[];
}

/** Options of `checkoutComEndpoint()`. */
export interface CheckoutComEndpointOptions
  extends BaseEndpointOptions, CheckoutComProviderOptions {}

// NOTE: issuing events carry `event_data` instead of `data`, so `data` may be absent.
const CHECKOUT_COM_EVENT = defineEnvelope({
  id: nonEmptyString(),
  type: nonEmptyString(),
  created_on: optional(string()),
  timestamp: optional(string()),
  data: optional(jsonObject()),
});

const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  payment_approved: 'payment.authorized',
  payment_captured: 'payment.succeeded',
  payment_paid: 'payment.succeeded',
  payment_declined: 'payment.failed',
  payment_capture_declined: 'payment.failed',
  payment_voided: 'payment.canceled',
  payment_canceled: 'payment.canceled',
  payment_refunded: 'refund.succeeded',
  payment_refund_declined: 'refund.failed',
  dispute_received: 'dispute.opened',
  dispute_evidence_required: 'dispute.opened',
  dispute_won: 'dispute.closed',
  dispute_lost: 'dispute.closed',
  dispute_resolved: 'dispute.closed',
  dispute_accepted: 'dispute.closed',
  dispute_canceled: 'dispute.closed',
  dispute_expired: 'dispute.closed',
  dispute_arbitration_won: 'dispute.closed',
  dispute_arbitration_lost: 'dispute.closed',
};

function endpointLabel(name: unknown): string {
  return `Webhook endpoint ${JSON.stringify(name)} (${KIND})`;
}

/**
 * Whether the authorization option can work: unset, or one or more non-blank values.
 * @throws WebhookConfigurationError
 */
function checkAuthorization(name: unknown, value: unknown): void {
  if (value === undefined) return;
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  if (list.length === 0 || list.some((entry) => typeof entry !== 'string' || entry.trim() === '')) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name)} has no usable authorization: set it to the Authorization header ` +
        'key configured on the Checkout.com webhook (Dashboard → Developers → Webhooks), or ' +
        'leave it unset to rely on the signature alone.',
    );
  }
}

function verifyAuthorization(request: InboundWebhook, authorization: readonly string[]): void {
  const value = request.headers[AUTHORIZATION_HEADER];
  if (value === undefined || value === '') {
    throw new WebhookVerificationError(
      'missing_signature',
      'Missing Authorization header: the endpoint expects the key configured on the Checkout.com webhook',
    );
  }
  if (!constantTimeIncludes(authorization, value)) {
    throw new WebhookVerificationError(
      'bad_signature',
      'The Authorization header is not the key configured on the Checkout.com webhook',
    );
  }
}

const CKO_BODY_SIGNATURE = bodyHmacSignature(CKO_SIGNATURE);

/**
 * `Cko-Signature` over the body, and the static `Authorization` header when one is configured:
 * the endpoint checks both, a signer sends both (the first key while replacing it).
 */
function checkoutComSignature(options: Partial<CheckoutComProviderOptions>): SignatureScheme {
  const { authorization: value } = options;
  const authorization: readonly string[] =
    value === undefined ? [] : typeof value === 'string' ? [value] : value;
  return {
    verify(request, secrets) {
      if (authorization.length > 0) verifyAuthorization(request, authorization);
      CKO_BODY_SIGNATURE.verify(request, secrets);
    },
    sign(body, secret) {
      const [sent] = authorization;
      return {
        ...(sent === undefined ? {} : { authorization: sent }),
        ...CKO_BODY_SIGNATURE.sign(body, secret),
      };
    },
  };
}

/** The payment an event is about, and the shop's reference for it. */
function referencesOf(type: string, data: JsonObject | undefined) {
  if (type.startsWith('dispute_')) {
    return {
      paymentRef: readString(data, 'payment_id'),
      merchantRef: readString(data, 'payment_reference'),
    };
  }
  if (type.startsWith('payment_')) {
    return { paymentRef: readString(data, 'id'), merchantRef: readString(data, 'reference') };
  }
  return { paymentRef: undefined, merchantRef: undefined };
}

/**
 * Checkout.com webhooks: `Cko-Signature` is the hex HMAC-SHA256 of the raw body keyed by the
 * webhook's signature key; the optional static `Authorization` header is compared too. Event
 * ids (`evt_…`) are the same on every retry; amounts are minor units already. Checkout.com
 * counts any 2xx within 10 seconds; the default empty 200 is the plainest.
 */
export const checkoutComProvider = defineProvider<
  CheckoutComProviderOptions,
  typeof CHECKOUT_COM_EVENT.rules
>({
  kind: KIND,
  name: 'Checkout.com',
  aliases: ['checkout', 'checkoutcom', 'checkout.com'],
  retryHorizon: {
    days: 2,
    documented:
      'resent up to eight times, 5 min, 10 min, 15 min, 30 min, 1 h, 4 h, 12 h and 12 h after the attempt before (about 30 hours)',
  },
  secrets: {
    option: 'signatureKey',
    howToCopy: "Copy the webhook's signature key from Dashboard → Developers → Webhooks",
  },
  signature: checkoutComSignature,
  checkOptions: (options, endpointName) => checkAuthorization(endpointName, options.authorization),
  envelope: CHECKOUT_COM_EVENT,
  types: EVENT_TYPES,
  normalize({ event }) {
    const data = event.data ?? undefined;
    const currency = toCurrency(data?.currency);
    const occurredAt = parseIsoDate(event.created_on) ?? parseIsoDate(event.timestamp);
    return {
      eventId: event.id,
      nativeType: event.type,
      ...referencesOf(event.type, data),
      amount: checkoutComMinorUnits(data?.amount, currency),
      currency,
      status: readString(data, 'status'),
      occurredAt,
      // NOTE: the whole body is signed, the event time included, and no delivery timestamp is.
      occurredAtSigned: occurredAt !== undefined,
      payload: event,
    };
  },
  cli: {
    secret: "the webhook's signature key",
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'authorization',
        value: '<key>',
        help: "the webhook's Authorization header key, sent as the Authorization header (default: none)",
      },
    ],
    sign: cliSign,
  },
  sample: {
    secret: 'cko-signature-key-sample',
    body: '{"id":"evt_1","type":"payment_captured","data":{"id":"pay_1","amount":20,"currency":"EUR"}}',
  },
});

/** What the CLI's `sign` and `send` make of `--secret` and `--authorization`. */
function cliSign(input: SigningInput): SignedDelivery {
  return checkoutComProvider.signed(input.text, requireSecret(KIND, input), undefined, {
    authorization: input.options.authorization,
  });
}

/**
 * A Checkout.com webhook endpoint.
 * @throws WebhookConfigurationError at startup when the signature key or the authorization
 * cannot work.
 * @example
 * checkoutComEndpoint({
 *   name: 'checkout-com',
 *   signatureKey: process.env.CKO_WEBHOOK_SIGNATURE_KEY!,
 *   authorization: process.env.CKO_WEBHOOK_AUTHORIZATION,
 * })
 */
export function checkoutComEndpoint(options: CheckoutComEndpointOptions): WebhookEndpoint {
  return checkoutComProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
checkoutComEndpoint.kind = KIND;
