import { SignedDelivery } from './signed-delivery';

/** How long a provider keeps re-sending a delivery that was not acknowledged. */
export interface RetryHorizon {
  /** Days, rounded up, from the first delivery to the last retry. */
  readonly days: number;
  /** What the provider documents. */
  readonly documented: string;
}

/** What a provider's signing gets from the command line (`nestjs-payment-webhooks sign`). */
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
  /**
   * The text of the file a flag names (`--private-key key.pem`). The caller reads it, so the
   * signing stays free of I/O.
   * @throws Error naming the flag when the file cannot be read.
   */
  readFile(flag: string): string;
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

/** How the CLI's `sign` and `send` build a delivery for one provider kind. */
export interface DeliverySigning {
  /** The provider as the help lists it, e.g. `'Sber (callback with checksum)'`. */
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
   * Builds the delivery exactly as the provider sends it, with the package's own signer for
   * the kind (the one `nestjs-payment-webhooks/testing` exports).
   * @throws SigningInputError when the input does not fit the provider.
   */
  sign(input: SigningInput): SignedDelivery;
}

/**
 * Everything the package knows about a provider kind besides its endpoint: what retention and
 * the CLI iterate, so that adding a provider touches its folder and the generated catalog only.
 */
export interface ProviderDescriptor {
  /** Provider kind, as `WebhookProvider.kind` and the inbox have it and `--provider` takes it. */
  readonly kind: string;
  /** The provider's name as people know it. */
  readonly name: string;
  /** Other names `--provider` accepts, lower case (`'tinkoff'` for T-Bank). */
  readonly aliases?: readonly string[];
  /**
   * How long the provider re-sends an unacknowledged delivery; a processed event's dedup key
   * must outlive it. None when the sender's schedule is not known (generic HMAC, Qvard).
   */
  readonly retryHorizon?: RetryHorizon;
  /** How `nestjs-payment-webhooks sign` and `send` build a signed delivery. */
  readonly signing: DeliverySigning;
}
