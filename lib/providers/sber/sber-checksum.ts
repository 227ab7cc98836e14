import {
  KeyObject,
  X509Certificate,
  createPublicKey,
  sign as signWithKey,
  verify as verifySignature,
} from 'node:crypto';
import { constantTimeIncludes } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { SignatureScheme } from '../define-provider';
import { parseFormBody } from '../form-body';
import { endpointLabel } from '../providers.messages';
import { InboundWebhook } from '../webhook-provider.interface';

const KIND = 'sber';
const WHAT = 'Sber callback';
const EVEN_HEX = /^(?:[0-9a-fA-F]{2})+$/;

/** What a Sber checksum is made with: the callback token, or the bank's RSA private key. */
export type SberChecksumKey = { callbackToken: string } | { privateKey: string | KeyObject };

/**
 * The string Sber's checksum covers: every parameter but `checksum` and `sign_alias`, sorted by
 * name, written as `name;value;`.
 */
export function sberChecksumString(payload: Readonly<Record<string, string>>): string {
  return Object.keys(payload)
    .filter((name) => name !== 'checksum' && name !== 'sign_alias')
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .map((name) => `${name};${payload[name]};`)
    .join('');
}

/**
 * The `checksum` of the parameters, upper-case hex: HMAC-SHA256 keyed by the callback token, or
 * an RSA SHA-512 signature with the private key.
 */
export function sberChecksum(
  fields: Readonly<Record<string, string>>,
  key: SberChecksumKey,
): string {
  const signed = Buffer.from(sberChecksumString(fields), 'utf8');
  const digest =
    'callbackToken' in key
      ? hmacSha256(key.callbackToken, [signed])
      : signWithKey('sha512', signed, key.privateKey);
  return digest.toString('hex').toUpperCase();
}

/**
 * How Sber signs: `checksum` among the parameters, checked against the callback tokens (the
 * secrets) and `publicKeys`. With `allowUnsigned`, a callback without a checksum passes, and with
 * no token and no key a checksum is not checked either.
 */
export function sberChecksumScheme(
  publicKeys: readonly KeyObject[],
  allowUnsigned: boolean,
): SignatureScheme {
  return {
    verify(request: InboundWebhook, tokens: readonly string[]): void {
      const fields = parseFormBody(request.rawBody, WHAT);
      const checksum = fields.checksum;
      if (checksum === undefined || checksum === '') {
        if (allowUnsigned) {
          return;
        }
        throw new WebhookVerificationError(
          'missing_signature',
          'Sber callback has no checksum parameter',
        );
      }
      if (tokens.length === 0 && publicKeys.length === 0) {
        // NOTE: only reachable with allowUnsigned and no key: there is nothing to check against.
        return;
      }
      if (!EVEN_HEX.test(checksum)) {
        throw new WebhookVerificationError(
          'bad_signature',
          'Malformed checksum in the Sber callback: expected hex digits',
        );
      }
      const symmetric = tokens.map((callbackToken) => sberChecksum(fields, { callbackToken }));
      const signed = Buffer.from(sberChecksumString(fields), 'utf8');
      const matches =
        constantTimeIncludes(symmetric, checksum.toUpperCase()) ||
        publicKeys.some((key) => rsaSha512Verifies(key, signed, checksum));
      if (!matches) {
        throw new WebhookVerificationError(
          'bad_signature',
          'checksum does not match the Sber callback parameters and the configured key',
        );
      }
    },
    sign(): never {
      throw new TypeError('Sber signs inside the parameters: sign with signSberDelivery()');
    },
  };
}

function rsaSha512Verifies(key: KeyObject, signed: Buffer, checksum: string): boolean {
  try {
    return verifySignature('sha512', signed, key, Buffer.from(checksum, 'hex'));
  } catch {
    // NOTE: a signature of the wrong length for the key is a mismatch, not a server error.
    return false;
  }
}

/**
 * The `publicKey` option as keys.
 * @throws WebhookConfigurationError when a key is unreadable or not RSA, or the list is empty.
 */
export function loadPublicKeys(
  endpointName: unknown,
  value: string | readonly string[],
): KeyObject[] {
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  if (list.length === 0) {
    throw new WebhookConfigurationError(publicKeyMessage(endpointName, 'is an empty list'));
  }
  return list.map((entry, index) => {
    const which = list.length > 1 ? `publicKey[${index}]` : 'publicKey';
    const key = typeof entry === 'string' ? parsePublicKey(entry.trim()) : undefined;
    if (key === undefined) {
      throw new WebhookConfigurationError(
        publicKeyMessage(endpointName, `(${which}) is unreadable`),
      );
    }
    if (key.asymmetricKeyType !== 'rsa') {
      throw new WebhookConfigurationError(
        publicKeyMessage(endpointName, `(${which}) is not an RSA key`),
      );
    }
    return key;
  });
}

/** A public key from PEM (key or certificate) or from bare base64 DER (certificate or SPKI). */
function parsePublicKey(text: string): KeyObject | undefined {
  try {
    if (text.includes('-----BEGIN')) {
      return createPublicKey(text);
    }
    const der = Buffer.from(text.replace(/\s+/g, ''), 'base64');
    try {
      return new X509Certificate(der).publicKey;
    } catch {
      return createPublicKey({ key: der, format: 'der', type: 'spki' });
    }
  } catch {
    return undefined;
  }
}

function publicKeyMessage(name: unknown, problem: string): string {
  return (
    `${endpointLabel(name, KIND)}: publicKey ${problem}; give the bank's callback certificate or ` +
    'public key as PEM ("-----BEGIN CERTIFICATE-----" or "-----BEGIN PUBLIC KEY-----") or as ' +
    'the bare base64 of the DER certificate, one string per key.'
  );
}
