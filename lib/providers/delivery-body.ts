import { DeliveryPayload } from './signed-delivery';

/**
 * A delivery's body: the text as given, or the object as `JSON.stringify` writes it.
 * @param builder names the builder in the error.
 * @throws Error for bytes (`Uint8Array`, `ArrayBuffer`): a delivery's body is text, and the
 * header signers (`signHmac()`, …) are the way to sign bytes that are not.
 */
export function deliveryBody(builder: string, payload: DeliveryPayload): string {
  if (typeof payload === 'string') return payload;
  if (ArrayBuffer.isView(payload) || payload instanceof ArrayBuffer) {
    throw new Error(
      `${builder}: payload is bytes, but a delivery's body is text; pass the body as a string ` +
        '(or an object to send as JSON), or sign the bytes with the header signer',
    );
  }
  return JSON.stringify(payload);
}
