import type { PaymentEventType, WebhookEndpoint } from 'nestjs-payment-webhooks';
import type { SignedDelivery } from 'nestjs-payment-webhooks/testing';

/**
 * What the suites that run every provider need of one: test secrets, genuine deliveries signed
 * the provider's way, and what a handler must see of them. One file per provider folder,
 * `test/providers/<kind>.kit.ts`, exporting `kit`; `npm run providers:catalog` lists them in
 * test/providers/kits.ts, so the Nest and Express end-to-end suite, the poison property suite
 * and the CLI suite pick a new provider up with no edit of their own.
 *
 * A kit signs with the provider's own SDK where one signs (`braintree`'s
 * `webhookTesting.sampleNotification`, `standardwebhooks`, …), else with `node:crypto` following
 * the provider's documented scheme, or with the package's signer where the folder's signer spec
 * proves it against the provider's verifier or documented vector: the suites then check the
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
  /**
   * A delivery like `paid(orderId)` with a signed part changed after signing; none for a
   * provider that signs nothing (YooKassa: its source address and the API vouch for it).
   */
  tampered?(orderId: string): SignedDelivery;
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
  /** The answer when it names the delivery (Robokassa's `OK{InvId}`); the kit's otherwise. */
  readonly answer?: { readonly status: number; readonly body: string };
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

/** Six values, one for each kind of field a notification stores, for the poison property suite. */
export interface PoisonValues {
  readonly id: string;
  readonly type: string;
  readonly paymentRef: string;
  readonly merchantRef: string;
  readonly currency: string;
  readonly status: string;
  /** Printable ASCII only: a value a header can carry (Standard Webhooks' `webhook-id`). */
  readonly headerId: string;
}

/** What a handler should see of one notification: the values as the delivery carried them. */
export interface ExpectedEvent {
  readonly eventId: string;
  readonly nativeType?: string;
  readonly paymentRef?: string | null;
  readonly merchantRef?: string | null;
  readonly currency?: string | null;
  readonly status?: string | null;
}

/** What `toCurrency()` in the providers makes of a value: trimmed, upper-case. */
export const currencyOf = (value: string) => value.trim().toUpperCase() || null;

/** A JSON delivery with these headers besides its content type. */
export function jsonDelivery(
  provider: string,
  body: string,
  headers: Record<string, string>,
): SignedDelivery {
  return {
    provider,
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', ...headers },
  };
}

/**
 * The delivery with `from` replaced by `to` in its body after signing.
 * @throws Error when the body does not hold `from`: a kit must really change what was signed.
 */
export function tamperedWith(delivery: SignedDelivery, from: string, to: string): SignedDelivery {
  if (!delivery.body.includes(from)) {
    throw new Error(
      `the ${delivery.provider} delivery's body does not hold ${JSON.stringify(from)}`,
    );
  }
  return { ...delivery, body: delivery.body.replace(from, to) };
}
