import { deliveryBody } from '../delivery-body';
import { withEventIds } from '../delivery-event-ids';
import { DeliveryPayload, SignablePayload, SignedDelivery } from '../signed-delivery';
import { jsonPost } from '../signing-input';
import {
  HMAC_DEFAULTS,
  hmacProvider,
  HmacSignatureEncoding,
  hmacSignatureSettings,
} from './hmac.provider';
import { hmacSignature } from './hmac.signature';

/** Options of `signHmac()`: the same header, prefix and encoding options as `hmacEndpoint()`. */
export interface SignHmacOptions {
  /** The exact raw body you will send. */
  payload: SignablePayload;
  /** The shared secret. */
  secret: string;
  /**
   * Signed timestamp in Unix seconds; used only with `timestampHeader`.
   * @default now
   */
  timestamp?: number;
  /**
   * Header to carry the signature.
   * @default 'x-signature'
   */
  signatureHeader?: string;
  /**
   * Text written before the signature, e.g. `'sha256='`.
   * @default none
   */
  signaturePrefix?: string;
  /**
   * How the signature bytes are written.
   * @default 'hex'
   */
  encoding?: HmacSignatureEncoding;
  /**
   * Header to carry the timestamp; when set, the signed content is `${timestamp}.${payload}`.
   * @default none
   */
  timestampHeader?: string;
}

/**
 * Signs a payload for an `hmacEndpoint()` configured with the same options.
 * @example
 * signHmac({ payload: body, secret, signatureHeader: 'x-hub-signature-256', signaturePrefix: 'sha256=' })
 */
export function signHmac(options: SignHmacOptions): Record<string, string> {
  return hmacSignature(hmacSignatureSettings(options)).sign(
    options.payload,
    options.secret,
    options.timestamp,
  );
}

/**
 * Options of `signHmacDelivery()`: those of `signHmac()`, the payload as text or an object, and
 * the endpoint's paths its dedup key is read by.
 */
export interface SignHmacDeliveryOptions extends Omit<SignHmacOptions, 'payload'> {
  /** The body: the exact text, or an object sent as `JSON.stringify(payload)`. */
  payload: DeliveryPayload;
  /**
   * The endpoint's `kind`, recorded as the delivery's provider.
   * @default 'hmac'
   */
  kind?: string;
  /**
   * The endpoint's `eventIdPath`: where `eventId` is read from the body (without an id there, it
   * is `sha256:<hex of the body>`). An endpoint that reads the id from an `eventIdHeader` stores
   * the event under that header's value, which you add to the delivery yourself.
   * @default 'id'
   */
  eventIdPath?: string;
  /**
   * The endpoint's `typePath`: a body whose value there is no identifier is one the endpoint
   * refuses, and has no `eventId`.
   * @default 'type'
   */
  typePath?: string;
}

/**
 * A whole delivery for an `hmacEndpoint()` configured with the same options: the body, the
 * headers of `signHmac()` and a JSON content type. `eventId` is the key such an endpoint stores
 * the event under: the value at `eventIdPath`, else the body's SHA-256.
 * @throws Error when `payload` is bytes (a delivery's body is text; sign bytes with `signHmac()`).
 * @example
 * const delivery = signHmacDelivery({
 *   payload: { id: 'evt_1', type: 'payment.succeeded', data: { orderId: 'order-1' } },
 *   secret: process.env.ACME_WEBHOOK_SECRET!,
 *   signatureHeader: 'x-acme-signature',
 * });
 * await new WebhookTestClient(app).send('acme', delivery);
 */
export function signHmacDelivery(options: SignHmacDeliveryOptions): SignedDelivery {
  const { payload, kind, eventIdPath, typePath, ...signing } = options;
  const body = deliveryBody('signHmacDelivery', payload);
  const delivery = jsonPost(
    kind ?? HMAC_DEFAULTS.kind,
    { text: body },
    signHmac({ ...signing, payload: body }),
  );
  return withEventIds(delivery, () =>
    hmacProvider.provider({ secret: signing.secret, kind, eventIdPath, typePath }),
  );
}
