import { ownValue } from '../core/own-value';
import { PaymentEventType } from '../core/payment-event-types';
import { WebhookConfigurationError } from '../core/webhook-errors';
import { withEventIds } from './delivery-event-ids';
import {
  assertNoWhitespaceInSecrets,
  defineEndpoint,
  EndpointExtras,
  plainTextAcknowledgement,
  requireSecrets,
} from './define-endpoint';
import { Checked, checkEnvelope, Envelope, EnvelopeRules } from './envelope';
import { JsonObject, parseJsonObject } from './parse-payload';
import {
  DeliverySigning,
  ProviderDescriptor,
  RetryHorizon,
  SigningInput,
} from './provider-descriptor.interface';
import { DeliveryPayload, SignedDelivery } from './signed-delivery';
import { jsonPost, requireSecret } from './signing-input';
import {
  BaseEndpointOptions,
  InboundWebhook,
  NormalizedNotification,
  WebhookAcknowledgement,
  WebhookEndpoint,
  WebhookProvider,
} from './webhook-provider.interface';

/**
 * How a provider signs a delivery, once for both sides: the endpoint verifies with `verify`, the
 * signers of `/testing` and the CLI's `sign` make the same headers with `sign`, so the two cannot
 * drift apart. `bodyHmacSignature()` makes the scheme of a header holding the HMAC of the body.
 */
export interface SignatureScheme {
  /**
   * Checks the delivery's signature against every secret, in constant time.
   * @throws WebhookVerificationError `missing_signature` or `bad_signature`.
   */
  verify(request: InboundWebhook, secrets: readonly string[]): void;
  /**
   * The headers the provider signs `body` with under `secret`.
   * @param timestamp Unix seconds, for schemes that sign a time (now when unset).
   */
  sign(body: string, secret: string, timestamp?: number): Readonly<Record<string, string>>;
}

/** The signing secrets of a provider: one option, a value or a list of them while rotating. */
export interface SecretsDefinition {
  /**
   * The option's name: `secret`, or the word the provider's dashboard shows the value under
   * (Paystack's `secretKey`), so that a user copies it from the place of that name.
   */
  readonly option: string;
  /** Where the dashboard shows it, as a sentence starting with "Copy", for the whitespace error. */
  readonly howToCopy: string;
  /**
   * Whether a secret may hold whitespace, for secrets the user chooses rather than copies
   * (Razorpay's). @default false: whitespace is refused as a copy-and-paste slip
   */
  readonly allowWhitespace?: boolean;
  /**
   * Whether an endpoint may go without it (Mollie's classic webhooks, confirmed with the API):
   * then `checkOptions` says what the endpoint needs instead. @default false
   */
  readonly optional?: boolean;
  /**
   * Whether a value has the provider's shape (Paystack's `sk_live_…`): undefined when it does,
   * else the end of the error, which begins "Webhook endpoint "<name>" (<kind>): <option> ".
   */
  check?(secret: string): string | undefined;
}

/** What `normalize` returns: a notification whose `type` is left to the `types` table. */
export type DefinedNotification = Omit<NormalizedNotification, 'type'> &
  Partial<Pick<NormalizedNotification, 'type'>>;

/** A delivery as a definition's `normalize` reads it. */
export interface DefinedDelivery<E, O extends object = object> {
  /** The request the ingress hands the provider, raw body included. */
  readonly request: InboundWebhook;
  /** The JSON body, checked against the definition's `envelope`; undefined without one. */
  readonly event: E;
  /** The endpoint's options (its `merchantRefKey`, …), as the factory was given them. */
  readonly options: O;
}

/** How the CLI's `sign` and `send` describe the provider; `sign` is derived unless given. */
export type CliSigning = Omit<DeliverySigning, 'title' | 'sign' | 'timestamp'> &
  Partial<Pick<DeliverySigning, 'title' | 'sign' | 'timestamp'>>;

