import { checkEnvelope, defineEnvelope } from '../envelope';
import { equalTo, jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import { JsonObject, parseIsoDate, readObject, readString } from '../parse-payload';
import { NormalizedNotification } from '../webhook-provider.interface';
import { mapNotificationType } from './stripe-event-types';

/** The `object` of an event notification (a thin event); a snapshot event's is `event`. */
export const EVENT_NOTIFICATION_OBJECT = 'v2.core.event';

const EVENT_NOTIFICATION = defineEnvelope({
  id: nonEmptyString(),
  object: equalTo(EVENT_NOTIFICATION_OBJECT),
  type: nonEmptyString(),
  created: optional(string()),
  related_object: optional(jsonObject()),
  context: optional(string()),
});

/** Whether a parsed Stripe body is an event notification rather than a snapshot event. */
export function isEventNotification(body: JsonObject): boolean {
  return body.object === EVENT_NOTIFICATION_OBJECT;
}

/** The object a notification is about, as it names it: `{ id, type, url }`. */
export interface RelatedObjectReference {
  readonly id?: string;
  readonly type?: string;
  readonly url?: string;
}

/** The notification's `related_object`, when it carries one. */
export function relatedObjectOf(notification: unknown): RelatedObjectReference | undefined {
  const related = readObject(notification as JsonObject | undefined, 'related_object');
  if (related === undefined) {
    return undefined;
  }
  return {
    id: readString(related, 'id'),
    type: readString(related, 'type'),
    url: readString(related, 'url'),
  };
}

/**
 * Maps an event notification to the normalized vocabulary. It names its object but does not
 * carry it: the payment reference is the related object's id when that object is a
 * PaymentIntent; amount, currency, status and the order id (metadata) are not in it.
 * @throws WebhookPayloadError when the envelope is not a notification's.
 */
export function normalizeEventNotification(body: JsonObject): NormalizedNotification {
  const notification = checkEnvelope(EVENT_NOTIFICATION, body, 'Stripe event notification');
  const related = relatedObjectOf(body);
  const type = mapNotificationType(notification.type);
  // NOTE: read, not required: a notification of a v2 resource has no snapshot event (it is the
  // only copy), and a signed delivery is never refused for a field it need not carry.
  const snapshotEvent = readString(body, 'snapshot_event');
  return {
    eventId: notification.id,
    type: type ?? `stripe:${notification.type}`,
    nativeType: notification.type,
    // NOTE: a charge or refund notification names the charge or refund only; the PaymentIntent
    // the snapshot event reads from its object is not there (ctx.fetchRelatedObject() has it).
    paymentRef: related?.type === 'payment_intent' ? related.id : undefined,
    occurredAt: parseIsoDate(notification.created),
    payload: body,
    ...(notification.context ? { account: notification.context } : {}),
    // NOTE: a copy only where both copies get the same type: a notification whose type needs the
    // object (a refund's update, a completed Checkout Session) or maps to none is its own
    // event, else the handlers of its snapshot event's type would not run when it came first.
    ...(snapshotEvent && type ? { sameEventAs: snapshotEvent } : {}),
  };
}
