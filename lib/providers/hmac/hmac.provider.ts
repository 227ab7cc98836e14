import { createHash } from 'node:crypto';
import {
  isPaymentEventType,
  PAYMENT_EVENT_TYPES,
  PaymentEventType,
} from '../../core/payment-event-types';
import { WebhookConfigurationError } from '../../core/webhook-errors';
import { withEventIds } from '../delivery-event-ids';
import { plainTextAcknowledgement, requireSecrets } from '../define-endpoint';
import { defineProvider, SignatureScheme } from '../define-provider';
import { checkEnvelope, defineEnvelope } from '../envelope';
import { identifier, named, optional } from '../envelope-rules';
import {
  JsonObject,
  fromUnixSeconds,
  isJsonObject,
  parseIsoDate,
  parseJsonObject,
  toCurrency,
  toIdentifier,
} from '../parse-payload';
import {
  resolveHeaderName,
  resolveJsonPath,
  resolveKind,
  resolveTolerance,
} from '../provider-options';
import { invalidEncodingMessage, nonEmptyStringOptionMessage } from '../providers.messages';
import { jsonPost, oneOf, requireSecret, SigningInputError } from '../signing-input';
import { unsignedHeaderMessage } from './hmac.messages';
import { HmacSignatureEncoding, hmacSignature, HmacSignatureSettings } from './hmac.signature';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from '../webhook-provider.interface';

export type { HmacSignatureEncoding };

/** Defaults of the generic HMAC scheme, shared with the test signer. */
export const HMAC_DEFAULTS = Object.freeze({
  kind: 'hmac',
  signatureHeader: 'x-signature',
  encoding: 'hex' as HmacSignatureEncoding,
  eventIdPath: 'id',
  typePath: 'type',
  merchantRefPath: 'data.orderId',
});

/** Options of the generic HMAC-SHA256 scheme, shared by `hmacEndpoint()` and the provider. */
export interface HmacProviderOptions {
  /**
   * The shared secret, used verbatim (UTF-8) as the HMAC key. Pass a list while rotating: a
   * delivery is accepted when any of them matches. Required.
   */
  secret: string | readonly string[];
  /**
   * Provider kind, used in unmapped types (`'<kind>:<type>'`) and in the inbox.
   * @default 'hmac'
   */
  kind?: string;
  /**
   * Header carrying the signature (case-insensitive).
   * @default 'x-signature'
   */
  signatureHeader?: string;
  /**
   * Text before the signature in the header, e.g. `'sha256='` for GitHub-style senders. When set,
   * a header without it is refused.
   * @default none (the header is the bare signature)
   */
  signaturePrefix?: string;
  /**
   * How the signature bytes are written. Hex is compared case-insensitively; base64 must be the
   * standard alphabet with its `=` padding (what `digest('base64')` gives), and an unpadded,
   * URL-safe or otherwise altered spelling is refused.
   * @default 'hex'
   */
  encoding?: HmacSignatureEncoding;
  /**
   * Header carrying a signed Unix-seconds timestamp. When set, the signed content is
   * `${timestamp}.${rawBody}` and the timestamp must lie within `toleranceSeconds`.
   * @default none (the signed content is the raw body alone and there is no replay window)
   */
  timestampHeader?: string;
  /**
   * Largest distance in seconds between the signed timestamp and the receive time, in either
   * direction; `0` switches the check off. Used only with `timestampHeader`.
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
   * Dotted JSON path of the event id (the dedup key). When neither this nor `eventIdHeader`
   * yields an id, the key is `sha256:<hex of the raw body>`.
   * @default 'id'
   */
  eventIdPath?: string;
  /**
   * Header carrying the event id (e.g. `'x-github-delivery'`); takes precedence over
   * `eventIdPath` when present. The signature never covers it (only the body and the
   * `timestampHeader` are signed), so it is refused at startup unless `trustUnsignedHeaders` is
   * set: a resent body with a new value there is a new event.
   * @default none
   * @advanced
   */
  eventIdHeader?: string;
  /**
   * Dotted JSON path of the event type. A type that is already normalized
   * (`'payment.succeeded'`, …) is used as is, any other becomes `'<kind>:<type>'`; a missing one
   * becomes `'<kind>:unknown'`.
   * @default 'type'
   */
  typePath?: string;
  /**
   * Header carrying the event type (e.g. `'x-github-event'`); takes precedence over `typePath`
   * when present. The signature never covers it, so it is refused at startup unless
   * `trustUnsignedHeaders` is set, and a type read from it is always native
   * (`'<kind>:<value>'`), never a normalized one.
   * @default none
   * @advanced
   */
  typeHeader?: string;
  /**
   * Accepts `eventIdHeader` and `typeHeader` although the signature does not cover them: whoever
   * holds one captured delivery can resend it with a new id (a new event, its handlers run again)
   * or another native type. Without it such headers are refused at startup.
   * @default false
   * @advanced
   */
  trustUnsignedHeaders?: boolean;
  /**
   * Dotted JSON path of the provider's payment id (`paymentRef`).
   * @default none
   */
  paymentRefPath?: string;
  /**
   * Dotted JSON path of your order id (`merchantRef`).
   * @default 'data.orderId'
   */
  merchantRefPath?: string;
  /**
   * Dotted JSON path of the amount in minor units (an integer).
   * @default none
   */
  amountPath?: string;
  /**
   * Dotted JSON path of the ISO 4217 currency code.
   * @default none
   */
  currencyPath?: string;
  /**
   * Dotted JSON path of the payment status.
   * @default none
   */
  statusPath?: string;
  /**
   * Dotted JSON path of when the event happened: an ISO 8601 string or Unix seconds.
   * @default none
   */
  occurredAtPath?: string;
}

