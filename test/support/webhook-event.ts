import { createHash } from 'node:crypto';
import { NewWebhookEvent } from 'nestjs-payment-webhooks';

/**
 * An event as the ingress hands it to `store.record()`, for tests that call the store directly:
 * a Stripe event with its body and digest, received now; `overrides` replace any field.
 */
export function newWebhookEvent(
  eventId: string,
  overrides: Partial<NewWebhookEvent> = {},
): NewWebhookEvent {
  const rawBody = JSON.stringify({ id: eventId });
  return {
    endpoint: 'stripe',
    provider: 'stripe',
    eventId,
    type: 'stripe:customer.created',
    nativeType: 'customer.created',
    paymentRef: null,
    merchantRef: null,
    amount: null,
    currency: null,
    paymentStatus: null,
    occurredAt: null,
    receivedAt: new Date(),
    rawBody,
    bodySha256: createHash('sha256').update(rawBody).digest('hex'),
    headers: {},
    status: 'ignored',
    ...overrides,
  };
}
