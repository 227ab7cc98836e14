import { withEventIds } from '../delivery-event-ids';
import { SignatureScheme } from '../define-provider';
import { SignedDelivery } from '../signed-delivery';
import { jsonPost } from '../signing-input';
import { MollieEndpointOptions, mollieProvider } from './mollie.provider';

/** Options of `signMollieDelivery()`. */
export interface SignMollieDeliveryOptions {
  /** The next-gen event: the exact body text, or an object sent as `JSON.stringify(payload)`. */
  payload: string | object;
  /**
   * The webhook's signing secret, used verbatim. A list signs with each, as Mollie does for 24
   * hours while a secret is rotated: the signatures go in one header joined by `, `, the way
   * Node hands a repeated header to the app.
   */
  signingSecret: string | readonly string[];
}

/**
 * Signs a next-gen webhook delivery the way Mollie does: `X-Mollie-Signature: sha256=<hex>`, the
 * HMAC-SHA256 of the raw body keyed by the webhook's signing secret. Classic webhooks
 * (`id=tr_…`) are not signed: an endpoint confirms them with the Mollie API. `eventId` is the
 * event's `id` (`event_…`).
 * @example
 * signMollieDelivery({
 *   payload: mollieFixtures.paymentEvent('payment.paid', { orderId: 'order-42' }),
 *   signingSecret: process.env.MOLLIE_WEBHOOK_SECRET!,
 * })
 */
export function signMollieDelivery(options: SignMollieDeliveryOptions): SignedDelivery {
  const { signingSecret } = options;
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  const secrets: readonly string[] =
    typeof signingSecret === 'string' ? [signingSecret] : signingSecret;
  const scheme = mollieProvider.definition.signature as SignatureScheme;
  const signature = secrets
    .map((secret) => scheme.sign(body, secret)['x-mollie-signature'])
    .join(', ');
  const delivery = jsonPost('mollie', { text: body }, { 'x-mollie-signature': signature });
  return withEventIds(delivery, () =>
    mollieProvider.provider({ signingSecret } as MollieEndpointOptions),
  );
}
