import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { AdyenNotificationRequestItem } from '../providers/adyen/adyen.provider';
import type { HmacSignatureEncoding } from '../providers/hmac/hmac.provider';
import type { YooKassaNotificationObject } from '../providers/yookassa/yookassa.provider';
import { signAdyenDelivery } from '../providers/adyen/adyen.signer';
import { signPaddleDelivery } from '../providers/paddle/paddle.signer';
import { signPayPalDelivery } from '../providers/paypal/paypal.signer';
import { signSberDelivery } from '../providers/sber/sber.signer';
import { SignedDelivery } from '../providers/signed-delivery';
import { signHmac } from '../providers/hmac/hmac.signer';
import { signQvard } from '../providers/qvard/qvard.signer';
import { signStandardWebhook } from '../providers/standard-webhooks/standard-webhooks.signer';
import { signStripe } from '../providers/stripe/stripe.signer';
import { signSquareDelivery } from '../providers/square/square.signer';
import { signTBankDelivery } from '../providers/tbank/tbank.signer';
import { yookassaDelivery } from '../providers/yookassa/yookassa.signer';
import { signYooMoneyDelivery } from '../providers/yoomoney/yoomoney.signer';
import { CliUsageError } from './cli-errors';

/** What a provider's signer gets from the command line. */
export interface SigningInput {
  /** The payload file exactly as read. */
  readonly text: string;
  /** The file parsed as JSON. */
  readonly json: unknown;
  /** `--secret`, when given. */
  readonly secret?: string;
  /** `--timestamp` in Unix seconds, when given. */
  readonly timestamp?: number;
  /** The provider's own options, by flag name without the dashes. */
  readonly options: Readonly<Record<string, string | undefined>>;
  /** Where `send` posts the delivery; undefined for `sign`. */
  readonly url?: string;
}

/** An option only some providers take. */
export interface SigningFlag {
  /** Flag name without the dashes, e.g. `'webhook-id'`. */
  readonly name: string;
  /** Placeholder in the help, e.g. `'<id>'`. */
  readonly value: string;
  /** What it sets, with its default. */
  readonly help: string;
}

/** How the CLI signs for one provider kind. */
export interface ProviderSigning {
  /** Provider kind, as `--provider` takes it and as the inbox stores it. */
  readonly kind: string;
  /** The provider's name. */
  readonly title: string;
  /** What `--secret` is at this provider; null when the provider signs with no shared secret. */
  readonly secret: string | null;
  /** A provider option that signs instead of `--secret` (Sber's `private-key`). */
  readonly secretAlternative?: string;
  /** What `--timestamp` sets; null when the signature covers no time. */
  readonly timestamp: string | null;
  /** What the JSON file holds. */
  readonly payload: string;
  /** Options only this provider takes. */
  readonly flags: readonly SigningFlag[];
  /**
   * Builds the delivery exactly as the provider sends it.
   * @throws CliUsageError when the input does not fit the provider.
   */
  sign(input: SigningInput): SignedDelivery;
}

const JSON_HEADERS = { 'content-type': 'application/json' } as const;

function requireSecret(kind: string, input: SigningInput): string {
  if (input.secret === undefined || input.secret === '') {
    throw new CliUsageError(`--provider ${kind} needs --secret`);
  }
  return input.secret;
}

function jsonObject(kind: string, input: SigningInput, what: string): Record<string, unknown> {
  if (input.json === null || typeof input.json !== 'object' || Array.isArray(input.json)) {
    throw new CliUsageError(`--provider ${kind} takes a JSON object in --file: ${what}`);
  }
  return input.json as Record<string, unknown>;
}

/** A flat JSON object as form fields; numbers and booleans are written as JSON writes them. */
function formFields(kind: string, input: SigningInput, what: string): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const [name, value] of Object.entries(jsonObject(kind, input, what))) {
    if (typeof value === 'string') {
      fields[name] = value;
    } else if (typeof value === 'number' || typeof value === 'boolean') {
      fields[name] = JSON.stringify(value);
    } else {
      throw new CliUsageError(
        `--provider ${kind} sends form fields: "${name}" in --file must be a string, number or boolean`,
      );
    }
  }
  return fields;
}

