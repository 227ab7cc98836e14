import {
  KeyObject,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  sign,
} from 'node:crypto';
import { decodeCanonicalBase64 } from '../../core/base64';
import { deliveryBody } from '../delivery-body';
import { withEventIds } from '../delivery-event-ids';
import { DeliveryPayload, IdentifiedDelivery, SignablePayload } from '../signed-delivery';
import {
  ED25519_KEY_BYTES,
  STANDARD_PUBLIC_KEY_PREFIX,
  STANDARD_SIGNING_KEY_PREFIX,
  decodeStandardWebhooksSecret,
} from './standard-webhooks.keys';
import { standardWebhooksProvider } from './standard-webhooks.provider';
import {
  newMessageId,
  signedPrefixOf,
  standardWebhookHeaders,
  v1Entry,
} from './standard-webhooks.signature';

/** Options of `signStandardWebhook()`. */
export interface SignStandardWebhookOptions {
  /** The message id (`webhook-id`), the same on every retry of one message. */
  id: string;
  /** The exact raw body you will send. */
  payload: SignablePayload;
  /**
   * The signing secret as the sender shows it (`whsec_<base64>`), for a `v1` signature.
   * Required unless `privateKey` is set.
   * @default none (no `v1` signature)
   */
  secret?: string;
  /**
   * The sender's Ed25519 signing key, for a `v1a` signature: `whsk_` followed by the base64 of
   * the 32-byte private key (or of those 32 bytes and the public key), or a `KeyObject`. See
   * `generateStandardWebhooksKeyPair()`. Required unless `secret` is set.
   * @default none (no `v1a` signature)
   */
  privateKey?: string | KeyObject;
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

/** A Standard Webhooks Ed25519 key pair, serialized as the spec says. */
export interface StandardWebhooksKeyPair {
  /** `whsk_…`: what the sender signs with (`signStandardWebhook({ privateKey })`). */
  privateKey: string;
  /** `whpk_…`: what the receiver verifies with (`standardWebhooksEndpoint({ publicKey })`). */
  publicKey: string;
}

/**
 * A fresh Ed25519 key pair for `v1a` signatures in tests: `whsk_` and `whpk_` followed by the
 * base64 of the 32-byte raw keys.
 * @example
 * const { privateKey, publicKey } = generateStandardWebhooksKeyPair();
 * standardWebhooksEndpoint({ name: 'acme', publicKey });
 * signStandardWebhook({ id: 'msg_1', payload: body, privateKey });
 */
export function generateStandardWebhooksKeyPair(): StandardWebhooksKeyPair {
  const { privateKey } = generateKeyPairSync('ed25519');
  const { d } = privateKey.export({ format: 'jwk' });
  return {
    privateKey: `${STANDARD_SIGNING_KEY_PREFIX}${base64OfBase64Url(d)}`,
    publicKey: publicKeyOf(privateKey),
  };
}

function base64OfBase64Url(base64url: string | undefined): string {
  return Buffer.from(base64url ?? '', 'base64url').toString('base64');
}

/** The `whpk_` public key of a signing key: what a receiving endpoint is given. */
function publicKeyOf(privateKey: string | KeyObject): string {
  const { x } = createPublicKey(ed25519SigningKey(privateKey)).export({ format: 'jwk' });
  return `${STANDARD_PUBLIC_KEY_PREFIX}${base64OfBase64Url(x)}`;
}

// NOTE: the PKCS#8 wrapping of a raw 32-byte Ed25519 private key (RFC 8410), so Node can load it.
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function ed25519SigningKey(key: string | KeyObject): KeyObject {
  if (typeof key !== 'string') {
    if (key.asymmetricKeyType !== 'ed25519' || key.type !== 'private') {
      throw new Error('signStandardWebhook: privateKey must be an Ed25519 private key');
    }
    return key;
  }
  const raw = key.startsWith(STANDARD_SIGNING_KEY_PREFIX)
    ? decodeCanonicalBase64(key.slice(STANDARD_SIGNING_KEY_PREFIX.length))
    : undefined;
  if (raw?.length !== ED25519_KEY_BYTES && raw?.length !== 2 * ED25519_KEY_BYTES) {
    throw new Error(
      'signStandardWebhook: privateKey must be "whsk_" followed by padded base64 of the 32-byte ' +
        'Ed25519 private key (or of it and the 32-byte public key)',
    );
  }
  const seed = raw.subarray(0, ED25519_KEY_BYTES);
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]),
    format: 'der',
    type: 'pkcs8',
  });
  const publicHalf = raw.subarray(ED25519_KEY_BYTES);
  const derived = Buffer.from(
    createPublicKey(privateKey).export({ format: 'jwk' }).x!,
    'base64url',
  );
  if (publicHalf.length > 0 && !publicHalf.equals(derived)) {
    throw new Error(
      'signStandardWebhook: the public half of privateKey does not match its private key',
    );
  }
  return privateKey;
}

