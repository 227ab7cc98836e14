import { KeyObject, verify as verifySignature } from 'node:crypto';
import { decodeCanonicalBase64 } from '../../core/base64';
import { constantTimeMatchAny } from '../../core/constant-time';
import { hmacSha256 } from '../../core/hmac';
import { isPaymentEventType } from '../../core/payment-event-types';
import { assertTimestampWithinWindow, parseUnixSeconds } from '../../core/timestamp-window';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../../core/webhook-errors';
import { defineEndpoint, plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { jsonObject, nonEmptyString, optional, string } from '../envelope-rules';
import {
  parseIsoDate,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
  toIdentifier,
} from '../parse-payload';
import { resolveKind, resolveTolerance } from '../provider-options';
import {
  standardKeyInWrongOptionMessage,
  standardNoKeyMessage,
  standardPublicKeyFormatMessage,
  standardSecretFormatMessage,
  standardSigningKeyMessage,
} from '../providers.messages';
import {
  STANDARD_PUBLIC_KEY_PREFIX,
  STANDARD_SECRET_PREFIX,
  STANDARD_SIGNING_KEY_PREFIX,
  decodeStandardWebhooksPublicKey,
  decodeStandardWebhooksSecret,
} from './standard-webhooks.keys';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';

const DEFAULT_KIND = 'standard';
const ED25519_SIGNATURE_BYTES = 64;
/**
 * How many `v1a` entries of one header are checked against each public key.
 * NOTE: an Ed25519 check costs about as much as a thousand HMACs, and a header can hold ~180
 * entries; a sender rotating keys sends two or three, so the rest are skipped unchecked.
 */
const MAX_V1A_SIGNATURES = 8;

/** Options of the Standard Webhooks protocol, shared by the factory and the provider class. */
export interface StandardWebhooksProviderOptions {
  /**
   * The signing secret as the sender shows it (`whsec_<base64>`; the prefix is optional), for
   * symmetric `v1` (HMAC-SHA256) signatures. Pass a list while rotating: a delivery is accepted
   * when any secret matches any `v1` signature. Required unless `publicKey` is set.
   * @default none (`v1` signatures are not checked)
   */
  secret?: string | readonly string[];
  /**
   * The sender's public key as it shows it (`whpk_<base64 of the 32-byte Ed25519 key>`), for
   * asymmetric `v1a` (Ed25519) signatures, which the spec recommends: the receiver holds nothing
   * secret. Pass a list while rotating. With both this and `secret`, a delivery is accepted when
   * any entry of either scheme verifies. Required unless `secret` is set.
   * @default none (`v1a` signatures are not checked)
   */
  publicKey?: string | readonly string[];
  /**
   * Largest distance in seconds between `webhook-timestamp` and the receive time, in either
   * direction; `0` switches the check off.
   * @default 300
   * @advanced
   */
  toleranceSeconds?: number;
  /**
   * The timestamp window in seconds, under its name before 1.0.
   * @deprecated use `toleranceSeconds` (the same number of seconds); read until 2.0.
   */
  tolerance?: number;
  /**
   * Provider kind, used in unmapped types (`'<kind>:<type>'`) and in the inbox. Set it to the
   * sender's name (e.g. `'svix'`, `'acme'`) when several senders use Standard Webhooks.
   * @default 'standard'
   */
  kind?: string;
}

/** Options of `standardWebhooksEndpoint()`. */
export interface StandardWebhooksEndpointOptions
  extends BaseEndpointOptions, StandardWebhooksProviderOptions {}

const STANDARD_WEBHOOK = defineEnvelope({
  type: nonEmptyString(),
  timestamp: optional(string()),
  data: optional(jsonObject()),
});

/** A header by its `webhook-*` name, preferring the `svix-*` alias as the Svix library does. */
function standardHeader(
  request: InboundWebhook,
  name: 'id' | 'timestamp' | 'signature',
): string | undefined {
  const svix = request.headers[`svix-${name}`];
  if (svix !== undefined && svix.trim() !== '') return svix.trim();
  const standard = request.headers[`webhook-${name}`];
  return standard !== undefined && standard.trim() !== '' ? standard.trim() : undefined;
}

/**
 * Standard Webhooks (and Svix): `webhook-signature` holds space-separated `v1,<base64>` entries,
 * each HMAC-SHA256 of `${webhook-id}.${webhook-timestamp}.${rawBody}` keyed by the base64-decoded
 * secret, and `v1a,<base64>` entries, each an Ed25519 signature of the same content checked with
 * the sender's public key. `webhook-id` is the same on every retry, so it is the event id.
 */
export class StandardWebhooksProvider implements WebhookProvider {
  /** Provider kind (the `kind` option). */
  readonly kind: string;
  /** Standard Webhooks senders accept any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** The message id is the event id; `normalize()` reads it again on replay. */
  readonly storedHeaders: readonly string[] = Object.freeze([
    'webhook-id',
    'webhook-timestamp',
    'svix-id',
    'svix-timestamp',
  ]);

  private readonly secrets: readonly Buffer[];
  private readonly publicKeys: readonly KeyObject[];
  private readonly tolerance: number;

  /**
   * @param options the Standard Webhooks options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(options: StandardWebhooksProviderOptions, endpointName = DEFAULT_KIND) {
    const kind = resolveKind(endpointName, options?.kind, DEFAULT_KIND);
    this.kind = kind;
    if (options?.secret === undefined && options?.publicKey === undefined) {
      throw new WebhookConfigurationError(standardNoKeyMessage(endpointName, kind));
    }
    const fail = (message: string): never => {
      throw new WebhookConfigurationError(message);
    };
    const secrets =
      options.secret === undefined
        ? []
        : requireSecrets(endpointName, kind, 'secret', options.secret);
    this.secrets = secrets.map((secret, index) => {
      const at = [index, secrets.length] as const;
      if (secret.startsWith(STANDARD_SIGNING_KEY_PREFIX)) {
        fail(standardSigningKeyMessage(endpointName, kind, 'secret', ...at));
      }
      if (secret.startsWith(STANDARD_PUBLIC_KEY_PREFIX)) {
        fail(standardKeyInWrongOptionMessage(endpointName, kind, 'secret', ...at));
      }
      return (
        decodeStandardWebhooksSecret(secret) ??
        fail(standardSecretFormatMessage(endpointName, kind, ...at))
      );
    });
    const publicKeys = listOfStrings(options.publicKey);
    if (publicKeys === undefined) {
      fail(standardNoKeyMessage(endpointName, kind));
    }
    this.publicKeys = (publicKeys ?? []).map((publicKey, index, all) => {
      const at = [index, all.length] as const;
      if (publicKey.startsWith(STANDARD_SIGNING_KEY_PREFIX)) {
        fail(standardSigningKeyMessage(endpointName, kind, 'publicKey', ...at));
      }
      if (publicKey.startsWith(STANDARD_SECRET_PREFIX)) {
        fail(standardKeyInWrongOptionMessage(endpointName, kind, 'publicKey', ...at));
      }
      return (
        decodeStandardWebhooksPublicKey(publicKey) ??
        fail(standardPublicKeyFormatMessage(endpointName, kind, ...at))
      );
    });
    this.tolerance = resolveTolerance(endpointName, kind, options, 'standardWebhooksEndpoint()');
  }

  /**
   * Checks the webhook-signature header against id, timestamp and raw body, then the window.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
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
    const signedPrefix = `${id}.${timestampText}.`;
    const signatures = parseSignatureHeader(header, this.schemes());
    const expected = this.secrets.map((key) => hmacSha256(key, [signedPrefix, request.rawBody]));
    const matches =
      constantTimeMatchAny(expected, signatures.v1) ||
      this.anyEd25519SignatureVerifies(signatures.v1a, signedPrefix, request.rawBody);
    if (!matches) {
      throw new WebhookVerificationError(
        'bad_signature',
        `No ${this.schemes().join(' or ')} signature in the webhook-signature header matches ` +
          `the payload and the ${this.keysDescription()}`,
      );
    }
    assertTimestampWithinWindow(timestamp, request.receivedAt, this.tolerance);
  }

  /** The signature versions this endpoint checks: `v1` with a secret, `v1a` with a public key. */
  private schemes(): SignatureVersion[] {
    const schemes: SignatureVersion[] = [];
    if (this.secrets.length > 0) schemes.push('v1');
    if (this.publicKeys.length > 0) schemes.push('v1a');
    return schemes;
  }

  private keysDescription(): string {
    if (this.publicKeys.length === 0) return 'secret';
    return this.secrets.length === 0 ? 'public key' : 'secret or the public key';
  }

  private anyEd25519SignatureVerifies(
    signatures: readonly Buffer[],
    signedPrefix: string,
    rawBody: Buffer,
  ): boolean {
    if (signatures.length === 0 || this.publicKeys.length === 0) return false;
    const content = Buffer.concat([Buffer.from(signedPrefix, 'utf8'), rawBody]);
    return signatures.some((signature) =>
      this.publicKeys.some((key) => verifySignature(null, content, key, signature)),
    );
  }

  /**
   * Parses a Standard Webhooks message; the event id is the webhook-id header.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Webhook body');
    const message = checkEnvelope(STANDARD_WEBHOOK, body, 'Webhook message');
    const data = readObject(body, 'data');
    // NOTE: verify() already required the id; normalize() may be called alone, e.g. on replay.
    const eventId = standardHeader(request, 'id');
    if (eventId === undefined) {
      throw new WebhookPayloadError('Missing webhook-id header: the message has no event id');
    }
    return {
      eventId,
      type: isPaymentEventType(message.type) ? message.type : `${this.kind}:${message.type}`,
      nativeType: message.type,
      paymentRef: toIdentifier(data?.paymentId),
      merchantRef: toIdentifier(data?.orderId),
      amount: readInteger(data, 'amount'),
      currency: toCurrency(data?.currency),
      status: readString(data, 'status'),
      occurredAt: parseIsoDate(message.timestamp),
      payload: body,
    };
  }
}

type SignatureVersion = 'v1' | 'v1a';

/** A list option as a list of non-blank strings; undefined when an entry is not one. */
function listOfStrings(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return [];
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  const strings = list.filter((s): s is string => typeof s === 'string' && s.trim().length > 0);
  return strings.length === list.length && strings.length > 0 ? strings : undefined;
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

/**
 * An endpoint for any sender that follows the Standard Webhooks spec (Svix and the services
 * built on it).
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * standardWebhooksEndpoint({ name: 'acme', kind: 'acme', secret: process.env.ACME_WEBHOOK_SECRET! })
 */
export function standardWebhooksEndpoint(
  options: StandardWebhooksEndpointOptions,
): WebhookEndpoint {
  return defineEndpoint(options, new StandardWebhooksProvider(options, options?.name));
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
standardWebhooksEndpoint.kind = 'standard';
