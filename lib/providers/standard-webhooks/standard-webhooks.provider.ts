import { ownValue } from '../../core/own-value';
import { PAYMENT_EVENT_TYPES, PaymentEventType } from '../../core/payment-event-types';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { withEventIds } from '../delivery-event-ids';
import { plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
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
import { jsonPost, oneOf, requireSecret, SigningInputError } from '../signing-input';
import {
  messageIdOf,
  STANDARD_WEBHOOKS_STORED_HEADERS,
  standardWebhooksSignature,
} from './standard-webhooks.signature';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';

const DEFAULT_KIND = 'standard';
/** A sender's event of a package type name is of that type; any other is `<kind>:<type>`. */
const EVENT_TYPES: Readonly<Record<string, PaymentEventType>> = Object.fromEntries(
  PAYMENT_EVENT_TYPES.map((type) => [type, type]),
);

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

/**
 * Standard Webhooks (and Svix), verified by `standardWebhooksSignature()`: `v1` entries with the
 * secrets, `v1a` entries with the sender's public keys. `webhook-id` is the same on every retry,
 * so it is the event id.
 */
export class StandardWebhooksProvider implements WebhookProvider {
  /** Provider kind (the `kind` option). */
  readonly kind: string;
  /** Standard Webhooks senders accept any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** The message id is the event id; `normalize()` reads it again on replay. */
  readonly storedHeaders = STANDARD_WEBHOOKS_STORED_HEADERS;

  private readonly secrets: readonly string[];
  private readonly scheme: SignatureScheme;

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
    secrets.forEach((secret, index) => {
      const at = [index, secrets.length] as const;
      if (secret.startsWith(STANDARD_SIGNING_KEY_PREFIX)) {
        fail(standardSigningKeyMessage(endpointName, kind, 'secret', ...at));
      }
      if (secret.startsWith(STANDARD_PUBLIC_KEY_PREFIX)) {
        fail(standardKeyInWrongOptionMessage(endpointName, kind, 'secret', ...at));
      }
      if (decodeStandardWebhooksSecret(secret) === undefined) {
        fail(standardSecretFormatMessage(endpointName, kind, ...at));
      }
    });
    this.secrets = secrets;
    const publicKeys = listOfStrings(options.publicKey);
    if (publicKeys === undefined) {
      fail(standardNoKeyMessage(endpointName, kind));
    }
    const keys = (publicKeys ?? []).map((publicKey, index, all) => {
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
    this.scheme = standardWebhooksSignature({
      publicKeys: keys,
      toleranceSeconds: resolveTolerance(endpointName, kind, options, 'standardWebhooksEndpoint()'),
    });
  }

  /**
   * Checks the webhook-signature header against id, timestamp and raw body, then the window.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    this.scheme.verify(request, this.secrets);
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
    const eventId = messageIdOf(request);
    return {
      eventId,
      type: ownValue(EVENT_TYPES, message.type) ?? `${this.kind}:${message.type}`,
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

/** A list option as a list of non-blank strings; undefined when an entry is not one. */
function listOfStrings(value: string | readonly string[] | undefined): string[] | undefined {
  if (value === undefined) return [];
  const list = (Array.isArray(value) ? value : [value]) as unknown[];
  const strings = list.filter((s): s is string => typeof s === 'string' && s.trim().length > 0);
  return strings.length === list.length && strings.length > 0 ? strings : undefined;
}

const SAMPLE_SECRET = `whsec_${Buffer.alloc(24, 7).toString('base64')}`;

/**
 * Standard Webhooks (Svix and compatible senders). The provider keeps its class, built through
 * `create`: a secret, a public key or both may verify, and the `kind` option renames the kind.
 */
export const standardWebhooksProvider = defineProvider<StandardWebhooksProviderOptions>({
  kind: DEFAULT_KIND,
  name: 'Standard Webhooks',
  aliases: ['standard-webhooks', 'svix'],
  retryHorizon: {
    days: 4,
    documented: "the specification's example schedule spans 75 h 35 min (Svix: about 27.6 h)",
  },
  signature: standardWebhooksSignature(),
  types: EVENT_TYPES,
  create: (options, endpointName) => new StandardWebhooksProvider(options, endpointName),
  cli: {
    title: 'Standard Webhooks (Svix and compatible senders)',
    secret: 'the signing secret (whsec_ + base64)',
    timestamp: 'webhook-timestamp (Unix seconds; default now)',
    payload: 'the message, signed byte for byte',
    flags: [
      {
        name: 'id',
        value: '<message id>',
        help: 'webhook-id, the dedup key (default a new msg_… each time)',
      },
      {
        name: 'header-prefix',
        value: 'webhook|svix',
        help: 'header names: webhook-* or svix-* (default webhook)',
      },
    ],
    sign: (input) => {
      const secret = requireSecret(DEFAULT_KIND, input);
      const headerPrefix = oneOf('header-prefix', input.options['header-prefix'], [
        'webhook',
        'svix',
      ] as const);
      let signature: Readonly<Record<string, string>>;
      try {
        signature = standardWebhooksSignature().sign(input.text, secret, input.timestamp, {
          id: input.options.id,
          headerPrefix,
        });
      } catch {
        throw new SigningInputError('--secret for standard must be "whsec_" followed by base64');
      }
      return withEventIds(
        jsonPost(DEFAULT_KIND, input, signature),
        () => new StandardWebhooksProvider({ secret }),
      );
    },
  },
  sample: {
    secret: SAMPLE_SECRET,
    body: '{"type":"payment.succeeded","data":{"paymentId":"pay_1","amount":1999,"currency":"EUR"}}',
    options: { secret: SAMPLE_SECRET },
  },
});

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
  return standardWebhooksProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
standardWebhooksEndpoint.kind = DEFAULT_KIND;