/** Options of `hmacEndpoint()`. */
export interface HmacEndpointOptions extends BaseEndpointOptions, HmacProviderOptions {}

// NOTE: the fields come from configured headers and paths, so problems name what they are.
const HMAC_ENVELOPE = defineEnvelope({
  eventId: named('the event id', optional(identifier())),
  type: named('the event type', optional(identifier())),
});

/** The value at `path`, through objects and array indexes; own properties only. */
function readPath(source: JsonObject, path: readonly string[] | undefined): unknown {
  if (path === undefined) return undefined;
  let current: unknown = source;
  for (const key of path) {
    // NOTE: own properties only, so a path like "constructor" cannot reach the prototype.
    if ((isJsonObject(current) || Array.isArray(current)) && Object.hasOwn(current, key)) {
      current = (current as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return current;
}

function nonEmptyHeader(request: InboundWebhook, name: string): string | undefined {
  const value = request.headers[name]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The signature options of `hmacEndpoint()` as given, with their defaults, unchecked. */
export function hmacSignatureSettings(
  options: Pick<
    HmacProviderOptions,
    'signatureHeader' | 'signaturePrefix' | 'encoding' | 'timestampHeader'
  >,
): HmacSignatureSettings {
  return {
    signatureHeader: options.signatureHeader ?? HMAC_DEFAULTS.signatureHeader,
    signaturePrefix: options.signaturePrefix,
    encoding: options.encoding ?? HMAC_DEFAULTS.encoding,
    timestampHeader: options.timestampHeader,
  };
}

/**
 * A generic HMAC-SHA256 scheme for senders without a provider of their own (GitHub-style
 * `X-Hub-Signature-256: sha256=<hex>`, and the many "HMAC of the raw body in a header" senders).
 */
class HmacWebhookProvider implements WebhookProvider {
  /** Provider kind (the `kind` option). */
  readonly kind: string;
  /** Such senders accept any 2xx; an empty 200 is the plainest. */
  readonly acknowledgement: WebhookAcknowledgement = plainTextAcknowledgement();
  /** The configured timestamp, event id and type headers; never the signature header. */
  readonly storedHeaders: readonly string[];

  private readonly secrets: readonly string[];
  private readonly signature: SignatureScheme;
  private readonly timestampHeader: string | undefined;
  private readonly eventIdPath: readonly string[];
  private readonly eventIdHeader: string | undefined;
  private readonly typePath: readonly string[];
  private readonly typeHeader: string | undefined;
  private readonly paymentRefPath: readonly string[] | undefined;
  private readonly merchantRefPath: readonly string[];
  private readonly amountPath: readonly string[] | undefined;
  private readonly currencyPath: readonly string[] | undefined;
  private readonly statusPath: readonly string[] | undefined;
  private readonly occurredAtPath: readonly string[] | undefined;

  /**
   * @param options the scheme's options, checked here.
   * @param endpointName names the endpoint in configuration errors.
   * @throws WebhookConfigurationError when a secret or option cannot work.
   */
  constructor(options: HmacProviderOptions, endpointName: string = HMAC_DEFAULTS.kind) {
    const kind = resolveKind(endpointName, options?.kind, HMAC_DEFAULTS.kind);
    this.kind = kind;
    this.secrets = requireSecrets(endpointName, kind, 'secret', options?.secret);
    const header = (option: string, value: string) =>
      resolveHeaderName(endpointName, kind, option, value);
    const optionalHeader = (option: string, value: string | undefined) =>
      value === undefined ? undefined : header(option, value);
    const path = (option: string, value: string) =>
      resolveJsonPath(endpointName, kind, option, value);
    const optionalPath = (option: string, value: string | undefined) =>
      value === undefined ? undefined : path(option, value);

    const signatureHeader = header(
      'signatureHeader',
      options.signatureHeader ?? HMAC_DEFAULTS.signatureHeader,
    );
    if (
      options.signaturePrefix !== undefined &&
      (typeof options.signaturePrefix !== 'string' || options.signaturePrefix.length === 0)
    ) {
      throw new WebhookConfigurationError(
        nonEmptyStringOptionMessage(endpointName, kind, 'signaturePrefix', '"sha256="'),
      );
    }
    const encoding = options.encoding ?? HMAC_DEFAULTS.encoding;
    if (encoding !== 'hex' && encoding !== 'base64') {
      throw new WebhookConfigurationError(invalidEncodingMessage(endpointName, kind, encoding));
    }
    this.timestampHeader = optionalHeader('timestampHeader', options.timestampHeader);
    this.signature = hmacSignature({
      signatureHeader,
      signaturePrefix: options.signaturePrefix,
      encoding,
      timestampHeader: this.timestampHeader,
      tolerance: resolveTolerance(endpointName, kind, options, 'hmacEndpoint()'),
    });
    this.eventIdPath = path('eventIdPath', options.eventIdPath ?? HMAC_DEFAULTS.eventIdPath);
    this.eventIdHeader = optionalHeader('eventIdHeader', options.eventIdHeader);
    this.typePath = path('typePath', options.typePath ?? HMAC_DEFAULTS.typePath);
    this.typeHeader = optionalHeader('typeHeader', options.typeHeader);
    this.assertHeadersSigned(endpointName, options.trustUnsignedHeaders);
    this.paymentRefPath = optionalPath('paymentRefPath', options.paymentRefPath);
    this.merchantRefPath = path(
      'merchantRefPath',
      options.merchantRefPath ?? HMAC_DEFAULTS.merchantRefPath,
    );
    this.amountPath = optionalPath('amountPath', options.amountPath);
    this.currencyPath = optionalPath('currencyPath', options.currencyPath);
    this.statusPath = optionalPath('statusPath', options.statusPath);
    this.occurredAtPath = optionalPath('occurredAtPath', options.occurredAtPath);
    this.storedHeaders = Object.freeze(
      [this.timestampHeader, this.eventIdHeader, this.typeHeader].filter(
        (name): name is string => name !== undefined && name !== signatureHeader,
      ),
    );
  }

  /** True when the signed content includes the header's value. */
  private isSigned(header: string): boolean {
    return header === this.timestampHeader;
  }

  /** Refuses an id or type header the signature does not cover, unless the endpoint trusts it. */
  private assertHeadersSigned(endpointName: string, trust: boolean | undefined): void {
    if (trust === true) return;
    const signedContent =
      this.timestampHeader === undefined
        ? 'the raw body alone'
        : `"<${this.timestampHeader}>.<raw body>"`;
    for (const [option, header] of [
      ['eventIdHeader', this.eventIdHeader],
      ['typeHeader', this.typeHeader],
    ] as const) {
      if (header !== undefined && !this.isSigned(header)) {
        throw new WebhookConfigurationError(
          unsignedHeaderMessage(endpointName, this.kind, option, header, signedContent),
        );
      }
    }
  }

  /**
   * Checks the signature header (and the timestamp window, when configured) on the raw body.
   * @throws WebhookVerificationError
   */
  verify(request: InboundWebhook): void {
    this.signature.verify(request, this.secrets);
  }

  /**
   * Parses the JSON body and reads the configured headers and paths.
   * @throws WebhookPayloadError
   */
  normalize(request: InboundWebhook): NormalizedNotification {
    const body = parseJsonObject(request.rawBody, `${this.kind} webhook body`);
    const typeHeader =
      this.typeHeader === undefined ? undefined : nonEmptyHeader(request, this.typeHeader);
    const fields = checkEnvelope(
      HMAC_ENVELOPE,
      {
        eventId: this.headerOrPath(request, body, this.eventIdHeader, this.eventIdPath),
        type: typeHeader ?? readPath(body, this.typePath),
      },
      `${this.kind} webhook`,
    );
    const nativeType = toIdentifier(fields.type) ?? 'unknown';
    // NOTE: a type from the header stays native: the signature never covers it (the one signed
    // header holds Unix seconds), so a resent body cannot be relabelled payment.succeeded.
    const normalized = typeHeader === undefined && isPaymentEventType(nativeType);
    const occurredAt = readPath(body, this.occurredAtPath);
    const amount = readPath(body, this.amountPath);
    const status = readPath(body, this.statusPath);
    return {
      // NOTE: last resort for senders without ids: identical bodies are the same event, and a
      // retry of the same body is caught as a duplicate.
      eventId:
        toIdentifier(fields.eventId) ??
        `sha256:${createHash('sha256').update(request.rawBody).digest('hex')}`,
      type: normalized ? nativeType : `${this.kind}:${nativeType}`,
      nativeType,
      paymentRef: toIdentifier(readPath(body, this.paymentRefPath)),
      merchantRef: toIdentifier(readPath(body, this.merchantRefPath)),
      amount: typeof amount === 'number' && Number.isSafeInteger(amount) ? amount : undefined,
      currency: toCurrency(readPath(body, this.currencyPath)),
      status: typeof status === 'string' && status.length > 0 ? status : undefined,
      occurredAt:
        typeof occurredAt === 'number' ? fromUnixSeconds(occurredAt) : parseIsoDate(occurredAt),
      payload: body,
    };
  }

  private headerOrPath(
    request: InboundWebhook,
    body: JsonObject,
    header: string | undefined,
    path: readonly string[],
  ): unknown {
    const fromHeader = header === undefined ? undefined : nonEmptyHeader(request, header);
    return fromHeader ?? readPath(body, path);
  }
}

/** Every normalized type, as itself: a body's type already normalized is used as is. */
const NORMALIZED_TYPES: Readonly<Record<string, PaymentEventType>> = Object.freeze(
  Object.fromEntries(PAYMENT_EVENT_TYPES.map((type) => [type, type])),
);

/**
 * Generic HMAC-SHA256 (`hmacEndpoint`). No retry horizon: the sender is whoever the endpoint is
 * configured for.
 */
export const hmacProvider = defineProvider<HmacProviderOptions>({
  kind: HMAC_DEFAULTS.kind,
  name: 'generic HMAC-SHA256',
  signature: (options) => hmacSignature(hmacSignatureSettings(options)),
  types: NORMALIZED_TYPES,
  // NOTE: the kind, the headers and the paths are options, and the secrets are checked under the
  // configured kind, so the provider is built with the options it reads.
  create: (options, endpointName) => new HmacWebhookProvider(options, endpointName),
  cli: {
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
        throw new SigningInputError(
          '--timestamp needs --timestamp-header for --provider hmac (the endpoint reads the time from it)',
        );
      }
      const secret = requireSecret(HMAC_DEFAULTS.kind, input);
      const signature = hmacSignature(
        hmacSignatureSettings({
          signatureHeader: input.options['signature-header'],
          signaturePrefix: input.options['signature-prefix'],
          encoding: oneOf<HmacSignatureEncoding>('encoding', input.options.encoding, [
            'hex',
            'base64',
          ]),
          timestampHeader: input.options['timestamp-header'],
        }),
      ).sign(input.text, secret, input.timestamp);
      // NOTE: the endpoint's defaults: the id at `id`, the type at `type`, kind `hmac`.
      return withEventIds(jsonPost(HMAC_DEFAULTS.kind, input, signature), (): WebhookProvider =>
        hmacProvider.provider({ secret }),
      );
    },
  },
  sample: {
    secret: 'sample-shared-secret',
    body: '{"id":"evt_sample","type":"payment.succeeded","data":{"orderId":"o-1"}}',
    // NOTE: without a definition of the secrets, the endpoint takes the sample's as an option.
    options: { secret: 'sample-shared-secret' },
  },
});

/**
 * An endpoint for a sender that signs the raw body with HMAC-SHA256 in a header.
 * @throws WebhookConfigurationError at startup when a secret or option cannot work.
 * @example
 * // GitHub-style
 * hmacEndpoint({
 *   name: 'github',
 *   kind: 'github',
 *   secret: process.env.GITHUB_WEBHOOK_SECRET!,
 *   signatureHeader: 'x-hub-signature-256',
 *   signaturePrefix: 'sha256=',
 *   // GitHub signs only the body: the event name in its header is unsigned, so it is read as a
 *   // native type ('github:push'), and the dedup key is the body's SHA-256.
 *   typeHeader: 'x-github-event',
 *   trustUnsignedHeaders: true,
 * })
 */
export function hmacEndpoint(options: HmacEndpointOptions): WebhookEndpoint {
  return hmacProvider.endpoint(options);
}

/** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
hmacEndpoint.kind = 'hmac';
