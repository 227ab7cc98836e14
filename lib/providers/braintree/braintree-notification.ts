import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { WebhookPayloadError } from '../../core/webhook-errors';
import { ownValue } from '../../core/own-value';
import { parseIsoDate, toCurrency } from '../parse-payload';
import {
  XmlElement,
  XmlSyntaxError,
  childElement,
  childText,
  parseXml,
  toPlainData,
} from './braintree-xml';

const WHAT = 'Braintree notification';
// NOTE: what Braintree's SDKs accept in bt_payload: base64 with line breaks, nothing else.
const PAYLOAD_CHARACTERS = /^[A-Za-z0-9+/=\n]+$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const UTF8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Braintree's kinds by name; a transaction kind means this for a sale, and
 * {@link REFUND_TYPES} for a refund (`type` `credit`).
 */
export const BRAINTREE_TYPES: Readonly<Record<string, PaymentEventType>> = {
  subscription_charged_successfully: 'payment.succeeded',
  subscription_charged_unsuccessfully: 'payment.failed',
  refund_failed: 'refund.failed',
  dispute_opened: 'dispute.opened',
  dispute_won: 'dispute.closed',
  dispute_lost: 'dispute.closed',
  dispute_accepted: 'dispute.closed',
  dispute_auto_accepted: 'dispute.closed',
  dispute_expired: 'dispute.closed',
  local_payment_funded: 'payment.succeeded',
  local_payment_expired: 'payment.canceled',
  transaction_settled: 'payment.succeeded',
  transaction_settlement_declined: 'payment.failed',
};

/** Transaction kinds of a refund (`type` `credit`). */
const REFUND_TYPES: Readonly<Record<string, PaymentEventType>> = {
  transaction_settled: 'refund.succeeded',
  transaction_settlement_declined: 'refund.failed',
};

// NOTE: what names the subject of a notification, in order: the object's own id first.
const SUBJECT_ID_FIELDS = [
  'id',
  'payment-id',
  'transaction-id',
  'token',
  'merchant-public-id',
  'merchant-id',
  'partner-merchant-id',
  'report-date',
];

/** What a verified notification says, read from its signed payload. */
export interface BraintreeNotification {
  /** `kind`, e.g. `'transaction_settled'`. */
  readonly kind: string;
  /** `timestamp` exactly as sent. */
  readonly timestampText: string;
  readonly timestamp: Date;
  /** The dedup key: `kind:subject:timestamp`. */
  readonly key: string;
  /** The type of a refund's transaction kind; other kinds map through BRAINTREE_TYPES. */
  readonly refundType: PaymentEventType | undefined;
  readonly paymentRef?: string;
  readonly merchantRef?: string;
  readonly amount?: number;
  readonly currency?: string;
  readonly status?: string;
  /** `source-merchant-id`, for a partner's notification about a connected merchant. */
  readonly sourceMerchantId?: string;
  /** The notification as plain data, element names as Braintree writes them. */
  readonly data: Record<string, unknown>;
}

/**
 * Decodes `bt_payload` (base64 of UTF-8 XML) and reads the notification.
 * @throws WebhookPayloadError when the payload is not base64 of a `<notification>` with a
 * `kind`, a `timestamp` that is a date and a `subject`.
 */
export function readBraintreeNotification(payload: string): BraintreeNotification {
  const root = parseNotificationXml(decodePayload(payload));
  const kind = childText(root, 'kind');
  const timestampText = childText(root, 'timestamp');
  const timestamp = parseIsoDate(timestampText);
  const subject = childElement(root, 'subject');
  if (kind === undefined || timestampText === undefined || subject === undefined) {
    throw new WebhookPayloadError(
      `${WHAT} is not valid: it needs a kind, a timestamp and a subject`,
    );
  }
  if (timestamp === undefined) {
    throw new WebhookPayloadError(`${WHAT} is not valid: its timestamp is not a date`);
  }
  const object = subject.children[0];
  const transaction = transactionOf(kind, object);
  const isRefund = childText(transaction, 'type') === 'credit';
  const money = moneyOf(object, transaction);
  return {
    kind,
    timestampText,
    timestamp,
    key: `${kind}:${subjectKey(kind, object, transaction)}:${timestampText}`,
    refundType: isRefund ? ownValue(REFUND_TYPES, kind) : undefined,
    paymentRef: isRefund
      ? (childText(transaction, 'refunded-transaction-id') ?? childText(transaction, 'id'))
      : (childText(transaction, 'id') ?? childText(object, 'payment-id')),
    merchantRef: childText(transaction, 'order-id'),
    ...money,
    status:
      object?.name === 'dispute'
        ? childText(object, 'status')
        : (childText(transaction, 'status') ?? childText(object, 'status')),
    sourceMerchantId: childText(root, 'source-merchant-id'),
    data: toPlainData(root) as Record<string, unknown>,
  };
}

function decodePayload(payload: string): string {
  const base64 = payload.replace(/\n/g, '');
  if (!PAYLOAD_CHARACTERS.test(payload) || !BASE64.test(base64)) {
    throw new WebhookPayloadError(`${WHAT} is not valid: bt_payload is not base64`);
  }
  try {
    return UTF8.decode(Buffer.from(base64, 'base64'));
  } catch {
    throw new WebhookPayloadError(`${WHAT} is not valid: bt_payload is not UTF-8 XML`);
  }
}

function parseNotificationXml(xml: string): XmlElement {
  let root: XmlElement;
  try {
    root = parseXml(xml);
  } catch (error) {
    if (!(error instanceof XmlSyntaxError)) throw error;
    throw new WebhookPayloadError(`${WHAT} is not valid XML: ${error.message}`);
  }
  if (root.name !== 'notification') {
    throw new WebhookPayloadError(`${WHAT} is not valid: the root element is not <notification>`);
  }
  return root;
}

/**
 * The transaction a notification is about: the subject itself, a dispute's or a local payment's
 * transaction, or a subscription's newest (Braintree lists them newest first).
 */
function transactionOf(kind: string, object: XmlElement | undefined): XmlElement | undefined {
  if (object === undefined) return undefined;
  if (object.name === 'transaction') return object;
  if (object.name === 'subscription') {
    return kind.startsWith('subscription_charged_')
      ? childElement(childElement(object, 'transactions'), 'transaction')
      : undefined;
  }
  return childElement(object, 'transaction');
}

/** A dispute's disputed amount, else the transaction's amount, in minor units of its currency. */
function moneyOf(
  object: XmlElement | undefined,
  transaction: XmlElement | undefined,
): { amount?: number; currency?: string } {
  const source = object?.name === 'dispute' ? object : transaction;
  const value =
    object?.name === 'dispute'
      ? (childText(object, 'amount-disputed') ?? childText(object, 'amount'))
      : childText(transaction, 'amount');
  const currency = toCurrency(childText(source, 'currency-iso-code'));
  const amount =
    value === undefined || currency === undefined ? undefined : toMinorUnits(value, currency);
  return { amount, currency };
}

/**
 * What the dedup key names as the notification's subject: the object's id (a subscription
 * charge adds the charged transaction's id, so two charges of one subscription never share a
 * key), else the object's name.
 */
function subjectKey(
  kind: string,
  object: XmlElement | undefined,
  transaction: XmlElement | undefined,
): string {
  const field = SUBJECT_ID_FIELDS.find((name) => childText(object, name) !== undefined);
  const id = field === undefined ? (object?.name ?? '') : (childText(object, field) as string);
  const charged = kind.startsWith('subscription_charged_')
    ? childText(transaction, 'id')
    : undefined;
  return charged === undefined ? id : `${id}/${charged}`;
}
