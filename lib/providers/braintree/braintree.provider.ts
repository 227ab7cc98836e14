import { constantTimeMatchAny } from '../../core/constant-time';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { defineEndpoint, plainTextAcknowledgement } from '../define-endpoint';
import { parseFormBody } from '../form-body';
import { endpointLabel } from '../providers.messages';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';
import { BraintreeStatusClient, BraintreeStatusClientOptions } from './braintree-status.client';
import { readBraintreeNotification } from './braintree-notification';
import {
  BraintreeApiKey,
  braintreePayloadSignature,
  parseBraintreeSignature,
} from './braintree-signature';

const KIND = 'braintree';
const WHAT = 'Braintree notification';
const HEX_SHA1 = /^[0-9a-fA-F]{40}$/;
const KEYS_PAGE =
  'the Braintree Control Panel → Settings (gear) → API → API Keys → View (the key pair the ' +
  'webhooks are signed with)';

/** Options of the Braintree protocol, shared by `braintreeEndpoint()` and the provider. */
export interface BraintreeProviderOptions {
  /**
   * The public key of an API key of the account that sends the webhooks (Control Panel →
   * Settings → API → API Keys). Braintree signs each notification once per API key and names
   * the key by its public key in `bt_signature`. Required.
   * @example 'v4ndq314c2s5c28r'
   */
  publicKey: string;
  /**
   * The private key of the same API key ("View" next to it). The signature is keyed with its
   * SHA-1 digest. Required.
   */
  privateKey: string;
  /**
   * More API keys accepted besides `publicKey`/`privateKey`, while replacing one: a notification
   * is accepted when the signature for any of them matches.
   * @default none
   * @advanced
   */
  additionalKeys?: readonly BraintreeApiKey[];
}

/** Options of `braintreeEndpoint()`. */
export interface BraintreeEndpointOptions extends BaseEndpointOptions, BraintreeProviderOptions {
  /**
   * Braintree API access for "ask the provider" (`verifyWithProvider`, `ctx.fetchStatus()`,
   * reconciliation) through its GraphQL API; usually the same API key as above.
   * @example api: { publicKey, privateKey, environment: 'sandbox' }
   * @default none: no status lookups
   */
  api?: BraintreeStatusClientOptions;
}

/**
 * Braintree webhooks: a form-encoded POST of `bt_signature` (`publicKey|hexsig` pairs joined by
 * `&`, one per API key) and `bt_payload` (base64 of the XML notification); `hexsig` is
 * HMAC-SHA1 of `bt_payload` keyed with the SHA-1 digest of the private key. Braintree sends no
 * event id: the dedup key is the signed `kind`, subject id and `timestamp`.
 */
export class BraintreeWebhookProvider implements WebhookProvider {
  /** Provider kind. */
  readonly kind = KIND;
  /** Braintree accepts any 2xx within 30 seconds; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();

  private readonly keys: readonly BraintreeApiKey[];

  /**
   * @param options the Braintree options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a key is missing, blank or holds whitespace.
   */
  constructor(options: BraintreeProviderOptions, endpointName: unknown = KIND) {
    this.keys = resolveKeys(endpointName, options);
  }