/** A sample delivery of a provider, as the CLI would sign it. */
export interface DefinitionSample {
  /** A secret of the provider's shape (`--secret`); none for a provider without one. */
  readonly secret?: string;
  /**
   * Another secret of that shape, which the checks rotate to and sign with where they need a
   * wrong one. @default the secret with a suffix, where the shape allows any
   */
  readonly otherSecret?: string;
  /** A body the provider sends (`--file`). */
  readonly body: string;
  /** The endpoint options an endpoint needs besides the secret. */
  readonly options?: object;
  /** The provider's own CLI flags, by name without the dashes. */
  readonly flags?: Readonly<Record<string, string>>;
  /**
   * The delivery without its signature, for a provider that signs inside the body (YooMoney's
   * `sha1_hash`, T-Bank's `Token`). @default the delivery with its content type as only header
   */
  withoutSignature?(delivery: SignedDelivery): SignedDelivery;
}

/** What every definition holds, with or without an envelope. */
interface DefinitionBase<O extends object> {
  /** The kind endpoints carry and the inbox stores, e.g. `'paystack'`. */
  readonly kind: string;
  /** The provider's name as people know it, e.g. `'Paystack'`. */
  readonly name: string;
  /** Other names the CLI's `--provider` accepts, lower case. */
  readonly aliases?: readonly string[];
  /** How long the provider re-sends an unacknowledged delivery. */
  readonly retryHorizon?: RetryHorizon;
  /** The signing secrets; none for a provider with no shared secret. */
  readonly secrets?: SecretsDefinition;
  /**
   * How a delivery is signed, or how the endpoint's options make it (Square signs the
   * notification URL too); required unless `create` builds the provider.
   */
  readonly signature?: SignatureScheme | ((options: O) => SignatureScheme);
  /**
   * The answer the provider counts as delivered.
   * @default HTTP 200 with an empty plain-text body
   */
  readonly acknowledgement?: WebhookAcknowledgement;
  /** The provider's event types by native name; any other is `<kind>:<native type>`. */
  readonly types: Readonly<Record<string, PaymentEventType>>;
  /** The name of one event in errors, e.g. `'Paystack event'`. @default `${name} event` */
  readonly eventName?: string;
  /** What the protocol adds to `WebhookProvider`: methods, stored headers, refusal status… */
  readonly protocol?: Partial<
    Pick<
      WebhookProvider,
      'methods' | 'storedHeaders' | 'signatureRefusalStatus' | 'acknowledgementBody'
    >
  >;
  /**
   * Checks of the options beyond the secrets, at startup.
   * @throws WebhookConfigurationError
   */
  checkOptions?(options: O, endpointName: unknown): void;
  /** What the endpoint adds: a status client from API credentials, default sources. */
  extras?(options: O & BaseEndpointOptions): EndpointExtras;
  /**
   * Builds the provider itself, for a protocol with state of its own (a certificate cache, an API
   * client): then `signature` and `normalize` are not used to build it.
   */
  create?(options: O, endpointName: string, secrets: readonly string[]): WebhookProvider;
  /** How the CLI signs for the provider. */
  readonly cli: CliSigning;
  /** A delivery the checks run against every definition sign, verify and read. */
  readonly sample: DefinitionSample;
}

/** A definition whose deliveries are JSON objects checked against an envelope. */
export interface EnvelopeDefinition<
  O extends object,
  R extends EnvelopeRules,
> extends DefinitionBase<O> {
  /** The fields every event has, checked before `normalize` reads it. */
  readonly envelope: Envelope<R>;
  /** Reads one delivery. @throws WebhookPayloadError */
  normalize(
    delivery: DefinedDelivery<Checked<Envelope<R>>, O>,
  ): DefinedNotification | readonly DefinedNotification[];
}

/** A definition that reads the raw request itself (form bodies, query strings, batches). */
export interface RawDefinition<O extends object> extends DefinitionBase<O> {
  readonly envelope?: undefined;
  /** Reads one delivery. @throws WebhookPayloadError */
  normalize?(
    delivery: DefinedDelivery<undefined, O>,
  ): DefinedNotification | readonly DefinedNotification[];
}

/** What a provider definition describes. */
export type ProviderDefinition<O extends object> =
  EnvelopeDefinition<O, EnvelopeRules> | RawDefinition<O>;

