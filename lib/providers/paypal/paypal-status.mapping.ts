import { toMinorUnits } from '../../core/minor-units';
import { PaymentEventType } from '../../core/payment-event-types';
import { JsonObject, isJsonObject, readObject, readString, toCurrency } from '../parse-payload';

/** The PayPal resource a status lookup reads, and the path it is read at. */
export interface PayPalResource {
  /** What it is, as messages name it: `'capture'`, `'refund'`, `'order'`. */
  readonly kind: 'capture' | 'refund' | 'order';
  /** Its id. */
  readonly id: string;
}

/** The API path of a resource, below the base URL. */
export function resourcePath(resource: PayPalResource): string {
  const id = encodeURIComponent(resource.id);
  switch (resource.kind) {
    case 'capture':
      return `/v2/payments/captures/${id}`;
    case 'refund':
      return `/v2/payments/refunds/${id}`;
    case 'order':
      return `/v2/checkout/orders/${id}`;
  }
}

/**
 * What a resource's status amounts to.
 *
 * | resource | PayPal status | type |
 * | --- | --- | --- |
 * | capture | `COMPLETED`, `PARTIALLY_REFUNDED` | `payment.succeeded` |
 * | capture | `REFUNDED` | `refund.succeeded` |
 * | capture | `DECLINED`, `FAILED` | `payment.failed` |
 * | refund | `COMPLETED` | `refund.succeeded` |
 * | refund | `FAILED`, `CANCELLED` | `refund.failed` |
 * | order | `COMPLETED` | `payment.succeeded` |
 * | order | `VOIDED` | `payment.canceled` |
 * | anything else (`PENDING`, `APPROVED`, …) | | undefined |
 */
export function statusType(
  kind: PayPalResource['kind'],
  status: string,
): PaymentEventType | undefined {
  const table: Readonly<
    Record<PayPalResource['kind'], Readonly<Record<string, PaymentEventType>>>
  > = {
    capture: {
      COMPLETED: 'payment.succeeded',
      PARTIALLY_REFUNDED: 'payment.succeeded',
      REFUNDED: 'refund.succeeded',
      DECLINED: 'payment.failed',
      FAILED: 'payment.failed',
    },
    refund: { COMPLETED: 'refund.succeeded', FAILED: 'refund.failed', CANCELLED: 'refund.failed' },
    order: { COMPLETED: 'payment.succeeded', VOIDED: 'payment.canceled' },
  };
  return Object.prototype.hasOwnProperty.call(table[kind], status)
    ? table[kind][status]
    : undefined;
}

/** The amount of a resource: its `amount`, or an order's first purchase unit's. */
export function resourceAmount(resource: JsonObject): { amount?: number; currency?: string } {
  const units = resource.purchase_units;
  const money =
    readObject(resource, 'amount') ??
    (Array.isArray(units) && isJsonObject(units[0]) ? readObject(units[0], 'amount') : undefined);
  const currency = toCurrency(money?.currency_code);
  const value = readString(money, 'value');
  if (currency === undefined) return {};
  return { amount: value === undefined ? undefined : toMinorUnits(value, currency), currency };
}

/** A PayPal webhook event as the notification carried it: its id, type and resource. */
export interface PayPalEventClaim {
  readonly id: string;
  readonly eventType: string;
  readonly resource: JsonObject;
}

/** The event a notification's payload is, when it is one (reconciliation asks without one). */
export function eventClaimOf(payload: unknown): PayPalEventClaim | undefined {
  if (!isJsonObject(payload) || !isJsonObject(payload.resource)) return undefined;
  const id = readString(payload, 'id');
  const eventType = readString(payload, 'event_type');
  if (id === undefined || eventType === undefined) return undefined;
  return { id, eventType, resource: payload.resource };
}

/** The resource an event is about, to read its current status. */
export function resourceOfEvent(claim: PayPalEventClaim): PayPalResource | undefined {
  const id = readString(claim.resource, 'id');
  if (id === undefined) return undefined;
  if (
    claim.eventType === 'PAYMENT.CAPTURE.REFUNDED' ||
    claim.eventType === 'PAYMENT.CAPTURE.REVERSED'
  ) {
    return { kind: 'refund', id };
  }
  if (claim.eventType.startsWith('PAYMENT.CAPTURE.')) return { kind: 'capture', id };
  if (claim.eventType.startsWith('CHECKOUT.ORDER.')) return { kind: 'order', id };
  return undefined;
}

/**
 * Where the notification differs from PayPal's own copy of the event: the event type, the
 * resource id, the order id (`custom_id`, `invoice_id`) or the amount; undefined when they agree.
 */
export function differenceFromPayPal(
  claim: PayPalEventClaim,
  paypal: JsonObject,
): string | undefined {
  const theirs = readObject(paypal, 'resource');
  const fields: [string, unknown, unknown][] = [
    ['event_type', claim.eventType, paypal.event_type],
    ['resource.id', claim.resource.id, theirs?.id],
    ['resource.custom_id', claim.resource.custom_id, theirs?.custom_id],
    ['resource.invoice_id', claim.resource.invoice_id, theirs?.invoice_id],
    ['resource.amount', moneyText(claim.resource), moneyText(theirs)],
  ];
  const differing = fields.filter(([, ours, paypals]) => ours !== paypals).map(([name]) => name);
  return differing.length > 0 ? differing.join(', ') : undefined;
}

function moneyText(resource: JsonObject | undefined): string | undefined {
  const money = readObject(resource, 'amount');
  const value = readString(money, 'value');
  const currency = readString(money, 'currency_code');
  return value === undefined && currency === undefined ? undefined : `${value} ${currency}`;
}
