import { constantTimeMatchAny } from '../../core/constant-time';
import { WebhookConfigurationError, WebhookVerificationError } from '../../core/webhook-errors';
import { defineProvider, SignatureScheme } from '../define-provider';
import { withEventIds } from '../delivery-event-ids';
import { parseFormBody } from '../form-body';
import { SigningInput } from '../provider-descriptor.interface';
import { endpointLabel } from '../providers.messages';
import { SignedDelivery } from '../signed-delivery';
import { jsonObject, requireSecret, SigningInputError } from '../signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  WebhookEndpoint,
} from '../webhook-provider.interface';
import { BraintreeStatusClient, BraintreeStatusClientOptions } from './braintree-status.client';
import { BRAINTREE_TYPES, readBraintreeNotification } from './braintree-notification';
import {
  BraintreeApiKey,
  braintreeFormBody,
  braintreeSignaturePair,
  parseBraintreeSignature,
} from './braintree-signature';
import { plainChildrenXml } from './braintree-xml-writer';
import { braintreeNotificationXml } from './braintree.fixtures';

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
 * How Braintree signs: `bt_signature` in the form body holds a `publicKey|hexsig` pair per API
 * key (see `braintreeSignaturePair`), checked here for the configured keys against `bt_payload`
 * as sent, and with a trailing line break, as Braintree's SDKs do.
 */
function braintreeSignature(keys: readonly BraintreeApiKey[]): SignatureScheme {
  return {
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
      const expected = keys.flatMap((key) =>
        [payload, `${payload}\n`].map((data) => braintreeSignaturePair(key, data)),
      );
      const ours = pairs.filter((pair) => keys.some((key) => key.publicKey === pair.publicKey));
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
    },
    sign(): never {
      throw new TypeError(
        'Braintree signs inside the form body: sign with signBraintreeDelivery()',
      );
    },
  };
}

/** A POST of a Braintree form body, as Braintree sends it. */
export function braintreeFormPost(body: string): SignedDelivery {
  return {
    provider: KIND,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  };
}

/**
 * Braintree webhooks: a form-encoded POST of `bt_signature` (`publicKey|hexsig` pairs joined by
 * `&`, one per API key) and `bt_payload` (base64 of the XML notification); `hexsig` is
 * HMAC-SHA1 of `bt_payload` keyed with the SHA-1 digest of the private key. Braintree sends no
 * event id: the dedup key is the signed `kind`, subject id and `timestamp`.
 */
export const braintreeProvider = defineProvider<
  BraintreeProviderOptions & Pick<BraintreeEndpointOptions, 'api'>
>({
  kind: KIND,
  name: 'Braintree',
  retryHorizon: {
    days: 1,
    documented: 'resent every hour for up to 24 hours in production (3 hours in the sandbox)',
  },
  // NOTE: no `secrets`: the signature is in the form body, not a header, and an API key is a
  // pair (publicKey, privateKey) rotated through additionalKeys; they are checked as options.
  checkOptions(options, endpointName) {
    resolveKeys(endpointName, options);
  },
  signature: (options) => braintreeSignature(resolveKeys(KIND, options)),
  // NOTE: Braintree accepts any 2xx within 30 seconds; an empty 200 is the plainest.
  types: BRAINTREE_TYPES,
  normalize({ request }) {
    const fields = parseFormBody(request.rawBody, WHAT);
    const notification = readBraintreeNotification(fields.bt_payload ?? '');
    return {
      eventId: notification.key,
      ...(notification.refundType === undefined ? {} : { type: notification.refundType }),
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
  },
  extras: (options) => ({ statusClient: options.api && new BraintreeStatusClient(options.api) }),
  cli: {
    secret: 'the private key of the API key (its public key goes in --public-key)',
    payload:
      'the notification as JSON, { "kind", "timestamp" (default now), "subject": { "transaction": { "id", "order-id", … } } }, sent as Braintree\'s XML',
    flags: [
      {
        name: 'public-key',
        value: '<key>',
        help: 'the public key of the API key, named in bt_signature (required)',
      },
    ],
    sign: (input): SignedDelivery => {
      const publicKey = input.options['public-key'];
      if (publicKey === undefined || publicKey === '') {
        throw new SigningInputError(
          '--provider braintree needs --public-key (the public key of the API key whose private key is --secret)',
        );
      }
      const key = { publicKey, privateKey: requireSecret(KIND, input) };
      const delivery = braintreeFormPost(braintreeFormBody(key, notificationXml(input)));
      return withEventIds(delivery, () => braintreeProvider.provider(key));
    },
  },
  sample: {
    secret: '93b78bc88be90d93ac282e50ae569fdd',
    options: { publicKey: 'v4ndq314c2s5c28r', privateKey: '93b78bc88be90d93ac282e50ae569fdd' },
    flags: { 'public-key': 'v4ndq314c2s5c28r' },
    body: JSON.stringify({
      kind: 'transaction_settled',
      timestamp: '2024-05-12T18:14:14Z',
      subject: { transaction: { id: 'cwn1ah7f', amount: '19.99', 'order-id': 'order-42' } },
    }),
  },
});

/** The XML notification of the CLI's JSON file `{ "kind", "timestamp", "subject" }`. */
function notificationXml(input: SigningInput): string {
  const what = '{ "kind", "timestamp", "subject" }';
  const { kind, timestamp, subject } = jsonObject(KIND, input, what);
  const at = timestamp === undefined ? new Date() : new Date(String(timestamp));
  if (typeof kind !== 'string' || kind === '' || Number.isNaN(at.getTime())) {
    throw new SigningInputError(
      `--provider braintree takes ${what} in --file: "kind" a string, "timestamp" an ISO 8601 date`,
    );
  }
  try {
    return braintreeNotificationXml(kind, at, plainChildrenXml(subject));
  } catch (error) {
    throw new SigningInputError(
      `--provider braintree: "subject" in --file ${(error as Error).message}`,
    );
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
  return braintreeProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
braintreeEndpoint.kind = KIND;

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
