import { KeyObject, randomUUID, verify as verifySignature } from 'node:crypto';
import { decodeCanonicalBase64 } from '../../core/base64';
import { constantTimeMatchAny } from '../../core/constant-time';
import { ByteSource, hmacSha256 } from '../../core/hmac';
import { assertTimestampWithinWindow, parseUnixSeconds } from '../../core/timestamp-window';
import { WebhookPayloadError, WebhookVerificationError } from '../../core/webhook-errors';
import { SignatureScheme } from '../define-provider';
import { DEFAULT_TOLERANCE_SECONDS } from '../provider-options';
import { InboundWebhook } from '../webhook-provider.interface';
import { decodeStandardWebhooksSecret } from './standard-webhooks.keys';

const ED25519_SIGNATURE_BYTES = 64;
/**
 * How many `v1a` entries of one header are checked against each public key.
 * NOTE: an Ed25519 check costs about as much as a thousand HMACs, and a header can hold ~180
 * entries; a sender rotating keys sends two or three, so the rest are skipped unchecked.
 */
const MAX_V1A_SIGNATURES = 8;

type SignatureVersion = 'v1' | 'v1a';

/** How a sender on Standard Webhooks keys its signatures, for `standardWebhooksSignature()`. */
export interface StandardWebhooksSigning {
  /**
   * The HMAC keys one configured secret may sign with (Polar's older secrets sign with their
   * UTF-8 bytes); empty when it is not well-formed.
   * @default the secret decoded: `whsec_` stripped, the rest base64
   */
  readonly keys?: (secret: string) => readonly Buffer[];
  /** The Ed25519 public keys `v1a` entries are checked with. @default none */
  readonly publicKeys?: readonly KeyObject[];
  /** The timestamp window in seconds; `0` switches it off. @default 300 */
  readonly toleranceSeconds?: number;
  /** The Standard Webhooks secret (`whsec_` + base64) a configured secret signs with. */
  readonly signingSecret?: (secret: string) => string;
  /** A `webhook-id` for a delivery signed without one. @default `msg_` and a fresh UUID's hex */
  readonly newId?: () => string;
}

/** How one delivery is signed besides its body: its id and the names of its headers. */
export interface StandardWebhookMessage {
  /** `webhook-id`. @default a fresh one, of the sender's form */
  readonly id?: string;
  /** Header names: `webhook-*` or Svix's `svix-*`. @default 'webhook' */
  readonly headerPrefix?: 'webhook' | 'svix';
}

/** The Standard Webhooks scheme; its `sign` also takes the message id and header names. */
export interface StandardWebhooksScheme extends SignatureScheme {
  sign(
    body: string,
    secret: string,
    timestamp?: number,
    message?: StandardWebhookMessage,
  ): Readonly<Record<string, string>>;
}

/** The three headers of a signed message, under `webhook-*` or `svix-*` names. */
export function standardWebhookHeaders(
  id: string,
  timestamp: number,
  signature: string,
  headerPrefix: 'webhook' | 'svix' = 'webhook',
): Record<string, string> {
  return {
    [`${headerPrefix}-id`]: id,
    [`${headerPrefix}-timestamp`]: String(timestamp),
    [`${headerPrefix}-signature`]: signature,
  };
}

/** A fresh `msg_…` message id, as Svix makes them. */
export function newMessageId(): string {
  return `msg_${randomUUID().replace(/-/g, '')}`;
}

/** What a `v1` or `v1a` signature covers, up to the body: `${webhook-id}.${webhook-timestamp}.` */
export function signedPrefixOf(id: string, timestamp: number | string): string {
  return `${id}.${timestamp}.`;
}

/** The `v1` digest: the HMAC-SHA256 of the signed prefix and the body. */
function v1Digest(key: ByteSource, signedPrefix: string, body: ByteSource): Buffer {
  return hmacSha256(key, [signedPrefix, body]);
}

/** The `v1` entry of the signature header, as a sender writes it. */
export function v1Entry(key: ByteSource, signedPrefix: string, body: ByteSource): string {
  return `v1,${v1Digest(key, signedPrefix, body).toString('base64')}`;
}

/** The headers a provider stores so that `normalize()` reads the message id again on replay. */
export const STANDARD_WEBHOOKS_STORED_HEADERS: readonly string[] = Object.freeze([
  'webhook-id',
  'webhook-timestamp',
  'svix-id',
  'svix-timestamp',
]);

/**
 * The `webhook-id` the signature covered, the event id.
 * @throws WebhookPayloadError when there is none (verify() requires it; replay may not).
 */
export function messageIdOf(request: InboundWebhook): string {
  const id = standardHeader(request, 'id');
  if (id === undefined) {
    throw new WebhookPayloadError('Missing webhook-id header: the message has no event id');
  }
  return id;
}

/** A header by its `webhook-*` name, preferring the `svix-*` alias as the Svix library does. */
export function standardHeader(
  request: InboundWebhook,
  name: 'id' | 'timestamp' | 'signature',
): string | undefined {
  const svix = request.headers[`svix-${name}`];
  if (svix !== undefined && svix.trim() !== '') return svix.trim();
  const standard = request.headers[`webhook-${name}`];
  return standard !== undefined && standard.trim() !== '' ? standard.trim() : undefined;
}

/**
 * The Standard Webhooks signature: `webhook-signature` holds space-separated `v1,<base64>`
 * entries, each HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${rawBody}` keyed by the
 * base64-decoded secret, and `v1a,<base64>` entries, each an Ed25519 signature of the same
 * content; `webhook-timestamp` must lie within the window. Polar and Dodo Payments sign so too.
 */
