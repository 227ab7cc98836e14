import { SignedDelivery } from '../signed-delivery';
import { tbankDelivery } from './tbank.provider';

/** Options of `signTBankDelivery()`. */
export interface SignTBankDeliveryOptions {
  /**
   * The notification without `Token` (a `Token` given here is replaced), e.g. from
   * `tbankFixtures`. Sent as `JSON.stringify` writes it, `Token` last.
   */
  payload: Readonly<Record<string, unknown>>;
  /** The terminal password. */
  password: string;
}

/**
 * A notification exactly as T-Bank posts it: a JSON body with `Token` computed from the terminal
 * password, sent as `application/json`. `eventId` is `<PaymentId>:<Status>` (with the amount
 * for a status one payment can reach more than once), the key the endpoint stores it under.
 * @throws Error when `payload` has a `Password` field (T-Bank never sends one).
 * @example
 * const delivery = signTBankDelivery({
 *   password: 'rpnstdt1ekalr00f',
 *   payload: tbankFixtures.confirmed({ orderId: 'order-1', amount: 19200 }),
 * });
 * const response = await new WebhookTestClient(app).send('tbank', delivery);
 * expect(response.body).toBe('OK');
 */
export function signTBankDelivery(options: SignTBankDeliveryOptions): SignedDelivery {
  return tbankDelivery(options.payload, options.password);
}
