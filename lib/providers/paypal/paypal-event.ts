import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import { toMinorUnits } from '../../core/minor-units';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  JsonObject,
  isJsonObject,
  parseIsoDate,
  parseJsonObject,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';
import { NormalizedNotification } from '../webhook-provider.interface';

const KIND = 'paypal';
const CAPTURE_LINK = /\/v2\/payments\/captures\/([^/?#]+)$/;

const PAYPAL_EVENT = defineEnvelope({
  id: nonEmptyString(),
  event_type: nonEmptyString(),
  resource: jsonObject(),
  create_time: optional(string()),
});

/** PayPal's event types by name. */
export const PAYPAL_EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'PAYMENT.CAPTURE.COMPLETED': 'payment.succeeded',
  'PAYMENT.CAPTURE.DENIED': 'payment.failed',
  'PAYMENT.CAPTURE.DECLINED': 'payment.failed',
  'PAYMENT.CAPTURE.REFUNDED': 'refund.succeeded',
  'CUSTOMER.DISPUTE.CREATED': 'dispute.opened',
  'CUSTOMER.DISPUTE.RESOLVED': 'dispute.closed',
};

/** Which resource an event type carries, as far as references and amounts are concerned. */
type ResourceFamily = 'capture' | 'refund' | 'authorization' | 'dispute' | 'other';

function resourceFamily(eventType: string): ResourceFamily {
  // NOTE: a reversal (chargeback debit) carries a refund resource, like a refund does.
  if (eventType === 'PAYMENT.CAPTURE.REFUNDED' || eventType === 'PAYMENT.CAPTURE.REVERSED') {
    return 'refund';
  }
  if (eventType.startsWith('PAYMENT.CAPTURE.')) return 'capture';
  if (eventType.startsWith('PAYMENT.AUTHORIZATION.')) return 'authorization';
  if (eventType.startsWith('CUSTOMER.DISPUTE.')) return 'dispute';
  return 'other';
}

/** The capture a refund belongs to: the id at the end of its `rel: "up"` link. */
function capturedPaymentOf(refund: JsonObject): string | undefined {
  const links = Array.isArray(refund.links) ? refund.links : [];
  for (const link of links) {
    if (isJsonObject(link) && link.rel === 'up') {
      const href = readString(link, 'href');
      const match = href === undefined ? null : CAPTURE_LINK.exec(href);
      if (match) return decodePathSegment(match[1]);
    }
  }
  return undefined;
}

function decodePathSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    // NOTE: a malformed escape (e.g. "%E0%A4%A") leaves the reference unknown rather than failing.
    return undefined;
  }
}

function firstDisputedTransaction(dispute: JsonObject): JsonObject | undefined {
  const transactions = dispute.disputed_transactions;
  return Array.isArray(transactions) && isJsonObject(transactions[0]) ? transactions[0] : undefined;
}

/** `{ value: '10.99', currency_code: 'USD' }` → 1099 and `'USD'`. */
function readMoney(money: JsonObject | undefined): { amount?: number; currency?: string } {
  const currency = toCurrency(money?.currency_code);
  const value = readString(money, 'value');
  if (currency === undefined) return {};
  return { amount: value === undefined ? undefined : toMinorUnits(value, currency), currency };
}

/**
 * Parses a PayPal webhook event and maps it to the normalized vocabulary.
 * @throws WebhookPayloadError
 */
export function readPayPalEvent(rawBody: Buffer): NormalizedNotification {
  const body = parseJsonObject(rawBody, 'PayPal event body');
  const event = checkEnvelope(PAYPAL_EVENT, body, 'PayPal event');
  const { resource } = event;
  const family = resourceFamily(event.event_type);

  let paymentRef: string | undefined;
  let merchantRef = readString(resource, 'custom_id') ?? readString(resource, 'invoice_id');
  let money = readMoney(readObject(resource, 'amount'));
  if (family === 'capture' || family === 'authorization') {
    paymentRef = readString(resource, 'id');
  } else if (family === 'refund') {
    // NOTE: the refund's own id is no payment; without an "up" link the reference stays unknown.
    paymentRef = capturedPaymentOf(resource);
  } else if (family === 'dispute') {
    const transaction = firstDisputedTransaction(resource);
    paymentRef = readString(transaction, 'seller_transaction_id');
    merchantRef = readString(transaction, 'custom') ?? readString(transaction, 'invoice_number');
    money = readMoney(readObject(resource, 'dispute_amount'));
  }

  return {
    eventId: event.id,
    type: ownValue(PAYPAL_EVENT_TYPES, event.event_type) ?? `${KIND}:${event.event_type}`,
    nativeType: event.event_type,
    paymentRef,
    merchantRef,
    amount: money.amount,
    currency: money.currency,
    status: readString(resource, 'status'),
    occurredAt: parseIsoDate(event.create_time),
    payload: body,
  };
}
