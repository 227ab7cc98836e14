import { randomUUID } from 'node:crypto';
import { decodeStandardWebhooksSecret } from '../standard-webhooks/standard-webhooks.keys';
import { StandardWebhooksSigning } from '../standard-webhooks/standard-webhooks.signature';

/** The key Polar signs with: the spec's (`whsec_` + base64) or the UTF-8 bytes of the secret. */
export type PolarSigningScheme = 'standard' | 'utf8';

/**
 * The HMAC keys that one Polar secret may sign with.
 *
 * NOTE: Polar signs with one of two keys, by when the endpoint's secret was generated: secrets
 * made before 8 September 2026 sign with the UTF-8 bytes of the whole text (`whsec_` included);
 * later ones are spec secrets, `whsec_` and base64 of 32 bytes, signing with the decoded bytes.
 * The dashboard shows both alike, so the two keys are tried; both come from the one secret.
 */
export function polarSigningKeys(secret: string): Buffer[] {
  const decoded = decodeStandardWebhooksSecret(secret);
  const utf8 = Buffer.from(secret, 'utf8');
  return decoded === undefined ? [utf8] : [utf8, decoded];
}

/**
 * The Standard Webhooks secret of `secret` under one of Polar's two schemes: `'standard'`
 * (the spec's `whsec_` + base64) or `'utf8'` (the UTF-8 bytes of the whole text).
 */
export function polarSigningKey(secret: string, scheme: PolarSigningScheme): string {
  return scheme === 'standard' ? secret : Buffer.from(secret, 'utf8').toString('base64');
}

/** Whether Polar would sign with the spec's key: the secret is `whsec_` + canonical base64. */
export function isStandardPolarSecret(secret: string): boolean {
  return secret.startsWith('whsec_') && decodeStandardWebhooksSecret(secret) !== undefined;
}

/**
 * How Polar keys the Standard Webhooks signatures: endpoints verify with both keys of each
 * secret; a delivery is signed under `scheme`, by default the one the secret's form says.
 * @throws Error on signing, when `scheme` is `'standard'` and the secret is not `whsec_` + base64.
 */
export function polarSigning(scheme?: PolarSigningScheme): StandardWebhooksSigning {
  return {
    keys: polarSigningKeys,
    signingSecret: (secret) => {
      const chosen = scheme ?? (isStandardPolarSecret(secret) ? 'standard' : 'utf8');
      if (chosen === 'standard' && !isStandardPolarSecret(secret)) {
        throw new Error(
          'signPolarDelivery: a standard secret is "whsec_" followed by padded base64',
        );
      }
      return polarSigningKey(secret, chosen);
    },
    newId: randomUUID,
  };
}