/** An endpoint factory: `paystackEndpoint(options)`, with the kind it builds. */
export type EndpointFactory<O extends object> = ((
  options: O & BaseEndpointOptions,
) => WebhookEndpoint) & {
  /** The provider kind of the endpoints it builds: `tenantEndpoint()` reads it. */
  readonly kind: string;
};

/** What a signer derived from a definition takes: the payload and the secret under its option. */
export type DefinedSignerOptions<K extends string> = {
  /** The event: the exact text, or an object sent as `JSON.stringify(payload)`. */
  readonly payload: DeliveryPayload;
} & { readonly [P in K]: string };

/** Everything derived from one definition. */
export interface DefinedProvider<O extends object> {
  /** The provider kind. */
  readonly kind: string;
  /** The definition itself. */
  readonly definition: ProviderDefinition<O>;
  /** What retention and the CLI read: retry horizon and signing. */
  readonly descriptor: ProviderDescriptor;
  /** The endpoint factory. */
  readonly endpoint: EndpointFactory<O>;
  /**
   * The provider an endpoint of these options uses.
   * @throws WebhookConfigurationError when the options cannot work.
   */
  provider(options: O, endpointName?: string): WebhookProvider;
  /**
   * A JSON delivery of `body` signed with `secret` as the provider sends it, with the ids the
   * endpoint stores it under.
   * @param options the endpoint's options beyond the secret, where reading ids needs them.
   */
  signed(body: string, secret: string, timestamp?: number, options?: Partial<O>): SignedDelivery;
  /** A signer for `/testing`, taking the secret under `secretOption`. */
  signer<K extends string>(secretOption: K): (options: DefinedSignerOptions<K>) => SignedDelivery;
}

/**
 * Describes a provider once; the endpoint factory, the provider, the signers, the CLI's signing
 * and the catalog's descriptor are derived from it, and `provider-definitions.spec.ts` checks
 * every definition the same way.
 * @example
 * export const paystackProvider = defineProvider({ kind: 'paystack', name: 'Paystack', … });
 * export function paystackEndpoint(options: PaystackEndpointOptions): WebhookEndpoint {
 *   return paystackProvider.endpoint(options);
 * }
 */
export function defineProvider<O extends object, R extends EnvelopeRules>(
  definition: EnvelopeDefinition<O, R>,
): DefinedProvider<O>;
export function defineProvider<O extends object>(definition: RawDefinition<O>): DefinedProvider<O>;
export function defineProvider<O extends object>(
  definition: ProviderDefinition<O>,
): DefinedProvider<O> {
  if (!definition.create && !(definition.signature && definition.normalize)) {
    throw new TypeError(`Provider ${definition.kind}: give signature and normalize, or create`);
  }
  const provider = (options: O, endpointName: string = definition.kind): WebhookProvider => {
    const secrets = secretsOf(definition, options, endpointName);
    definition.checkOptions?.(options, endpointName);
    return definition.create
      ? definition.create(options, endpointName, secrets)
      : new DefinedWebhookProvider(definition, schemeOf(definition, options), secrets, options);
  };
  const endpoint = Object.assign(
    (options: O & BaseEndpointOptions): WebhookEndpoint =>
      defineEndpoint(options, provider(options, options?.name), definition.extras?.(options) ?? {}),
    { kind: definition.kind },
  );
  const signed = (body: string, secret: string, timestamp?: number, options?: Partial<O>) => {
    // NOTE: only what the caller gives: a sample's options never stand in for an endpoint's.
    const given = { ...options } as O;
    const scheme = schemeOf(definition, given);
    const delivery = jsonPost(
      definition.kind,
      { text: body },
      scheme.sign(body, secret, timestamp),
    );
    return withEventIds(delivery, () =>
      provider({ ...options, ...secretOption(definition, secret) } as O),
    );
  };
  const descriptor: ProviderDescriptor = Object.freeze({
    kind: definition.kind,
    name: definition.name,
    ...(definition.aliases ? { aliases: definition.aliases } : {}),
    ...(definition.retryHorizon ? { retryHorizon: definition.retryHorizon } : {}),
    signing: {
      title: definition.name,
      timestamp: null,
      sign: (input: SigningInput) =>
        signed(input.text, requireSecret(definition.kind, input), input.timestamp),
      ...definition.cli,
    },
  });
  return Object.freeze({
    kind: definition.kind,
    definition,
    descriptor,
    endpoint,
    provider,
    signed,
    signer:
      <K extends string>(key: K) =>
      (options: DefinedSignerOptions<K>) =>
        signed(bodyText(options.payload), options[key]),
  });
}

