import { createHash, createHmac } from 'node:crypto';
import { encodeFormBody } from '../form-body';

/** A Braintree API key: the public key names it in `bt_signature`, the private key signs. */
export interface BraintreeApiKey {
  /** The API key's public key (Control Panel → API → API Keys), e.g. `'v4ndq314c2s5c28r'`. */
  readonly publicKey: string;
  /** The API key's private key, shown next to the public key. */
  readonly privateKey: string;
}

/**
 * The hex signature Braintree puts after `publicKey|` in `bt_signature`: HMAC-SHA1 of the
 * `bt_payload` text keyed with the raw SHA-1 digest of the private key (not the key itself).
 * @example braintreePayloadSignature(privateKey, fields.bt_payload) // 40 lowercase hex digits
 */
export function braintreePayloadSignature(privateKey: string, payload: string): string {
  const key = createHash('sha1').update(privateKey, 'utf8').digest();
  return createHmac('sha1', key).update(payload, 'utf8').digest('hex');
}

/** The `publicKey|hexsig` pair of `bt_signature` that `key` makes for `payload`. */
export function braintreeSignaturePair(key: BraintreeApiKey, payload: string): string {
  return `${key.publicKey}|${braintreePayloadSignature(key.privateKey, payload)}`;
}

/**
 * The form body Braintree posts for the XML notification `xml` under `key`: `bt_payload` is the
 * XML in base64 with a line break every 60 characters and at the end, `bt_signature` its pair.
 */
export function braintreeFormBody(key: BraintreeApiKey, xml: string): string {
  const base64 = Buffer.from(xml, 'utf8').toString('base64');
  const payload = `${base64.match(/.{1,60}/g)?.join('\n') ?? ''}\n`;
  return encodeFormBody({
    bt_signature: braintreeSignaturePair(key, payload),
    bt_payload: payload,
  });
}

/** One `publicKey|signature` pair of a `bt_signature` value. */
export interface BraintreeSignaturePair {
  readonly publicKey: string;
  readonly signature: string;
}

/**
 * The pairs of a `bt_signature` value (`publicKey|hexsig` joined by `&`, one per API key of the
 * account); items without `|` are skipped, as Braintree's SDKs skip them.
 */
export function parseBraintreeSignature(value: string): BraintreeSignaturePair[] {
  return value.split('&').flatMap((item) => {
    const separator = item.indexOf('|');
    return separator < 0
      ? []
      : [{ publicKey: item.slice(0, separator), signature: item.slice(separator + 1) }];
  });
}
