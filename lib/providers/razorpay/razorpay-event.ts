import { createHash } from 'node:crypto';
import { PaymentEventType } from '../../core/payment-event-types';
import { JsonObject, readObject, readString } from '../parse-payload';

/** Razorpay event types whose name alone decides the normalized type. */
export const RAZORPAY_EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = {
  'payment.authorized': 'payment.authorized',
  'payment.captured': 'payment.succeeded',
  'payment.failed': 'payment.failed',
  'order.paid': 'payment.succeeded',
  'refund.processed': 'refund.succeeded',
  'refund.failed': 'refund.failed',
  'payment.dispute.created': 'dispute.opened',
  'payment.dispute.won': 'dispute.closed',
  'payment.dispute.lost': 'dispute.closed',
  'payment.dispute.closed': 'dispute.closed',
};

/** The entity an event is about, and the name it has under `payload`. */
export interface RazorpaySubject {
  readonly name: string;
  readonly entity: JsonObject;
}

/** `payload.<name>.entity`, when the payload carries that entity. */
export function entityOf(payload: JsonObject, name: string): JsonObject | undefined {
  return Object.hasOwn(payload, name) ? readObject(readObject(payload, name), 'entity') : undefined;
}

/**
 * The entity an event is about, found from its type: everything before the last dot names it
 * (`refund` of `refund.processed`, `payment.downtime` of `payment.downtime.started`), or that
 * name's last part (`dispute` of `payment.dispute.created`, whose payload also carries the
 * payment), or the type's first part.
 */
export function subjectOf(event: string, payload: JsonObject): RazorpaySubject | undefined {
  const parts = event.split('.');
  const names = [parts.slice(0, -1).join('.'), parts[parts.length - 2], parts[0]];
  for (const name of names) {
    const entity = name === undefined || name === '' ? undefined : entityOf(payload, name);
    if (entity !== undefined) return { name, entity };
  }
  return undefined;
}

/**
 * The dedup key: the event type, the id of the entity it is about and the event's `created_at`,
 * all signed. The same on every retry (Razorpay re-sends the event it made), and different for
 * two events of one entity (a `payment.failed` then a `payment.captured`, two refunds of one
 * payment, a subscription pending again). An event about no entity with an id is keyed by its
 * type, time and the SHA-256 of its body.
 *
 * NOTE: `x-razorpay-event-id` is not signed: a captured delivery re-sent with a new one would
 * be a new event to a key made from it.
 */
export function razorpayEventKey(
  event: string,
  createdAt: number,
  subject: RazorpaySubject | undefined,
  rawBody: Buffer,
): string {
  const id = readString(subject?.entity, 'id');
  if (id !== undefined) {
    return `${event}:${id}:${createdAt}`;
  }
  return `${event}:${createdAt}:${createHash('sha256').update(rawBody).digest('hex')}`;
}
