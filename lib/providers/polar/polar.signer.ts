import { randomUUID } from 'node:crypto';
import { withEventIds } from '../delivery-event-ids';
import { DeliveryPayload, IdentifiedDelivery } from '../signed-delivery';
import { signStandardWebhookDelivery } from '../standard-webhooks/standard-webhooks.signer';
import { isStandardPolarSecret, polarSigningKey } from './polar.keys';
import { polarProvider } from './polar.provider';

/** Options of `signPolarDelivery()`. */
export interface SignPolarDeliveryOptions {
  /** The event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: DeliveryPayload;
  /** The endpoint's secret as Polar shows it (the one the receiving endpoint is given). */
  secret: string;
  /**
   * Which key Polar signs with: `'standard'` (the spec's `whsec_` + base64, endpoints made since
   * September 2026) or `'utf8'` (the UTF-8 bytes of the whole secret, older endpoints).
   * @default 'standard' when the secret is `whsec_` + base64, else 'utf8'
   */
  scheme?: 'standard' | 'utf8';
  /**
   * `webhook-id`, the dedup key; give the same one to send a retry.
   * @default a fresh UUID, as Polar's event ids are
   */
  id?: string;
  /**
   * Signed `webhook-timestamp` in Unix seconds.
   * @default now
   */
  timestamp?: number;
}

/**
 * Signs a delivery the way Polar does: Standard Webhooks headers over `${id}.${timestamp}.${body}`
 * with the key of the endpoint's secret. A `'utf8'` delivery verifies with
 * `validateEvent(body, headers, secret)` of `@polar-sh/sdk/webhooks`, a `'standard'` one with
 * `new Webhook(secret).verify(body, headers)` of `standardwebhooks`. Its `eventId` is the
 * `webhook-id`, Polar's event id.
 * @throws Error when `scheme` is `'standard'` and the secret is not `whsec_` + base64.
 * @example
 * signPolarDelivery({
 *   payload: polarFixtures.orderPaid({ orderId: 'order-42', amount: 1999 }),
 *   secret: process.env.POLAR_WEBHOOK_SECRET!,
 * })
 */
export function signPolarDelivery(options: SignPolarDeliveryOptions): IdentifiedDelivery {
  const scheme = options.scheme ?? (isStandardPolarSecret(options.secret) ? 'standard' : 'utf8');
  if (scheme === 'standard' && !isStandardPolarSecret(options.secret)) {
    throw new Error('signPolarDelivery: a standard secret is "whsec_" followed by padded base64');
  }
  const delivery = signStandardWebhookDelivery({
    payload: options.payload,
    secret: polarSigningKey(options.secret, scheme),
    id: options.id ?? randomUUID(),
    timestamp: options.timestamp,
    kind: 'polar',
  });
  return withEventIds(delivery, () => polarProvider.provider({ secret: options.secret }));
}
