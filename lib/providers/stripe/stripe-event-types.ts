import { PaymentEventType } from '../../core/payment-event-types';
import { ownValue } from '../../core/own-value';
import { JsonObject, readObject } from '../parse-payload';

/** Stripe types whose name alone decides the normalized type: the definition's type table. */
export const FIXED_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'payment_intent.succeeded': 'payment.succeeded',
  'payment_intent.payment_failed': 'payment.failed',
  'payment_intent.canceled': 'payment.canceled',
  'payment_intent.amount_capturable_updated': 'payment.authorized',
  'checkout.session.async_payment_succeeded': 'payment.succeeded',
  'checkout.session.async_payment_failed': 'payment.failed',
  'checkout.session.expired': 'payment.canceled',
  'refund.failed': 'refund.failed',
  'charge.dispute.created': 'dispute.opened',
  'charge.dispute.closed': 'dispute.closed',
};

/** Event types whose object is a Refund and which report its status as it is now. */
export const REFUND_STATUS_EVENTS: ReadonlySet<string> = new Set([
  'refund.created',
  'refund.updated',
  'charge.refund.updated',
]);

/**
 * A refund's outcome from its own status, when the event reports a change of it: a refund
 * created `succeeded` (cards often are) or `failed`, or an update whose `previous_attributes`
 * names `status`. An update of anything else (metadata, a receipt number) announces nothing.
 */
function mapRefundStatus(
  type: string,
  refund: JsonObject,
  previous: JsonObject | undefined,
): PaymentEventType | undefined {
  // NOTE: previous_attributes lists what the update changed; without it the status decides.
  if (type !== 'refund.created' && previous !== undefined && !Object.hasOwn(previous, 'status')) {
    return undefined;
  }
  if (refund.status === 'succeeded') return 'refund.succeeded';
  if (refund.status === 'failed' || refund.status === 'canceled') return 'refund.failed';
  return undefined;
}

/**
 * Maps the type of a snapshot event (and, where it decides the outcome, its object) to a
 * normalized type.
 */
export function mapSnapshotType(
  type: string,
  data: { readonly object: JsonObject },
): PaymentEventType | undefined {
  const { object } = data;
  if (type === 'checkout.session.completed') {
    // NOTE: "completed" with payment_status "unpaid" is a delayed method (e.g. SEPA) still pending;
    // the money arrives later as checkout.session.async_payment_succeeded.
    return object.payment_status === 'paid' ? 'payment.succeeded' : undefined;
  }
  if (REFUND_STATUS_EVENTS.has(type)) {
    return mapRefundStatus(type, object, readObject(data, 'previous_attributes'));
  }
  return ownValue(FIXED_TYPES, type);
}

/**
 * Maps the type of an event notification to a normalized type: a `v1.` type as the snapshot
 * type it names, where its name alone decides it. A `checkout.session.completed` (paid or not)
 * and a refund's `created`/`updated` (which status) need the object a notification does not
 * carry, so they keep their native type, as every `v2.` type does.
 */
export function mapNotificationType(type: string): PaymentEventType | undefined {
  const v1Type = v1TypeOf(type);
  return v1Type === undefined ? undefined : ownValue(FIXED_TYPES, v1Type);
}

/** `payment_intent.succeeded` of `v1.payment_intent.succeeded`; undefined for other types. */
export function v1TypeOf(type: string): string | undefined {
  return type.startsWith('v1.') && type.length > 3 ? type.slice(3) : undefined;
}
