import { IsNotEmpty, IsObject, IsOptional, IsString } from 'class-validator';
import { hmacSha256 } from '../core/hmac';
import { isPaymentEventType } from '../core/payment-event-types';
import { assertTimestampWithinWindow, parseUnixSeconds } from '../core/timestamp-window';
import {
  WebhookConfigurationError,
  WebhookPayloadError,
  WebhookVerificationError,
} from '../core/webhook-errors';
import { defineEndpoint, plainTextAcknowledgement, requireSecrets } from './define-endpoint';
import {
  JsonObject,
  parseIsoDate,
  parseJsonObject,
  readInteger,
  readObject,
  readString,
  toCurrency,
  toIdentifier,
  validateEnvelope,
} from './parse-payload';
import { resolveKind, resolveTolerance } from './provider-options';
import { standardSecretFormatMessage } from './providers.messages';
import { assertAnySignatureMatches } from './signature-header';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from './webhook-provider.interface';

const DEFAULT_KIND = 'standard';
const SECRET_PREFIX = 'whsec_';
// NOTE: standard alphabet with padding, as the reference library (@stablelib/base64) demands.
const PADDED_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Options of the Standard Webhooks protocol, shared by the factory and the provider class. */
export interface StandardWebhooksProviderOptions {
  /**
   * The signing secret as the sender shows it (`whsec_<base64>`; the prefix is optional).
   * Pass a list while rotating: a delivery is accepted when any secret matches any `v1`
   * signature. Required.
   */
  secret: string | readonly string[];
  /**
   * Largest distance in seconds between `webhook-timestamp` and the receive time, in either
   * direction; `0` switches the check off.
   * @default 300
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

class StandardWebhookEnvelope {
  @IsString()
  @IsNotEmpty()
  type!: string;

  @IsOptional()
  @IsString()
  timestamp?: string;

  @IsOptional()
  @IsObject()
  data?: JsonObject;
}

/**
 * The HMAC key of a Standard Webhooks secret: the optional `whsec_` prefix stripped, the rest
 * base64-decoded. Undefined when the secret is not well-formed.
 */
export function decodeStandardWebhooksSecret(secret: string): Buffer | undefined {
  const encoded = secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret;
  if (encoded.length === 0 || !PADDED_BASE64.test(encoded)) {
    return undefined;
  }
  const key = Buffer.from(encoded, 'base64');
  return key.length > 0 ? key : undefined;
}

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
 * secret. `webhook-id` is the same on every retry, so it is the event id.
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

  private readonly keys: readonly Buffer[];
  private readonly tolerance: number;

  /**
   * @param options the Standard Webhooks options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(options: StandardWebhooksProviderOptions, endpointName = DEFAULT_KIND) {
    this.kind = resolveKind(endpointName, options?.kind, DEFAULT_KIND);
    const secrets = requireSecrets(endpointName, this.kind, 'secret', options?.secret);
    this.keys = secrets.map((secret, index) => {
      const key = decodeStandardWebhooksSecret(secret);
      if (key === undefined) {
        throw new WebhookConfigurationError(
          standardSecretFormatMessage(endpointName, this.kind, index, secrets.length),
        );
      }
      return key;
    });
    this.tolerance = resolveTolerance(endpointName, this.kind, options.tolerance);
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
    const candidates = parseSignatureHeader(header);
    const expected = this.keys.map((key) =>
      hmacSha256(key, [`${id}.${timestampText}.`, request.rawBody]),
    );
    assertAnySignatureMatches(expected, candidates, 'v1', 'webhook-signature');
    assertTimestampWithinWindow(timestamp, request.receivedAt, this.tolerance);
  }

  /**
   * Parses a Standard Webhooks message; the event id is the webhook-id header.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, 'Webhook body');
    const message = validateEnvelope(StandardWebhookEnvelope, body, 'Webhook message');
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

/** The decoded `v1` signatures; other versions (`v1a`, …) are skipped as the spec says. */
function parseSignatureHeader(header: string): Buffer[] {
  const signatures: Buffer[] = [];
  for (const entry of header.split(' ')) {
    const separator = entry.indexOf(',');
    if (separator <= 0 || entry.slice(0, separator) !== 'v1') continue;
    const encoded = entry.slice(separator + 1);
    if (BASE64.test(encoded)) {
      signatures.push(Buffer.from(encoded, 'base64'));
    }
  }
  if (signatures.length === 0) {
    throw new WebhookVerificationError(
      'bad_signature',
      'Malformed webhook-signature header: no v1,<base64> signature',
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