export function standardWebhooksSignature(
  signing: StandardWebhooksSigning = {},
): StandardWebhooksScheme {
  const keysOf = signing.keys ?? decodedSecret;
  const publicKeys = signing.publicKeys ?? [];
  const tolerance = signing.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  const keyCache = new WeakMap<readonly string[], Buffer[]>();
  const keysOfAll = (secrets: readonly string[]): Buffer[] => {
    let keys = keyCache.get(secrets);
    if (keys === undefined) {
      keys = secrets.flatMap(keysOf);
      keyCache.set(secrets, keys);
    }
    return keys;
  };
  return {
    verify(request, secrets) {
      const keys = keysOfAll(secrets);
      const { signedPrefix, timestamp, header } = signedParts(request);
      const schemes: SignatureVersion[] = [];
      if (keys.length > 0) schemes.push('v1');
      if (publicKeys.length > 0) schemes.push('v1a');
      const signatures = parseSignatureHeader(header, schemes);
      const expected = keys.map((key) => v1Digest(key, signedPrefix, request.rawBody));
      const matches =
        constantTimeMatchAny(expected, signatures.v1) ||
        anyEd25519SignatureVerifies(publicKeys, signatures.v1a, signedPrefix, request.rawBody);
      if (!matches) {
        const what =
          publicKeys.length === 0
            ? 'secret'
            : keys.length === 0
              ? 'public key'
              : 'secret or the public key';
        throw new WebhookVerificationError(
          'bad_signature',
          `No ${schemes.join(' or ')} signature in the webhook-signature header matches ` +
            `the payload and the ${what}`,
        );
      }
      assertTimestampWithinWindow(timestamp, request.receivedAt, tolerance);
    },
    sign(body, secret, timestamp = Math.floor(Date.now() / 1000), message = {}) {
      const key = decodeStandardWebhooksSecret(signing.signingSecret?.(secret) ?? secret);
      if (key === undefined) {
        throw new Error('The secret must be "whsec_" followed by padded base64');
      }
      const id = message.id ?? (signing.newId ?? newMessageId)();
      const signature = v1Entry(key, signedPrefixOf(id, timestamp), body);
      return standardWebhookHeaders(id, timestamp, signature, message.headerPrefix);
    },
  };
}

function decodedSecret(secret: string): Buffer[] {
  const key = decodeStandardWebhooksSecret(secret);
  return key === undefined ? [] : [key];
}

/** The signed prefix, the timestamp and the signature header of a delivery, all required. */
function signedParts(request: InboundWebhook): {
  signedPrefix: string;
  timestamp: number;
  header: string;
} {
  const id = standardHeader(request, 'id');
  const timestampText = standardHeader(request, 'timestamp');
  const header = standardHeader(request, 'signature');
  if (id === undefined || timestampText === undefined || header === undefined) {
    const missing = [
      id === undefined ? 'webhook-id' : undefined,
      timestampText === undefined ? 'webhook-timestamp' : undefined,
      header === undefined ? 'webhook-signature' : undefined,
    ].filter((name) => name !== undefined);
    throw new WebhookVerificationError(
      'missing_signature',
      `Missing ${missing.join(', ')} header (or its svix-* alias)`,
    );
  }
  const timestamp = parseUnixSeconds(timestampText);
  // NOTE: "." separates the signed parts, so a "." inside one would let parts be shifted.
  if (id.includes('.') || timestamp === undefined) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed webhook-id or webhook-timestamp header',
    );
  }
  return { signedPrefix: signedPrefixOf(id, timestampText), timestamp, header };
}

function anyEd25519SignatureVerifies(
  publicKeys: readonly KeyObject[],
  signatures: readonly Buffer[],
  signedPrefix: string,
  rawBody: Buffer,
): boolean {
  if (signatures.length === 0 || publicKeys.length === 0) return false;
  const content = Buffer.concat([Buffer.from(signedPrefix, 'utf8'), rawBody]);
  return signatures.some((signature) =>
    publicKeys.some((key) => verifySignature(null, content, key, signature)),
  );
}

/**
 * The decoded signatures of the versions the endpoint checks. Entries of other versions, and
 * entries whose base64 is not canonical, are skipped, as the spec lets unknown versions be.
 */
function parseSignatureHeader(
  header: string,
  schemes: readonly SignatureVersion[],
): Record<SignatureVersion, Buffer[]> {
  const signatures: Record<SignatureVersion, Buffer[]> = { v1: [], v1a: [] };
  for (const entry of header.split(' ')) {
    const separator = entry.indexOf(',');
    const version = entry.slice(0, separator);
    if ((version !== 'v1' && version !== 'v1a') || !schemes.includes(version)) continue;
    const bytes = decodeCanonicalBase64(entry.slice(separator + 1));
    if (bytes === undefined) continue;
    if (version === 'v1') {
      signatures.v1.push(bytes);
    } else if (
      bytes.length === ED25519_SIGNATURE_BYTES &&
      signatures.v1a.length < MAX_V1A_SIGNATURES
    ) {
      signatures.v1a.push(bytes);
    }
  }
  if (signatures.v1.length === 0 && signatures.v1a.length === 0) {
    const shapes = schemes.map((scheme) => `${scheme},<base64>`).join(' or ');
    throw new WebhookVerificationError(
      'bad_signature',
      `Malformed webhook-signature header: no ${shapes} signature`,
    );
  }
  return signatures;
}