function readPem(flag: string, path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new CliUsageError(
      `cannot read --${flag} ${path}: ${(error as NodeJS.ErrnoException).code ?? 'unreadable'}`,
    );
  }
}

function oneOf<T extends string>(flag: string, value: string | undefined, allowed: readonly T[]) {
  if (value !== undefined && !allowed.includes(value as T)) {
    throw new CliUsageError(`--${flag} takes ${allowed.join(' or ')} (got "${value}")`);
  }
  return value as T | undefined;
}

function adyenRequest(input: SigningInput): {
  items: AdyenNotificationRequestItem[];
  live?: 'true' | 'false';
} {
  const unwrap = (entry: unknown): AdyenNotificationRequestItem => {
    const item =
      entry !== null && typeof entry === 'object' && 'NotificationRequestItem' in entry
        ? (entry as { NotificationRequestItem: unknown }).NotificationRequestItem
        : entry;
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      throw new CliUsageError(
        '--provider adyen takes a notification request, a list of NotificationRequestItem or one item in --file',
      );
    }
    return item as AdyenNotificationRequestItem;
  };
  const json = input.json as { notificationItems?: unknown; live?: unknown } | unknown[];
  if (Array.isArray(json)) {
    return { items: json.map(unwrap) };
  }
  if (json !== null && typeof json === 'object' && Array.isArray(json.notificationItems)) {
    const live = json.live === undefined ? undefined : String(json.live);
    return {
      items: json.notificationItems.map(unwrap),
      live: oneOf('live (in --file)', live, ['true', 'false'] as const),
    };
  }
  return { items: [unwrap(json)] };
}

/**
 * The provider → signer table behind `sign` and `send`: one entry per provider kind, each
 * built on the package's own test signers (`nestjs-payment-webhooks/testing`), so the CLI signs
 * exactly as the tests and the providers do.
 */
