import { createHash } from 'node:crypto';
import { toMinorUnits } from '../../core/minor-units';
import { ownValue } from '../../core/own-value';
import { PaymentEventType } from '../../core/payment-event-types';
import {
  JsonObject,
  isJsonObject,
  parseIsoDate,
  readString,
  toCurrency,
  toIdentifier,
} from '../parse-payload';
import { NormalizedNotification } from '../webhook-provider.interface';

/** A payment as `GET /v1/payments/{id}` returns it: `id` (a number) and `status` at least. */
export type MercadoPagoPayment = JsonObject & {
  readonly id: number | string;
  readonly status: string;
};

const PAYMENT_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  approved: 'payment.succeeded',
  authorized: 'payment.authorized',
  rejected: 'payment.failed',
  cancelled: 'payment.canceled',
  refunded: 'refund.succeeded',
  charged_back: 'dispute.opened',
  in_mediation: 'dispute.opened',
};

/** Payment statuses that say more than its refunds do: the buyer disputes the payment. */
const DISPUTED = new Set(['charged_back', 'in_mediation']);

const REFUND_STATUSES: Readonly<Record<string, PaymentEventType>> = {
  approved: 'refund.succeeded',
  rejected: 'refund.failed',
  cancelled: 'refund.failed',
};

/** What the state of a payment amounts to for one notification. */
export interface MercadoPagoPaymentState {
  /** `payment.<status>`, or `refund.<refund status>` for the latest refund. */
  readonly nativeType: string;
  readonly type: PaymentEventType | undefined;
  /** The payment's `status`. */
  readonly status: string;
  /** In minor units; undefined when the API's decimal does not fit the currency. */
  readonly amount?: number;
  readonly currency?: string;
  readonly occurredAt?: Date;
}

/** Whether a JSON object is a payment the API returned (a stored one has no notification `type`). */
export function isMercadoPagoPayment(body: JsonObject): body is MercadoPagoPayment {
  return (
    !Object.hasOwn(body, 'type') &&
    toIdentifier(body.id) !== undefined &&
    readString(body, 'status') !== undefined
  );
}

/** A decimal amount (a JSON number, or a string) in minor units of `currency`. */
export function decimalToMinorUnits(
  value: unknown,
  currency: string | undefined,
): number | undefined {
  if (currency === undefined) {
    return undefined;
  }
  // NOTE: the API answers JSON numbers (100.5); String() writes them without an exponent below 1e21.
  const text = typeof value === 'number' ? String(value) : value;
  return typeof text === 'string' ? toMinorUnits(text, currency) : undefined;
}

/** The payment's refunds, as the API embeds them. */
function refundsOf(payment: JsonObject): JsonObject[] {
  return Array.isArray(payment.refunds) ? payment.refunds.filter(isJsonObject) : [];
}

/** The refund created last (`date_created`; the later in the list on a tie). */
function latestRefund(refunds: readonly JsonObject[]): JsonObject | undefined {
  let found: JsonObject | undefined;
  for (const refund of refunds) {
    const at = parseIsoDate(refund.date_created)?.getTime() ?? 0;
    if (found === undefined || at >= (parseIsoDate(found.date_created)?.getTime() ?? 0)) {
      found = refund;
    }
  }
  return found;
}

/**
 * What a payment's state amounts to: a dispute (`charged_back`, `in_mediation`) by its status;
 * otherwise its latest refund when it has one (a partial refund leaves the payment `approved`);
 * otherwise its status. Mercado Pago notifies `payment.updated` for each of these.
 */
export function mercadoPagoPaymentState(payment: MercadoPagoPayment): MercadoPagoPaymentState {
  const status = payment.status;
  const currency = toCurrency(payment.currency_id);
  const refund = DISPUTED.has(status) ? undefined : latestRefund(refundsOf(payment));
  if (refund !== undefined) {
    const refundStatus = readString(refund, 'status') ?? '';
    return {
      nativeType: `refund.${refundStatus}`,
      type: ownValue(REFUND_STATUSES, refundStatus),
      status,
      amount: decimalToMinorUnits(refund.amount, currency),
      currency,
      occurredAt: parseIsoDate(refund.date_created),
    };
  }
  return {
    nativeType: `payment.${status}`,
    type: ownValue(PAYMENT_STATUSES, status),
    status,
    amount: decimalToMinorUnits(payment.transaction_amount, currency),
    currency,
    occurredAt:
      (status === 'approved' || status === 'authorized'
        ? parseIsoDate(payment.date_approved)
        : parseIsoDate(payment.date_last_updated)) ?? parseIsoDate(payment.date_created),
  };
}

/**
 * The dedup key of a payment's state: `payment:<id>:<status>`, then, once anything was refunded,
 * a digest of `transaction_amount_refunded` and each refund's id, amount and status. Every
 * notification about the same state shares it (`payment.created` and `payment.updated` of an
 * approved payment, Mercado Pago's retries); each status change and each refund (or a refund's
 * change of status) makes a new one.
 */
export function mercadoPagoPaymentKey(payment: MercadoPagoPayment): string {
  const key = `payment:${String(toIdentifier(payment.id))}:${payment.status}`;
  const refunded = payment.transaction_amount_refunded;
  const parts = refundsOf(payment)
    .map((r) => `refund ${String(r.id)} ${String(r.amount)} ${String(r.status)}`)
    .sort();
  if (parts.length === 0 && (refunded === undefined || refunded === null || refunded === 0)) {
    return key;
  }
  parts.push(`refunded ${String(refunded)}`);
  const digest = createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
  return `${key}:${digest}`;
}

/**
 * A payment as the API returned it: typed by its state, keyed by it (see
 * `mercadoPagoPaymentKey`); `storedBody` when it is stored in place of the notification.
 */
export function normalizeMercadoPagoPayment(
  payment: MercadoPagoPayment,
  storedBody?: string,
): NormalizedNotification {
  const state = mercadoPagoPaymentState(payment);
  return {
    eventId: mercadoPagoPaymentKey(payment),
    type: state.type ?? `mercado-pago:${state.nativeType}`,
    nativeType: state.nativeType,
    paymentRef: toIdentifier(payment.id),
    merchantRef:
      typeof payment.external_reference === 'string' && payment.external_reference !== ''
        ? payment.external_reference
        : undefined,
    amount: state.amount,
    currency: state.currency,
    status: state.status,
    occurredAt: state.occurredAt,
    payload: payment,
    // NOTE: what MercadoPagoStatusClient.fetchStatus() reads of the same payment.
    fetchedStatus: {
      paymentRef: toIdentifier(payment.id) ?? '',
      status: state.status,
      type: state.type,
      amount: state.amount,
      currency: state.currency,
    },
    ...(storedBody === undefined ? {} : { storedBody }),
  };
}
