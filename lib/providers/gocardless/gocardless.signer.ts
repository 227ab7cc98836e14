import { OptionRename, renamedOption } from '../../core/deprecated-options';
import { SignedDelivery } from '../signed-delivery';
import { goCardlessProvider } from './gocardless.provider';

const SIGNER_WEBHOOK_SECRET: OptionRename = {
  from: 'webhookSecret',
  to: 'secret',
  where: 'signGoCardlessDelivery()',
  code: 'NPW_DEP_GOCARDLESS_SIGNER_WEBHOOK_SECRET',
};

/** Options of `signGoCardlessDelivery()`. */
export interface SignGoCardlessDeliveryOptions {
  /**
   * The webhook body (`{"events":[…]}`): the exact text, or an object sent as
   * `JSON.stringify(payload)`.
   */
  payload: string | object;
  /** The webhook endpoint's secret, used verbatim: the endpoint's `secret`. Required. */
  secret?: string;
  /**
   * The webhook endpoint's secret, under its name before 1.0.
   * @deprecated use `secret`; read until 2.0.
   */
  webhookSecret?: string;
}

/**
 * Signs a delivery the way GoCardless does: `Webhook-Signature` is the hex HMAC-SHA256 of the
 * body under the webhook endpoint's secret. The header verifies with the official SDK's
 * `parse(body, secret, signatureHeader)` from `gocardless-nodejs/webhooks`. `eventIds` are the
 * events' ids (`EV…`), in order, when the webhook carries several; `eventId` is the first.
 * @example
 * signGoCardlessDelivery({
 *   payload: goCardlessFixtures.webhook(goCardlessFixtures.paymentConfirmed({ orderId: 'order-42' })),
 *   secret: process.env.GOCARDLESS_WEBHOOK_SECRET!,
 * })
 */
export function signGoCardlessDelivery(options: SignGoCardlessDeliveryOptions): SignedDelivery {
  const secret = renamedOption(
    options.secret,
    options.webhookSecret,
    SIGNER_WEBHOOK_SECRET,
    'signGoCardlessDelivery()',
  );
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new TypeError("signGoCardlessDelivery() needs secret: the webhook endpoint's secret");
  }
  const body =
    typeof options.payload === 'string' ? options.payload : JSON.stringify(options.payload);
  return goCardlessProvider.signed(body, secret);
}
