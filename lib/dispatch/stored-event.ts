import { createHash } from 'node:crypto';
import { PaymentEvent } from '../handlers/payment-event.interface';
import { notificationsOf } from '../providers/notifications';
import {
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../providers/payment-status-client.interface';
import { NormalizedNotification, WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { InboxEvent } from '../store/ports/inbox-event';
import type { StoredValues } from '../store/ports/inbox-worker.port';

/** A stored event's notification, read again from its body; undefined when it cannot be. */
function storedNotification(
  entity: InboxEvent,
  endpoint: WebhookEndpoint | undefined,
  values: StoredValues,
): NormalizedNotification | undefined {
  if (!endpoint) {
    return undefined;
  }
  try {
    const [notification] = notificationsOf(
      endpoint.provider.normalize({
        rawBody: values.bodyBytes(entity),
        headers: entity.headers,
        receivedAt: entity.receivedAt,
      }),
    );
    return notification;
  } catch {
    // NOTE: the endpoint's configuration changed since the event was stored.
    return undefined;
  }
}

/**
 * The provider's payload of a stored event, read again from its body through the endpoint's
 * provider; the body's JSON (or text) when the endpoint cannot read it.
 */
function payloadOfNotification(
  entity: InboxEvent,
  notification: NormalizedNotification | undefined,
  values: StoredValues,
): unknown {
  if (notification) {
    return notification.payload;
  }
  const body = values.bodyBytes(entity).toString('utf8');
  try {
    return JSON.parse(body) as unknown;
  } catch {
    return body;
  }
}

/** What a status client is asked about a stored event. */
export function statusQuery(
  entity: InboxEvent,
  endpoint: WebhookEndpoint | undefined,
  values: StoredValues,
): PaymentStatusQuery {
  const notification = storedNotification(entity, endpoint, values);
  return {
    paymentRef: entity.paymentRef,
    merchantRef: entity.merchantRef,
    type: entity.type,
    nativeType: entity.nativeType,
    payload: payloadOfNotification(entity, notification, values),
    account: notification?.account ?? null,
  };
}

/**
 * The provider's answer a stored event is, when its endpoint's provider stored the payment it
 * fetched while the delivery was answered (`fetchedStatus`): checked at the event's receipt.
 */
export function fetchedStatusOf(
  entity: InboxEvent,
  endpoint: WebhookEndpoint | undefined,
  values: StoredValues,
): ProviderPaymentStatus | undefined {
  const fetched = storedNotification(entity, endpoint, values)?.fetchedStatus;
  return fetched && { ...fetched, checkedAt: entity.receivedAt };
}

/** The event handlers receive for a stored row on this attempt. */
export function toPaymentEvent(
  entity: InboxEvent,
  endpoint: WebhookEndpoint | undefined,
  attempt: number,
  verified: ProviderPaymentStatus | null,
  values: StoredValues,
): PaymentEvent {
  const event = {
    id: entity.id,
    endpoint: entity.endpoint,
    provider: entity.provider,
    eventId: entity.eventId,
    type: entity.type as PaymentEvent['type'],
    nativeType: entity.nativeType,
    paymentRef: entity.paymentRef,
    merchantRef: entity.merchantRef,
    amount: entity.amount,
    currency: entity.currency,
    status: entity.paymentStatus,
    occurredAt: entity.occurredAt,
    receivedAt: entity.receivedAt,
    payload: undefined as unknown,
    account: null as string | null,
    tenant: tenantOf(entity),
    attempt,
    verified,
  };
  // NOTE: the payload and the account are read from the stored body, once, when a handler
  // first reads one of them; most handlers act on the normalized fields alone.
  let stored: { notification: NormalizedNotification | undefined } | undefined;
  const notification = () => {
    stored ??= { notification: storedNotification(entity, endpoint, values) };
    return stored.notification;
  };
  const fromBody = (name: 'payload' | 'account', read: () => unknown) =>
    Object.defineProperty(event, name, {
      enumerable: true,
      configurable: true,
      get: () => {
        const value = read();
        Object.defineProperty(event, name, { value, enumerable: true, writable: false });
        return value;
      },
    });
  fromBody('payload', () => payloadOfNotification(entity, notification(), values));
  fromBody('account', () => notification()?.account ?? null);
  return event;
}

/** An event's tenant as handlers see it: null at an endpoint without tenants. */
export function tenantOf(entity: Pick<InboxEvent, 'tenant'>): string | null {
  return entity.tenant ? entity.tenant : null;
}

/**
 * `ctx.idempotencyKey`: stable per (endpoint, tenant, event, handler) across attempts and workers, from
 * the row's own keys so it never changes with how a value was fitted to its column.
 */
export function handlerIdempotencyKey(entity: InboxEvent, handlerKey: string): string {
  // NOTE: the tenant joins the key only where there is one, so keys of other events stay as
  // they were; two tenants' events of one id are two events with two keys.
  const endpoint = entity.tenant ? `${entity.endpoint}/${entity.tenant}` : entity.endpoint;
  const digest = createHash('sha256')
    .update(`${endpoint}\n${entity.eventId}\n${handlerKey}`)
    .digest('hex');
  return `whk_${digest.slice(0, 40)}`;
}