/** The provider of a definition with a signature scheme and a `normalize`. */
class DefinedWebhookProvider<O extends object> implements WebhookProvider {
  readonly kind: string;
  readonly acknowledgement: WebhookAcknowledgement;
  private readonly what: string;

  constructor(
    private readonly definition: ProviderDefinition<O>,
    private readonly scheme: SignatureScheme,
    private readonly secrets: readonly string[],
    private readonly options: O,
  ) {
    this.kind = definition.kind;
    this.acknowledgement = definition.acknowledgement ?? DEFAULT_ACKNOWLEDGEMENT;
    this.what = definition.eventName ?? `${definition.name} event`;
    Object.assign(this, definition.protocol);
  }

  verify(request: InboundWebhook): void {
    this.scheme.verify(request, this.secrets);
  }

  normalize(request: InboundWebhook): NormalizedNotification | readonly NormalizedNotification[] {
    const { envelope } = this.definition;
    const event = envelope
      ? checkEnvelope(envelope, parseJsonObject(request.rawBody, `${this.what} body`), this.what)
      : undefined;
    // NOTE: the overloads of defineProvider pair an envelope with the normalize that reads it.
    const normalize = this.definition.normalize as (
      delivery: DefinedDelivery<JsonObject | undefined, O>,
    ) => DefinedNotification | readonly DefinedNotification[];
    const read = normalize.call(this.definition, { request, event, options: this.options });
    return Array.isArray(read)
      ? (read as readonly DefinedNotification[]).map((one) => this.typed(one))
      : this.typed(read as DefinedNotification);
  }

  private typed(notification: DefinedNotification): NormalizedNotification {
    if (notification.type !== undefined) return notification as NormalizedNotification;
    const { types, kind } = this.definition;
    const native = notification.nativeType;
    return { ...notification, type: ownValue(types, native) ?? `${kind}:${native}` };
  }
}

const DEFAULT_ACKNOWLEDGEMENT = plainTextAcknowledgement();

/** The secrets of the options, checked: present, without whitespace, of the provider's shape. */
function secretsOf<O extends object>(
  definition: ProviderDefinition<O>,
  options: O,
  endpointName: string,
): readonly string[] {
  const rule = definition.secrets;
  if (!rule) return [];
  const value = (options as Record<string, unknown> | undefined)?.[rule.option];
  if (rule.optional && value === undefined) return [];
  const secrets = requireSecrets(
    endpointName,
    definition.kind,
    rule.option,
    value as string | readonly string[] | undefined,
  );
  if (!rule.allowWhitespace) {
    assertNoWhitespaceInSecrets(
      endpointName,
      definition.kind,
      rule.option,
      secrets,
      rule.howToCopy,
    );
  }
  secrets.forEach((secret, index) => {
    const problem = rule.check?.(secret);
    if (problem !== undefined) {
      const which = secrets.length > 1 ? `${rule.option}[${index}]` : rule.option;
      throw new WebhookConfigurationError(
        `Webhook endpoint ${JSON.stringify(endpointName)} (${definition.kind}): ${which} ${problem}`,
      );
    }
  });
  return secrets;
}

function secretOption<O extends object>(definition: ProviderDefinition<O>, secret: string): object {
  return definition.secrets ? { [definition.secrets.option]: secret } : {};
}

/** The signature scheme of a definition for an endpoint's options. */
function schemeOf<O extends object>(
  definition: ProviderDefinition<O>,
  options: O,
): SignatureScheme {
  const { signature } = definition;
  if (!signature) {
    throw new TypeError(`Provider ${definition.kind} signs with a signer of its own`);
  }
  return typeof signature === 'function' ? signature(options) : signature;
}

function bodyText(payload: DeliveryPayload): string {
  return typeof payload === 'string' ? payload : JSON.stringify(payload);
}
