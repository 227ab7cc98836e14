import { ByteSource, hmacSha256 } from '../core/hmac';
import { HMAC_DEFAULTS, HmacSignatureEncoding } from '../providers/hmac.provider';
import { decodeStandardWebhooksSecret } from '../providers/standard-webhooks.provider';

/** A payload to sign: the exact body you will send (a string is sent as its UTF-8 bytes). */
export type SignablePayload = string | Uint8Array;

function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

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
  const timestamp = options.timestamp ?? nowSeconds();
  const signature = hmacSha256(options.secret, [`${timestamp}.`, options.payload]).toString('hex');
  return { 'stripe-signature': `t=${timestamp},v1=${signature}` };
}

/** Options of `signStandardWebhook()`. */
export interface SignStandardWebhookOptions {
  /** The message id (`webhook-id`), the same on every retry of one message. */
  id: string;
  /** The exact raw body you will send. */
  payload: SignablePayload;
  /** The signing secret as the sender shows it (`whsec_<base64>`). */
  secret: string;
  /**
   * Signed timestamp in Unix seconds.
   * @default now
   */
  timestamp?: number;
  /**
   * Header names to emit: `'webhook'` (Standard Webhooks) or `'svix'` (Svix's own names).
   * @default 'webhook'
   */
  headerPrefix?: 'webhook' | 'svix';
}

/**
 * Signs a payload the way Standard Webhooks senders do; the signature header equals
 * `new Webhook(secret).sign(id, new Date(timestamp * 1000), payload)` from `standardwebhooks`.
 * @throws Error when the secret is not `whsec_` + base64.
 * @example
 * signStandardWebhook({ id: 'msg_1', payload: body, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
 */
export function signStandardWebhook(options: SignStandardWebhookOptions): Record<string, string> {
  const key = decodeStandardWebhooksSecret(options.secret);
  if (key === undefined) {
    throw new Error('signStandardWebhook: the secret must be "whsec_" followed by padded base64');
  }
  const timestamp = options.timestamp ?? nowSeconds();
  const signature = hmacSha256(key, [`${options.id}.${timestamp}.`, options.payload]).toString(
    'base64',
  );
  const prefix = options.headerPrefix ?? 'webhook';
  return {
    [`${prefix}-id`]: options.id,
    [`${prefix}-timestamp`]: String(timestamp),
    [`${prefix}-signature`]: `v1,${signature}`,
  };
}

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
  const headers: Record<string, string> = {};
  const parts: ByteSource[] = [options.payload];
  if (options.timestampHeader !== undefined) {
    const timestamp = options.timestamp ?? nowSeconds();
    headers[options.timestampHeader.toLowerCase()] = String(timestamp);
    parts.unshift(`${timestamp}.`);
  }
  const signature = hmacSha256(options.secret, parts).toString(
    options.encoding ?? HMAC_DEFAULTS.encoding,
  );
  const signatureHeader = (options.signatureHeader ?? HMAC_DEFAULTS.signatureHeader).toLowerCase();
  headers[signatureHeader] = `${options.signaturePrefix ?? ''}${signature}`;
  return headers;
}
