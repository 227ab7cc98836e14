import type { PaymentEventType, WebhookEndpoint } from 'nestjs-payment-webhooks';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';
import type { ExpectedEvent, PoisonValues } from '../support/poison-deliveries';

/**
 * What the suites that run every provider need of one: test secrets, genuine deliveries signed
 * the provider's way, and what a handler must see of them. One file per provider folder,
 * `test/providers/<kind>.kit.ts`, exporting `kit`; `npm run providers:catalog` lists them in
 * test/providers/kits.ts, so the Nest and Express end-to-end suite, the poison property suite
 * and the CLI suite pick a new provider up with no edit of their own.
 *
 * A kit signs with the provider's own SDK where one signs (`braintree`'s
 * `webhookTesting.sampleNotification`, `standardwebhooks`, …) or with `node:crypto` following the
 * provider's documented scheme, never with the package's signer: the suites then check the
 * package against the provider, not against itself.
 */
export interface ProviderKit {
  /** The provider kind, as the folder's descriptor has it. */
  readonly kind: string;
  /** Who signs the kit's deliveries, for test names: `'razorpay SDK'`, `'node:crypto (documented scheme)'`. */
  readonly signedBy: string;
  /** The exact answer to a stored or duplicate delivery. */
  readonly answer: { readonly status: number; readonly body: string };
  /**
   * The status of a delivery whose signature does not match.
   * @default 400
   */
  readonly refusedStatus?: number;
  /**
   * An endpoint named `name` with the kit's secrets (`'wrong'`: a different secret of the same
   * shape), no status API and `verifyWithProvider: false`.
   */
  endpoint(name: string, secrets?: 'right' | 'wrong'): WebhookEndpoint;
  /**
   * A genuine "payment succeeded" for the shop's order `orderId` (where the provider carries an
   * order id; a payment id derived from it where it does not), 1999 minor units, unique event id.
   */
  paid(orderId: string): KitDelivery;
  /** A delivery like `paid(orderId)` with a signed part changed after signing. */
  tampered(orderId: string): SignedDelivery;
  /** The poison property suite's case: chosen values in every stored field. */
  readonly poison: {
    /** Whether the values travel form-encoded (which cannot carry unpaired UTF-16 halves). */
    readonly form?: boolean;
    /** A signed delivery carrying `values`; `n` makes its ids unique. */
    build(values: PoisonValues, n: string): { delivery: SignedDelivery; expected: ExpectedEvent[] };
  };
  /** How `nestjs-payment-webhooks sign/send --provider <kind>` makes the same delivery. */
  readonly cli: {
    /** The flags after `--provider <kind>`: `['--secret', …]` and the provider's own. */
    readonly flags: readonly string[];
    /** The `--file` content for a paid order (written as JSON). */
    payload(orderId: string): unknown;
    /** What the handler must see of it. */
    expected(orderId: string): Omit<KitExpectation, 'eventId'> & { readonly eventId?: string };
  };
}

/** A signed delivery and what the inbox and the handler must make of it. */
export interface KitDelivery {
  readonly delivery: SignedDelivery;
  readonly expected: KitExpectation;
}

/** What a handler sees of a delivery's one notification. */
export interface KitExpectation {
  /** The dedup key. */
  readonly eventId: string;
  readonly type: PaymentEventType | `${string}:${string}`;
  readonly paymentRef?: string;
  readonly merchantRef?: string;
  /** Minor units. */
  readonly amount?: number;
  readonly currency?: string;
}
