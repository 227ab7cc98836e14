import { hmacSha256 } from '../../core/hmac';
import { SignablePayload } from '../signed-delivery';

/** Options of `signQvard()`. */
export interface SignQvardOptions {
  /** The exact raw body you will send. */
  payload: SignablePayload;
  /** The project's secret key. */
  secret: string;
}

/** Headers Qvard sends with a notification (a type alias, like `StripeSignatureHeaders`). */
export type QvardSignatureHeaders = {
  /** Lowercase hex HMAC-SHA256 of the body. */
  'x-qvard-signature': string;
};

/**
 * Signs a payload the way Qvard does (HMAC-SHA256 of the raw body, hex).
 * @example
 * signQvard({ payload: JSON.stringify({ id: 'order-1', status: 'completed' }), secret })
 */
export function signQvard(options: SignQvardOptions): QvardSignatureHeaders {
  return { 'x-qvard-signature': hmacSha256(options.secret, [options.payload]).toString('hex') };
}