/**
 * Signs a payload the way Standard Webhooks senders do: a `v1` entry with `secret` (equal to
 * `new Webhook(secret).sign(id, new Date(timestamp * 1000), payload)` from `standardwebhooks`),
 * a `v1a` entry with `privateKey`, or both, space-separated in that order.
 * @throws Error when the secret is not `whsec_` + base64, or the signing key not `whsk_` + base64.
 * @example
 * signStandardWebhook({ id: 'msg_1', payload: body, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' })
 */
export function signStandardWebhook(options: SignStandardWebhookOptions): Record<string, string> {
  if (options.secret === undefined && options.privateKey === undefined) {
    throw new Error('signStandardWebhook: give a secret (v1), a privateKey (v1a), or both');
  }
  const timestamp = options.timestamp ?? Math.floor(Date.now() / 1000);
  const signedPrefix = signedPrefixOf(options.id, timestamp);
  const entries: string[] = [];
  if (options.secret !== undefined) {
    const key = decodeStandardWebhooksSecret(options.secret);
    if (key === undefined) {
      throw new Error('signStandardWebhook: the secret must be "whsec_" followed by padded base64');
    }
    entries.push(v1Entry(key, signedPrefix, options.payload));
  }
  if (options.privateKey !== undefined) {
    const content = Buffer.concat([Buffer.from(signedPrefix, 'utf8'), bytesOf(options.payload)]);
    const signature = sign(null, content, ed25519SigningKey(options.privateKey));
    entries.push(`v1a,${signature.toString('base64')}`);
  }
  return standardWebhookHeaders(options.id, timestamp, entries.join(' '), options.headerPrefix);
}

function bytesOf(payload: SignablePayload): Uint8Array {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
}

/**
 * Options of `signStandardWebhookDelivery()`: those of `signStandardWebhook()`, the payload as
 * text or an object, and the message id optional.
 */
export interface SignStandardWebhookDeliveryOptions extends Omit<
  SignStandardWebhookOptions,
  'id' | 'payload'
> {
  /** The message: the exact text, or an object sent as `JSON.stringify(payload)`. */
  payload: DeliveryPayload;
  /**
   * The message id (`webhook-id`), the dedup key; give the same one to send a retry.
   * @default a fresh `msg_…` id on each call
   */
  id?: string;
  /**
   * The endpoint's `kind`, recorded as the delivery's provider.
   * @default 'standard'
   */
  kind?: string;
}

/**
 * A whole Standard Webhooks delivery: the body, the `webhook-id`, `webhook-timestamp` and
 * `webhook-signature` headers of `signStandardWebhook()` (or `svix-*` with `headerPrefix`), and
 * a JSON content type. `new Webhook(secret).verify(body, headers)` of `standardwebhooks` accepts it.
 * Its `eventId` is the message id, which the endpoint stores the message under.
 * @throws Error as `signStandardWebhook()` does, and when `payload` is bytes.
 * @example
 * const delivery = signStandardWebhookDelivery({
 *   payload: { type: 'payment.succeeded', data: { id: 'pay_1', orderId: 'order-1' } },
 *   secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
 * });
 * await new WebhookTestClient(app).send('acme', delivery);
 */
export function signStandardWebhookDelivery(
  options: SignStandardWebhookDeliveryOptions,
): IdentifiedDelivery {
  const { payload, id, kind, ...signing } = options;
  const body = deliveryBody('signStandardWebhookDelivery', payload);
  const eventId = id ?? newMessageId();
  const headers = signStandardWebhook({ ...signing, id: eventId, payload: body });
  const delivery: IdentifiedDelivery = {
    provider: kind ?? 'standard',
    method: 'POST',
    eventId,
    body,
    headers: { 'content-type': 'application/json', ...headers },
  };
  const { secret, privateKey } = signing;
  return withEventIds(delivery, () =>
    standardWebhooksProvider.provider({
      kind,
      secret,
      publicKey: privateKey === undefined ? undefined : publicKeyOf(privateKey),
    }),
  );
}
