import { notificationsOf } from '../providers/notifications';
import { NormalizedNotification, WebhookProvider } from '../providers/webhook-provider.interface';
import type { InboxEvent } from '../store/ports/inbox-event';
import type { StoredValues } from '../store/ports/inbox-worker.port';

/** The fields of an event the inbox may hold shortened, and where a notification carries each. */
const FITTED_FIELDS = {
  eventId: (notification) => notification.eventId,
  type: (notification) => notification.type,
  nativeType: (notification) => notification.nativeType,
  paymentRef: (notification) => notification.paymentRef,
  merchantRef: (notification) => notification.merchantRef,
  currency: (notification) => notification.currency,
  paymentStatus: (notification) => notification.status,
} satisfies Partial<
  Record<keyof InboxEvent, (notification: NormalizedNotification) => string | undefined>
>;

type FittedField = keyof typeof FITTED_FIELDS;

const FIELDS = Object.keys(FITTED_FIELDS) as FittedField[];

/**
 * The event with the values its delivery carried, where its row holds them fitted to their
 * columns (a long id shortened, a NUL replaced: see `fitColumn()`). They are read again from the
 * stored body, which keeps every byte; a value is taken only when it is the one the row was
 * stored from. Returns `entity` itself when nothing was fitted (the usual case: no parsing).
 */
export function withFullValues(
  entity: InboxEvent,
  provider: WebhookProvider | undefined,
  values: StoredValues,
): InboxEvent {
  const fitted = FIELDS.filter((field) => {
    const stored = entity[field];
    return typeof stored === 'string' && values.isFitted(stored);
  });
  if (fitted.length === 0 || provider === undefined) {
    return entity;
  }
  const notification = notificationOf(entity, provider, values);
  if (notification === undefined) {
    return entity;
  }
  const full = { ...entity };
  for (const field of fitted) {
    const value = FITTED_FIELDS[field](notification);
    if (value !== undefined && values.isStoredFormOf(value, entity[field] as string)) {
      (full as unknown as Record<FittedField, string>)[field] = value;
    }
  }
  return full;
}

/** The stored event's notification, read again from its body; undefined when it cannot be. */
function notificationOf(
  entity: InboxEvent,
  provider: WebhookProvider,
  values: StoredValues,
): NormalizedNotification | undefined {
  try {
    const notifications = notificationsOf(
      provider.normalize({
        rawBody: values.bodyBytes(entity),
        headers: entity.headers,
        receivedAt: entity.receivedAt,
      }),
    );
    // NOTE: the row's own notification is the one its dedup key was stored from (a batched
    // provider stores each item's body on its own, but a custom one may store the whole batch).
    return notifications.find((notification) =>
      values.isStoredFormOf(notification.eventId, entity.eventId),
    );
  } catch {
    // NOTE: the endpoint's configuration changed since the event was stored, or its body was
    // pruned: the stored values are what there is.
    return undefined;
  }
}
