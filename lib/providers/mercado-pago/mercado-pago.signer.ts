import { SignedDelivery } from '../signed-delivery';
import { signedMercadoPagoDelivery } from './mercado-pago.provider';

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
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return signedMercadoPagoDelivery(body, options.secret, options.timestamp, options.requestId);
}
