import { decodeStandardWebhooksSecret } from '../standard-webhooks/standard-webhooks.keys';

/**
 * The Standard Webhooks secrets (base64 of the HMAC key) that one Polar secret may sign with.
 *
 * NOTE: Polar signs with one of two keys, by when the endpoint's secret was generated: secrets
 * made before 8 September 2026 sign with the UTF-8 bytes of the whole text (`whsec_` included);
 * later ones are spec secrets, `whsec_` and base64 of 32 bytes, signing with the decoded bytes.
 * The dashboard shows both alike, so the two keys are tried; both come from the one secret.
 */
export function polarSigningKeys(secret: string): string[] {
  const keys = [Buffer.from(secret, 'utf8').toString('base64')];
  if (decodeStandardWebhooksSecret(secret) !== undefined) keys.push(secret);
  return keys;
}

/**
 * The Standard Webhooks secret of `secret` under one of Polar's two schemes: `'standard'`
 * (the spec's `whsec_` + base64) or `'utf8'` (the UTF-8 bytes of the whole text).
 */
export function polarSigningKey(secret: string, scheme: 'standard' | 'utf8'): string {
  return scheme === 'standard' ? secret : Buffer.from(secret, 'utf8').toString('base64');
}

/** Whether Polar would sign with the spec's key: the secret is `whsec_` + canonical base64. */
export function isStandardPolarSecret(secret: string): boolean {
  return secret.startsWith('whsec_') && decodeStandardWebhooksSecret(secret) !== undefined;
}
