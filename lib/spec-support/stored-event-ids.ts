import type { WebhookEndpoint } from 'nestjs-payment-webhooks';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';

/**
 * The ids an endpoint stores a delivery's notifications under, got as its ingress gets them: the
 * provider verifies the exact bytes (a GET delivery's query string as Latin-1) and headers,
 * awaited for a provider that fetches, then normalizes that same request.
 * @throws what `verify()` or `normalize()` throws for a delivery the endpoint refuses.
 */
export async function storedEventIds(
  endpoint: WebhookEndpoint,
  delivery: SignedDelivery,
): Promise<string[]> {
  const headers = Object.fromEntries(
    Object.entries(delivery.headers).map(([name, value]) => [name.toLowerCase(), value]),
  );
  const encoding = delivery.method === 'GET' ? 'latin1' : 'utf8';
  const request = {
    rawBody: Buffer.from(delivery.body, encoding),
    headers,
    receivedAt: new Date(),
  };
  await endpoint.provider.verify(request);
  return [endpoint.provider.normalize(request)].flat().map((notification) => notification.eventId);
}
