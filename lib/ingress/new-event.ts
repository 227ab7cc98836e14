import { createHash } from 'node:crypto';
import type {
  NormalizedNotification,
  WebhookEndpoint,
} from '../providers/webhook-provider.interface';
import type { NewWebhookEvent } from '../store/ports/inbox-writer.port';
import type { WebhookDelivery } from './webhook-delivery';

/** Event times outside these are nonsense from the sender and would not fit every database. */
const EARLIEST_EVENT_TIME = Date.UTC(1970, 0, 1);
const LATEST_EVENT_TIME = Date.UTC(9999, 11, 31);

/** The provider's event time when it is a plausible one, otherwise unknown. */
function storableDate(value: Date | undefined): Date | null {
  const time = value?.getTime();
  return time !== undefined && time >= EARLIEST_EVENT_TIME && time <= LATEST_EVENT_TIME
    ? value!
    : null;
}

/**
 * The inbox row of one verified notification: the delivery's bytes (or the body the provider
 * stores for it), the sanitized headers, and `pending` when a handler wants it, else `ignored`.
 * `snapshotEndpoint` is the snapshot endpoint of the endpoint's pair, when it is paired: the
 * event's copies at both endpoints share one key (`same_event`). Elsewhere the key is unset.
 */
export function newEventOf(
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
  notification: NormalizedNotification,
  headers: Record<string, string>,
  wanted: boolean,
  snapshotEndpoint?: string,
): NewWebhookEvent {
  const rawBody =
    notification.storedBody === undefined
      ? delivery.rawBody
      : Buffer.from(notification.storedBody, 'utf8');
  return {
    endpoint: endpoint.name,
    tenant: delivery.tenant ?? '',
    provider: endpoint.provider.kind,
    eventId: notification.eventId,
    type: notification.type,
    nativeType: notification.nativeType,
    paymentRef: notification.paymentRef ?? null,
    merchantRef: notification.merchantRef ?? null,
    amount: notification.amount ?? null,
    currency: notification.currency ?? null,
    paymentStatus: notification.status ?? null,
    occurredAt: storableDate(notification.occurredAt),
    receivedAt: delivery.receivedAt,
    rawBody,
    bodySha256: createHash('sha256').update(rawBody).digest('hex'),
    headers,
    status: wanted ? 'pending' : 'ignored',
    sameEvent:
      snapshotEndpoint !== undefined && notification.sameEventAs !== undefined
        ? `${snapshotEndpoint}:${notification.sameEventAs}`
        : null,
  };
}
