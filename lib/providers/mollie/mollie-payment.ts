import { createHash } from 'node:crypto';
import { toMinorUnits } from '../../core/minor-units';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import {
  JsonObject,
  isJsonObject,
  parseIsoDate,
  readObject,
  readString,
  toCurrency,
} from '../parse-payload';

/** The metadata key that holds the shop's order id, unless an endpoint says otherwise. */
export const DEFAULT_MERCHANT_REF_KEY = 'order_id';

/** A payment's status to the package vocabulary (`paid` → `payment.succeeded`). */
export const PAYMENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  paid: 'payment.succeeded',
  authorized: 'payment.authorized',
  failed: 'payment.failed',
  canceled: 'payment.canceled',
  // NOTE: an expired payment was never completed and moved no money: the customer left it.
  expired: 'payment.canceled',
};

const REFUND_TYPES: Readonly<Record<string, PaymentEventType>> = {
  refunded: 'refund.succeeded',
  failed: 'refund.failed',
  canceled: 'refund.failed',
};

/** When a payment reached its status, by status. */
const STATUS_TIMES: Readonly<Record<string, string>> = {
  paid: 'paidAt',
  authorized: 'authorizedAt',
  failed: 'failedAt',
  canceled: 'canceledAt',
  expired: 'expiredAt',
};

/** What the state of a Mollie payment amounts to for one notification. */
export interface MolliePaymentState {
  /** `payment.<status>`, `refund.<status>` or `chargeback.received`/`chargeback.reversed`. */
  readonly nativeType: string;
  readonly type: PaymentEventType | undefined;
  /** The payment's status, or the refund's for a refund state. */
  readonly status: string;
  readonly amount?: number;
  readonly currency?: string;
  readonly occurredAt?: Date;
}

/**
 * `{ "currency": "EUR", "value": "10.00" }` in minor units by the currency's ISO 4217 exponent,
 * or nothing when it is not such an amount.
 */
export function readMollieAmount(value: unknown): { amount?: number; currency?: string } {
  const object = isJsonObject(value) ? value : undefined;
  const currency = toCurrency(object?.currency);
  const decimal = readString(object, 'value');
  if (currency === undefined) {
    return {};
  }
  const amount = decimal === undefined ? undefined : toMinorUnits(decimal, currency);
  return { amount, currency };
}

/**
 * The shop's order id from a payment's `metadata`: the entry `key` of an object, or of the JSON
 * object a metadata string holds (Mollie returns metadata as it was given: an object, or a
 * string the shop wrote).
 */
export function readMerchantRef(payment: JsonObject | undefined, key: string): string | undefined {
  let metadata: unknown = payment?.metadata;
  if (typeof metadata === 'string') {
    try {
      metadata = JSON.parse(metadata) as unknown;
    } catch {
      return undefined;
    }
  }
  if (!isJsonObject(metadata) || !Object.hasOwn(metadata, key)) {
    return undefined;
  }
  const value = metadata[key];
  if (typeof value === 'number' && Number.isSafeInteger(value)) {
    return String(value);
  }
  return typeof value === 'string' && value.length > 0 ? value : undefined;
}

/** The objects of `_embedded[name]`, when the payment was fetched with them embedded. */
function embedded(payment: JsonObject, name: string): JsonObject[] {
  const list = readObject(payment, '_embedded')?.[name];
  return Array.isArray(list) ? list.filter(isJsonObject) : [];
}

/** The object of the list created last (`createdAt`), the one a new webhook call is about. */
function latest(objects: readonly JsonObject[]): JsonObject | undefined {
  let found: JsonObject | undefined;
  for (const object of objects) {
    const at = parseIsoDate(object.createdAt)?.getTime() ?? 0;
    if (found === undefined || at >= (parseIsoDate(found.createdAt)?.getTime() ?? 0)) {
      found = object;
    }
  }
  return found;
}

/**
 * What a payment's state amounts to: its latest chargeback when it has one, else its latest
 * refund, else its own status. A classic webhook names only the payment, and Mollie calls it
 * for each of these (a status, a refund reaching processing, refunded or failed, a chargeback).
 */
export function paymentState(payment: JsonObject): MolliePaymentState {
  const chargeback = latest(embedded(payment, 'chargebacks'));
  if (chargeback !== undefined) {
    const reversedAt = parseIsoDate(chargeback.reversedAt);
    return {
      nativeType: reversedAt ? 'chargeback.reversed' : 'chargeback.received',
      type: reversedAt ? 'dispute.closed' : 'dispute.opened',
      status: readString(payment, 'status') ?? '',
      ...readMollieAmount(chargeback.amount),
      occurredAt: reversedAt ?? parseIsoDate(chargeback.createdAt),
    };
  }
  const refund = latest(embedded(payment, 'refunds'));
  if (refund !== undefined) {
    const status = readString(refund, 'status') ?? '';
    return {
      nativeType: `refund.${status}`,
      type: ownValue(REFUND_TYPES, status),
      status,
      ...readMollieAmount(refund.amount),
      occurredAt: parseIsoDate(refund.createdAt),
    };
  }
  const status = readString(payment, 'status') ?? '';
  const timeField = ownValue(STATUS_TIMES, status);
  return {
    nativeType: `payment.${status}`,
    type: ownValue(PAYMENT_TYPES, status),
    status,
    ...readMollieAmount(payment.amount),
    occurredAt:
      (timeField === undefined ? undefined : parseIsoDate(payment[timeField])) ??
      parseIsoDate(payment.createdAt),
  };
}

/** The normalized type of a payment status (`paid` → `payment.succeeded`). */
export function paymentStatusType(status: string): PaymentEventType | undefined {
  return ownValue(PAYMENT_TYPES, status);
}

/**
 * A classic webhook's dedup key: the payment id, its status, and a digest of the id and status of
 * each refund and capture and the id and reversal of each chargeback. Two calls about the same
 * state share it (Mollie's retries, or a call made after the state it announced had already
 * moved on); each change Mollie calls about (a status, a refund's step, a chargeback) makes a
 * new one. The digest is left out while the payment has none of them.
 */
export function paymentStateKey(payment: JsonObject & { id: string }): string {
  const parts = [
    ...embedded(payment, 'refunds').map((r) => `refund ${String(r.id)} ${String(r.status)}`),
    ...embedded(payment, 'captures').map((c) => `capture ${String(c.id)} ${String(c.status)}`),
    ...embedded(payment, 'chargebacks').map(
      (c) => `chargeback ${String(c.id)} ${String(c.reversedAt ?? '')}`,
    ),
  ].sort();
  const key = `${payment.id}:${readString(payment, 'status') ?? ''}`;
  if (parts.length === 0) {
    return key;
  }
  const digest = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
  return `${key}:${digest}`;
}
