import { createHash } from 'node:crypto';
import { PaymentEvent } from '../handlers/payment-event.interface';
import { notificationsOf } from '../providers/notifications';
import {
  PaymentStatusQuery,
  ProviderPaymentStatus,
} from '../providers/payment-status-client.interface';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import type { InboxEvent } from '../store/ports/inbox-event';
import type { StoredValues } from '../store/ports/inbox-worker.port';

/**
 * The provider's payload of a stored event, read again from its body through the endpoint's
 * provider; the body's JSON (or text) when the endpoint cannot read it.
 */
export function payloadOf(
  entity: InboxEvent,
  endpoint: WebhookEndpoint | undefined,
  values: StoredValues,
): unknown {
  if (endpoint) {
    try {
      const [notification] = notificationsOf(
        endpoint.provider.normalize({
          rawBody: values.bodyBytes(entity),
          headers: entity.headers,
          receivedAt: entity.receivedAt,
        }),
      );
      return notification.payload;
    } catch {
      // NOTE: the endpoint's configuration changed since the event was stored; fall through.
    }
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
  return {
    paymentRef: entity.paymentRef,
    merchantRef: entity.merchantRef,
    type: entity.type,
    nativeType: entity.nativeType,
    payload: payloadOf(entity, endpoint, values),
  };
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
    attempt,
    verified,
  };
  // NOTE: the payload is parsed from the stored body when a handler first reads it; most
  // handlers act on the normalized fields alone.
  Object.defineProperty(event, 'payload', {
    enumerable: true,
    configurable: true,
    get: () => {
      const value = payloadOf(entity, endpoint, values);
      Object.defineProperty(event, 'payload', { value, enumerable: true, writable: false });
      return value;
    },
  });
  return event;
}

/**
 * `ctx.idempotencyKey`: stable per (endpoint, event, handler) across attempts and workers, from
 * the row's own keys so it never changes with how a value was fitted to its column.
 */
export function handlerIdempotencyKey(entity: InboxEvent, handlerKey: string): string {
  const digest = createHash('sha256')
    .update(`${entity.endpoint}\n${entity.eventId}\n${handlerKey}`)
    .digest('hex');
  return `whk_${digest.slice(0, 40)}`;
}
