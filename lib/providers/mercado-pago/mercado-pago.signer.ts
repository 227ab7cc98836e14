import { randomUUID } from 'node:crypto';
import { withEventIds } from '../delivery-event-ids';
import { SignedDelivery } from '../signed-delivery';
import { toIdentifier } from '../parse-payload';
import { MercadoPagoWebhookProvider } from './mercado-pago.provider';
import { mercadoPagoSignature } from './mercado-pago.signature';

/** Options of `signMercadoPagoDelivery()`. */
export interface SignMercadoPagoDeliveryOptions {
  /** The notification: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /** The application's webhook secret signature, used verbatim. */
  secret: string;
  /**
   * `ts` of `x-signature`, written as given: Unix seconds (the Webhooks page) or milliseconds
   * (the Orders page's example).
   * @default now, in Unix seconds
   */
  timestamp?: number;
  /** `x-request-id`. @default a random UUID, as Mercado Pago sends */
  requestId?: string;
}

/** `data.id` of a notification body, as text; undefined when it has none. */
function dataIdOf(body: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return undefined;
  }
  const data = (parsed as { data?: { id?: unknown } } | null)?.data;
  return typeof data === 'object' && data !== null ? toIdentifier(data.id) : undefined;
}

/**
 * Signs a delivery the way Mercado Pago does: `x-signature: ts=…,v1=…`, the hex HMAC-SHA256 of
 * `id:{data.id};request-id:{x-request-id};ts:{ts};` under the secret, with `data.id` taken from
 * the body as written (the `id` part left out when the body has none), and `x-request-id`.
 * Mercado Pago also puts `data.id` and `type` in the URL's query; the endpoint does not read it.
 * `eventId` is the notification's `id`, the key an endpoint stores it under, except a `payment`
 * notification at an endpoint with `api`: that one is stored as the payment the API returns,
 * keyed by the payment's state, which only the API knows.
 * @example
 * signMercadoPagoDelivery({
 *   payload: mercadoPagoFixtures.orderProcessed({ orderId: 'order-42', amount: 1999 }),
 *   secret: process.env.MERCADO_PAGO_WEBHOOK_SECRET!,
 * })
 */
export function signMercadoPagoDelivery(options: SignMercadoPagoDeliveryOptions): SignedDelivery {
  const { secret } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const ts = String(options.timestamp ?? Math.floor(Date.now() / 1000));
  const requestId = options.requestId ?? randomUUID();
  const v1 = mercadoPagoSignature(secret, { dataId: dataIdOf(body), requestId, ts });
  const delivery: SignedDelivery = {
    provider: 'mercado-pago',
    method: 'POST',
    body,
    headers: {
      'content-type': 'application/json',
      'x-signature': `ts=${ts},v1=${v1}`,
      'x-request-id': requestId,
    },
  };
  return withEventIds(delivery, () => new MercadoPagoWebhookProvider({ secret }));
}
