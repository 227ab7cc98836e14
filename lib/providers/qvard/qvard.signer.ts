import { deliveryBody } from '../delivery-body';
import { DeliveryPayload, SignablePayload, SignedDelivery } from '../signed-delivery';
import { qvardProvider, QVARD_SIGNATURE_SCHEME } from './qvard.provider';

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
  // NOTE: the scheme's HMAC reads bytes as it reads text, so a byte payload is signed as sent.
  const headers = QVARD_SIGNATURE_SCHEME.sign(options.payload as string, options.secret);
  return { 'x-qvard-signature': headers['x-qvard-signature'] };
}

/** Options of `signQvardDelivery()`: those of `signQvard()`, and the payload as text or an object. */
export interface SignQvardDeliveryOptions extends Omit<SignQvardOptions, 'payload'> {
  /** The notification: the exact text, or an object sent as `JSON.stringify(payload)`. */
  payload: DeliveryPayload;
}

/**
 * A notification exactly as Qvard posts it: the JSON body, `X-Qvard-Signature` of
 * `signQvard()` and a JSON content type. `eventId` is `<id>:<status>`, the key the endpoint
 * stores the notification under.
 * @throws Error when `payload` is bytes (a delivery's body is text; sign bytes with `signQvard()`).
 * @example
 * const delivery = signQvardDelivery({ payload: { id: 'order-1', status: 'completed' }, secret });
 * await new WebhookTestClient(app).send('qvard', delivery);
 */
export function signQvardDelivery(options: SignQvardDeliveryOptions): SignedDelivery {
  const body = deliveryBody('signQvardDelivery', options.payload);
  return qvardProvider.signed(body, options.secret);
}