export const PROVIDER_SIGNING: readonly ProviderSigning[] = [
  {
    kind: 'stripe',
    title: 'Stripe',
    secret: 'the endpoint signing secret (whsec_…)',
    timestamp: 'the signed time t= (Unix seconds; default now)',
    payload: 'the event, signed byte for byte',
    flags: [],
    sign: (input) => ({
      provider: 'stripe',
      method: 'POST',
      body: input.text,
      headers: {
        ...JSON_HEADERS,
        ...signStripe({
          payload: input.text,
          secret: requireSecret('stripe', input),
          timestamp: input.timestamp,
        }),
      },
    }),
  },
  {
    kind: 'standard',
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
      try {
        return {
          provider: 'standard',
          method: 'POST',
          body: input.text,
          headers: {
            ...JSON_HEADERS,
            ...signStandardWebhook({
              id: input.options.id ?? `msg_${randomUUID().replace(/-/g, '')}`,
              payload: input.text,
              secret: requireSecret('standard', input),
              timestamp: input.timestamp,
              headerPrefix: oneOf('header-prefix', input.options['header-prefix'], [
                'webhook',
                'svix',
              ] as const),
            }),
          },
        };
      } catch (error) {
        if (error instanceof CliUsageError) throw error;
        throw new CliUsageError('--secret for standard must be "whsec_" followed by base64');
      }
    },
  },
  {
    kind: 'qvard',
    title: 'Qvard',
    secret: "the project's secret key",
    timestamp: null,
    payload: 'the notification, signed byte for byte',
    flags: [],
    sign: (input) => ({
      provider: 'qvard',
      method: 'POST',
      body: input.text,
      headers: {
        ...JSON_HEADERS,
        ...signQvard({ payload: input.text, secret: requireSecret('qvard', input) }),
      },
    }),
  },
  {
    kind: 'hmac',
    title: 'generic HMAC-SHA256 (hmacEndpoint)',
    secret: 'the shared secret',
    timestamp: 'the signed time, with --timestamp-header (Unix seconds; default now)',
    payload: 'the body, signed byte for byte',
    flags: [
      {
        name: 'signature-header',
        value: '<name>',
        help: 'header carrying the signature (default x-signature)',
      },
      {
        name: 'signature-prefix',
        value: '<text>',
        help: 'text before the signature, e.g. sha256= (default none)',
      },
      { name: 'encoding', value: 'hex|base64', help: 'signature encoding (default hex)' },
      {
        name: 'timestamp-header',
        value: '<name>',
        help: 'header carrying the time; the signed text becomes "<time>.<body>" (default none)',
      },
    ],
    sign: (input) => {
      if (input.timestamp !== undefined && input.options['timestamp-header'] === undefined) {
        throw new CliUsageError(
          '--timestamp needs --timestamp-header for --provider hmac (the endpoint reads the time from it)',
        );
      }
      return {
        provider: 'hmac',
        method: 'POST',
        body: input.text,
        headers: {
          ...JSON_HEADERS,
          ...signHmac({
            payload: input.text,
            secret: requireSecret('hmac', input),
            timestamp: input.timestamp,
            signatureHeader: input.options['signature-header'],
            signaturePrefix: input.options['signature-prefix'],
            encoding: oneOf<HmacSignatureEncoding>('encoding', input.options.encoding, [
              'hex',
              'base64',
            ]),
            timestampHeader: input.options['timestamp-header'],
          }),
        },
      };
    },
  },
  {
    kind: 'tbank',
    title: 'T-Bank',
    secret: 'the terminal password',
    timestamp: null,
    payload: 'the notification object without Token (Token is computed and appended)',
    flags: [],
    sign: (input) => {
      const payload = jsonObject('tbank', input, 'the notification without Token');
      return signTBankDelivery({ payload, password: requireSecret('tbank', input) });
    },
  },
  {
    kind: 'sber',
    title: 'Sber (callback with checksum)',
    secret: 'the callback token (symmetric checksum); or give --private-key instead',
    secretAlternative: 'private-key',
    timestamp: null,
    payload: 'the callback parameters as a flat object, without checksum',
    flags: [
      {
        name: 'method',
        value: 'GET|POST',
        help: 'GET puts the parameters in the query string, POST in a form body (default GET)',
      },
      {
        name: 'private-key',
        value: '<pem file>',
        help: 'RSA private key for the asymmetric checksum (RSA SHA-512), instead of --secret',
      },
    ],
    sign: (input) => {
      const privateKeyFile = input.options['private-key'];
      if ((input.secret === undefined) === (privateKeyFile === undefined)) {
        throw new CliUsageError(
          '--provider sber needs exactly one of --secret (callback token) and --private-key',
        );
      }
      return signSberDelivery({
        payload: formFields('sber', input, 'the callback parameters'),
        callbackToken: input.secret,
        privateKey:
          privateKeyFile === undefined ? undefined : readPem('private-key', privateKeyFile),
        method: oneOf('method', input.options.method?.toUpperCase(), ['GET', 'POST'] as const),
      });
    },
  },
  {
    kind: 'yoomoney',
    title: 'YooMoney (wallet notifications)',
    secret: "the wallet's notification secret",
    timestamp: null,
    payload: 'the notification fields as a flat object, without sha1_hash',
    flags: [],
    sign: (input) =>
      signYooMoneyDelivery({
        payload: formFields('yoomoney', input, 'the notification fields'),
        notificationSecret: requireSecret('yoomoney', input),
      }),
  },
  {
    kind: 'yookassa',
    title: 'YooKassa (unsigned: the endpoint trusts source addresses)',
    secret: null,
    timestamp: null,
    payload: 'the notification: { "event": "payment.succeeded", "object": { … } }',
    flags: [],
    sign: (input) => {
      const notification = jsonObject('yookassa', input, '{ "event": …, "object": { … } }');
      const { event, object } = notification;
      if (typeof event !== 'string' || object === null || typeof object !== 'object') {
        throw new CliUsageError(
          '--provider yookassa takes { "event": "payment.succeeded", "object": { … } } in --file',
        );
      }
      return yookassaDelivery({ event, object: object as YooKassaNotificationObject });
    },
  },
  {
    kind: 'paypal',
    title: 'PayPal (RSA signature with a certificate)',
    secret: null,
    timestamp: 'PAYPAL-TRANSMISSION-TIME (Unix seconds; default now)',
    payload: 'the event, signed byte for byte (through its CRC32)',
    flags: [
      {
        name: 'webhook-id',
        value: '<id>',
        help: "the webhook id the endpoint is configured with (required; PayPal's simulator uses WEBHOOK_ID)",
      },
      {
        name: 'private-key',
        value: '<pem file>',
        help: "private key of the certificate at --cert-url (default the package's test key, PAYPAL_TEST_PRIVATE_KEY_PEM)",
      },
      {
        name: 'cert-url',
        value: '<url>',
        help: "PAYPAL-CERT-URL, answered by the endpoint's certificateResolver (default PAYPAL_TEST_CERT_URL)",
      },
      {
        name: 'transmission-id',
        value: '<id>',
        help: 'PAYPAL-TRANSMISSION-ID (default a new UUID)',
      },
    ],
    sign: (input) => {
      const webhookId = input.options['webhook-id'];
      if (webhookId === undefined || webhookId === '') {
        throw new CliUsageError('--provider paypal needs --webhook-id');
      }
      const privateKeyFile = input.options['private-key'];
      return signPayPalDelivery({
        payload: input.text,
        webhookId,
        privateKey:
          privateKeyFile === undefined ? undefined : readPem('private-key', privateKeyFile),
        certUrl: input.options['cert-url'],
        transmissionId: input.options['transmission-id'],
        transmissionTime:
          input.timestamp === undefined ? undefined : new Date(input.timestamp * 1000),
      });
    },
  },
  {
    kind: 'paddle',
    title: 'Paddle Billing',
    secret: 'the notification destination secret key (pdl_ntfset_…)',
    timestamp: 'ts= (Unix seconds; default now; Paddle allows 5 s)',
    payload: 'the event, signed byte for byte',
    flags: [],
    sign: (input) =>
      signPaddleDelivery({
        payload: input.text,
        secret: requireSecret('paddle', input),
        timestamp: input.timestamp,
      }),
  },
  {
    kind: 'square',
    title: 'Square',
    secret: "the subscription's signature key",
    timestamp: null,
    payload: 'the event, signed byte for byte',
    flags: [
      {
        name: 'notification-url',
        value: '<url>',
        help: 'the notification URL as registered, signed with the body (send: default the target URL)',
      },
    ],
    sign: (input) => {
      const notificationUrl = input.options['notification-url'] ?? input.url;
      if (notificationUrl === undefined || notificationUrl === '') {
        throw new CliUsageError(
          '--provider square needs --notification-url (the URL exactly as registered with Square)',
        );
      }
      return signSquareDelivery({
        payload: input.text,
        signatureKey: requireSecret('square', input),
        notificationUrl,
      });
    },
  },
  {
    kind: 'adyen',
    title: 'Adyen (standard notifications)',
    secret: 'the HMAC key (hex, as Customer Area shows it)',
    timestamp: null,
    payload:
      'a notification request { "live", "notificationItems": [ … ] }, a list of items, or one NotificationRequestItem; each item is signed',
    flags: [],
    sign: (input) => {
      const { items, live } = adyenRequest(input);
      try {
        return signAdyenDelivery({ hmacKey: requireSecret('adyen', input), items, live });
      } catch (error) {
        if (error instanceof CliUsageError) throw error;
        throw new CliUsageError('--secret for adyen must be the HMAC key in hex (even length)');
      }
    },
  },
];

/** Other names `--provider` accepts. */
const ALIASES: Readonly<Record<string, string>> = {
  'standard-webhooks': 'standard',
  svix: 'standard',
  tinkoff: 'tbank',
};

/** Every option a provider may take, for the argument parser. */
export const PROVIDER_FLAG_NAMES: readonly string[] = [
  ...new Set(PROVIDER_SIGNING.flatMap((entry) => entry.flags.map((flag) => flag.name))),
];

/**
 * The signing entry of a provider kind (or alias).
 * @throws CliUsageError listing the supported kinds.
 */
export function providerSigning(kind: string | undefined): ProviderSigning {
  if (kind === undefined || kind === '') {
    throw new CliUsageError(
      `--provider is required: one of ${PROVIDER_SIGNING.map((entry) => entry.kind).join(', ')}`,
    );
  }
  const name = ALIASES[kind.toLowerCase()] ?? kind.toLowerCase();
  const entry = PROVIDER_SIGNING.find((candidate) => candidate.kind === name);
  if (!entry) {
    throw new CliUsageError(
      `unknown --provider "${kind}": one of ${PROVIDER_SIGNING.map((e) => e.kind).join(', ')}`,
    );
  }
  return entry;
}
