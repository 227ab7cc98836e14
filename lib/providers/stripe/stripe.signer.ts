import { hmacSha256 } from '../../core/hmac';
import { SignablePayload } from '../signed-delivery';

/** Options of `signStripe()`. */
export interface SignStripeOptions {
  /** The exact raw body you will send. */
  payload: SignablePayload;
  /** The endpoint signing secret (`whsec_…`), used verbatim as Stripe does. */
  secret: string;
  /**
   * Signed timestamp in Unix seconds.
   * @default now
   */
  timestamp?: number;
}

/**
 * Headers Stripe sends with a delivery. A type alias, not an interface, so it can be passed
 * wherever a `Record<string, string>` of headers is expected.
 */
export type StripeSignatureHeaders = {
  /** `t=<timestamp>,v1=<hex>`. */
  'stripe-signature': string;
};

/**
 * Signs a payload the way Stripe does; the same header as
 * `stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp })`.
 * @example
 * const body = JSON.stringify(event);
 * await request(app).post('/webhooks/stripe').set(signStripe({ payload: body, secret })).send(body);
 */
export function signStripe(options: SignStripeOptions): StripeSignatureHeaders {
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signature = hmacSha256(options.secret, [`${timestamp}.`, options.payload]).toString('hex');
  return { 'stripe-signature': `t=${timestamp},v1=${signature}` };
}
