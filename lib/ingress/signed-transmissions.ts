import { createHash } from 'node:crypto';
import { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { NewTransmission } from '../store/ports/inbox-writer.port';
import type { WebhookDelivery } from './webhook-delivery';

/**
 * The transmission to remember for a verified delivery, when its endpoint's provider signs a
 * transmission rather than the body itself; undefined otherwise.
 */
export function transmissionOf(
  endpoint: WebhookEndpoint,
  delivery: WebhookDelivery,
): NewTransmission | undefined {
  const transmission = endpoint.provider.signedTransmission?.({
    rawBody: delivery.rawBody,
    headers: delivery.headers,
    receivedAt: delivery.receivedAt,
  });
  if (transmission === undefined) {
    return undefined;
  }
  const receivedAt = delivery.receivedAt;
  return {
    endpoint: endpoint.name,
    transmissionId: transmission.id,
    bodyDigest: createHash('sha256').update(delivery.rawBody).digest('hex'),
    receivedAt,
    forgetBefore: new Date(receivedAt.getTime() - transmission.replayableSeconds * 1000),
  };
}

/** Why a second body under a transmission id already seen is refused. */
export function otherBodyMessage(endpoint: WebhookEndpoint, transmissionId: string): string {
  const shown = transmissionId.length > 100 ? `${transmissionId.slice(0, 100)}…` : transmissionId;
  return (
    `A different body arrived under transmission id ${JSON.stringify(shown)}, already seen on ` +
    `endpoint "${endpoint.name}" with another body: ${endpoint.provider.kind}'s signature covers the ` +
    'transmission, not these bytes, so the delivery is refused and nothing is stored'
  );
}
