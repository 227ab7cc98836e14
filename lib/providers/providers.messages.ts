/**
 * Startup error texts for provider options. Each one says which endpoint, what is wrong and
 * how to fix it, and none of them quotes a secret.
 */

/** How startup errors name an endpoint: `Webhook endpoint "stripe" (stripe)`. */
export function endpointLabel(name: unknown, kind: string): string {
  return `Webhook endpoint ${typeof name === 'string' ? `"${name}"` : String(name)} (${kind})`;
}

function ordinal(index: number, count: number): string {
  return count > 1 ? `secret[${index}]` : 'secret';
}

/** `toleranceSeconds` is not a whole, non-negative number of seconds. */
export function invalidToleranceMessage(
  name: unknown,
  kind: string,
  value: unknown,
  fallback = 300,
): string {
  return (
    `${endpointLabel(name, kind)}: toleranceSeconds must be a whole number of seconds, 0 or more ` +
    `(got ${String(value)}); use the default ${fallback}, or 0 to switch the timestamp check off.`
  );
}

/** A Standard Webhooks secret whose base64 part does not decode. */
export function standardSecretFormatMessage(
  name: unknown,
  kind: string,
  index: number,
  count: number,
): string {
  return (
    `${endpointLabel(name, kind)}: ${ordinal(index, count)} is a malformed whsec_ secret ` +
    '(after the optional "whsec_" prefix it must be standard, padded base64 of at least one ' +
    'byte): copy the secret exactly as the sender shows it, without spaces or line breaks.'
  );
}

function entry(option: string, index: number, count: number): string {
  return count > 1 ? `${option}[${index}]` : option;
}

/** A Standard Webhooks endpoint has neither a `v1` secret nor a `v1a` public key. */
export function standardNoKeyMessage(name: unknown, kind: string): string {
  return (
    `${endpointLabel(name, kind)} has no usable secret or publicKey: set secret to the whsec_ ` +
    'secret (v1 signatures) or publicKey to the whpk_ public key (v1a signatures) the sender ' +
    'shows, or both; each may be a list while rotating, and every entry must be a non-empty string.'
  );
}

/** A `whsk_` signing key, which only the sender should hold, was configured on the receiver. */
export function standardSigningKeyMessage(
  name: unknown,
  kind: string,
  option: 'secret' | 'publicKey',
  index: number,
  count: number,
): string {
  return (
    `${endpointLabel(name, kind)}: ${entry(option, index, count)} is a whsk_ signing key, which ` +
    'must stay with the sender: set publicKey to the matching whpk_ public key instead, ' +
    'and remove the whsk_ key from this configuration.'
  );
}

/** A key of one scheme was given in the other scheme's option. */
export function standardKeyInWrongOptionMessage(
  name: unknown,
  kind: string,
  option: 'secret' | 'publicKey',
  index: number,
  count: number,
): string {
  const [found, target, scheme] =
    option === 'secret'
      ? ['whpk_ public key', 'publicKey', 'v1a']
      : ['whsec_ secret', 'secret', 'v1'];
  return (
    `${endpointLabel(name, kind)}: ${entry(option, index, count)} is a ${found}: ` +
    `move it to ${target}, which verifies ${scheme} signatures.`
  );
}

/** A Standard Webhooks public key that is not `whpk_` + base64 of 32 bytes. */
export function standardPublicKeyFormatMessage(
  name: unknown,
  kind: string,
  index: number,
  count: number,
): string {
  return (
    `${endpointLabel(name, kind)}: ${entry('publicKey', index, count)} is not a whpk_ public ` +
    'key (the "whpk_" prefix followed by standard, padded base64 of the 32-byte Ed25519 public ' +
    'key): copy the public key exactly as the sender shows it, without spaces or line breaks.'
  );
}

/** PayPal's `trustedRoots` holds something that is not a PEM CA certificate. */
export function paypalTrustedRootsMessage(endpoint: string, index: number | undefined): string {
  return (
    `${endpoint}: ${index === undefined ? 'trustedRoots' : `trustedRoots[${index}]`} is not PEM ` +
    'text of CA certificates: give the PEM of the root (or intermediate) CA that issues ' +
    "PayPal's signing certificate (DigiCert's), or leave trustedRoots out to trust Node's " +
    'bundled root certificates.'
  );
}

/** An option that must be a non-empty string is something else. */
export function nonEmptyStringOptionMessage(
  name: unknown,
  kind: string,
  option: string,
  example: string,
): string {
  return `${endpointLabel(name, kind)}: ${option} must be a non-empty string, e.g. ${option}: ${example}.`;
}

/** `kind` cannot be used as the prefix of `'<kind>:<native>'` types. */
export function invalidKindMessage(name: unknown, kind: unknown): string {
  return (
    `${endpointLabel(name, String(kind))}: kind must be letters, digits, ".", "-" or "_" ` +
    '(at most 64 characters, no ":"), because event types are named "<kind>:<native type>"; ' +
    'e.g. kind: "acme".'
  );
}

/** A header option is not a valid HTTP header name. */
export function invalidHeaderNameMessage(
  name: unknown,
  kind: string,
  option: string,
  value: unknown,
): string {
  return (
    `${endpointLabel(name, kind)}: ${option} ${JSON.stringify(value)} is not an HTTP header name; ` +
    `give the header's name only, e.g. ${option}: "x-signature".`
  );
}

/** A JSON path option is not a dotted path. */
export function invalidJsonPathMessage(
  name: unknown,
  kind: string,
  option: string,
  value: unknown,
): string {
  return (
    `${endpointLabel(name, kind)}: ${option} ${JSON.stringify(value)} is not a dotted JSON path; ` +
    `name the field as keys joined by ".", e.g. ${option}: "data.orderId".`
  );
}

/** `encoding` is neither `'hex'` nor `'base64'`. */
export function invalidEncodingMessage(name: unknown, kind: string, value: unknown): string {
  return (
    `${endpointLabel(name, kind)}: encoding ${JSON.stringify(value)} is not supported; ` +
    'use "hex" (the default) or "base64", whichever the sender uses for the signature.'
  );
}

/**
 * An endpoint was configured to answer a status other than 200, which its provider counts as a
 * failed delivery.
 * @param consequence what the provider does then, e.g. `'Qvard retry every delivery'`.
 */
export function exactly200AcknowledgementMessage(
  name: unknown,
  kind: string,
  status: unknown,
  consequence: string,
): string {
  return (
    `${endpointLabel(name, kind)}: acknowledgement.status ${String(status)} would make ${consequence}, ` +
    'because it counts only exactly HTTP 200 as delivered; ' +
    'remove acknowledgement.status (or set it to 200).'
  );
}

/** A Qvard endpoint was configured to answer something Qvard counts as a failed delivery. */
export function qvardAcknowledgementMessage(name: unknown, status: unknown): string {
  return exactly200AcknowledgementMessage(name, 'qvard', status, 'Qvard retry every delivery');
}
