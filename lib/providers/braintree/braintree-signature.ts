import { createHash, createHmac } from 'node:crypto';

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