  /**
   * Finds the `bt_signature` pairs of the configured public keys and checks each against
   * `bt_payload` (as sent, and with a trailing line break, as Braintree's SDKs do).
   * @throws WebhookVerificationError when a field is missing, the signature is malformed, names
   * none of the configured keys, or does not match.
   */
  verify(request: InboundWebhook): void {
    const fields = parseFormBody(request.rawBody, WHAT);
    const signature = fields.bt_signature;
    if (signature === undefined || signature === '') {
      throw new WebhookVerificationError('missing_signature', `${WHAT} has no bt_signature`);
    }
    const payload = fields.bt_payload;
    if (payload === undefined || payload === '') {
      throw new WebhookVerificationError('bad_signature', `${WHAT} has no bt_payload to verify`);
    }
    const pairs = parseBraintreeSignature(signature);
    if (pairs.length === 0 || pairs.some((pair) => !HEX_SHA1.test(pair.signature))) {
      throw new WebhookVerificationError(
        'bad_signature',
        'Malformed bt_signature: expected publicKey|<40 hex digits> pairs joined by "&"',
      );
    }
    const expected = this.keys.flatMap((key) =>
      [payload, `${payload}\n`].map(
        (data) => `${key.publicKey}|${braintreePayloadSignature(key.privateKey, data)}`,
      ),
    );
    const ours = pairs.filter((pair) => this.keys.some((key) => key.publicKey === pair.publicKey));
    if (ours.length === 0) {
      throw new WebhookVerificationError(
        'bad_signature',
        'bt_signature has no signature for the configured publicKey (check that publicKey and ' +
          'privateKey are an API key of the account that sends the webhooks)',
      );
    }
    const candidates = ours.map((pair) => `${pair.publicKey}|${pair.signature.toLowerCase()}`);
    if (!constantTimeMatchAny(expected, candidates)) {
      throw new WebhookVerificationError(
        'bad_signature',
        'bt_signature does not match bt_payload and the privateKey of its public key',
      );
    }
  }

  /**
   * Reads the signed XML notification and maps it to the normalized vocabulary.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const fields = parseFormBody(request.rawBody, WHAT);
    const notification = readBraintreeNotification(fields.bt_payload ?? '');
    return {
      eventId: notification.key,
      type: notification.type ?? `${KIND}:${notification.kind}`,
      nativeType: notification.kind,
      paymentRef: notification.paymentRef,
      merchantRef: notification.merchantRef,
      amount: notification.amount,
      currency: notification.currency,
      status: notification.status,
      occurredAt: notification.timestamp,
      // NOTE: the signature covers the whole payload, timestamp included; no delivery time is signed.
      occurredAtSigned: true,
      payload: notification.data,
      account: notification.sourceMerchantId,
    };
  }
}

/**
 * A Braintree webhook endpoint.
 * @throws WebhookConfigurationError at startup when a key or the `api` options cannot work.
 * @example
 * braintreeEndpoint({
 *   name: 'braintree',
 *   publicKey: process.env.BRAINTREE_PUBLIC_KEY!,
 *   privateKey: process.env.BRAINTREE_PRIVATE_KEY!,
 * })
 */
export function braintreeEndpoint(options: BraintreeEndpointOptions): WebhookEndpoint {
  const provider = new BraintreeWebhookProvider(options, options?.name);
  return defineEndpoint(options, provider, {
    statusClient: options.api && new BraintreeStatusClient(options.api),
  });
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
braintreeEndpoint.kind = 'braintree';

function resolveKeys(name: unknown, options: BraintreeProviderOptions): BraintreeApiKey[] {
  const additional: unknown = options?.additionalKeys ?? [];
  if (!Array.isArray(additional)) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name, KIND)}: additionalKeys must be a list of { publicKey, privateKey }.`,
    );
  }
  const keys = [
    { publicKey: options?.publicKey, privateKey: options?.privateKey },
    ...(additional as Partial<BraintreeApiKey>[]),
  ];
  return keys.map((key, index) => {
    const where = index === 0 ? '' : `additionalKeys[${index - 1}].`;
    return {
      publicKey: requireKey(name, `${where}publicKey`, key?.publicKey),
      privateKey: requireKey(name, `${where}privateKey`, key?.privateKey),
    };
  });
}

function requireKey(name: unknown, option: string, value: unknown): string {
  if (typeof value !== 'string' || value.trim().length === 0) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name, KIND)} has no usable ${option}: copy it from ${KEYS_PAGE}.`,
    );
  }
  if (/\s/.test(value)) {
    throw new WebhookConfigurationError(
      `${endpointLabel(name, KIND)}: ${option} contains whitespace. Copy it from ${KEYS_PAGE}, ` +
        'without surrounding spaces or line breaks.',
    );
  }
  return value;
}
