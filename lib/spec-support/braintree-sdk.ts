import braintree from 'braintree';

/** A notification as the official SDK's `webhookNotification.parse()` reads it. */
export interface BraintreeSdkNotification {
  readonly kind: string;
  readonly timestamp: Date;
  readonly transaction?: Record<string, unknown>;
  readonly subscription?: {
    readonly id: string;
    readonly transactions?: Record<string, unknown>[];
  };
  readonly dispute?: Record<string, unknown>;
}

/** The parts of the official SDK the Braintree specs and this kit use, typed as they behave. */
export interface BraintreeSdk {
  /** Every notification kind the SDK knows (`WebhookNotification.Kind`). */
  readonly kinds: readonly string[];
  /** `webhookTesting.sampleNotification`: synchronous (its typings say a promise). */
  sampleNotification(kind: string, id: string): { bt_signature: string; bt_payload: string };
  /** `webhookTesting.sampleSignature`, the signer of `sampleNotification` (untyped). */
  sampleSignature(payload: string): string;
  /** `webhookNotification.parse`. */
  parse(signature: string, payload: string): Promise<BraintreeSdkNotification>;
}

/** The official SDK set up with one API key. */
export function braintreeSdk(publicKey: string, privateKey: string): BraintreeSdk {
  const gateway = new braintree.BraintreeGateway({
    environment: braintree.Environment.Sandbox,
    merchantId: 'kitmerchant00001',
    publicKey,
    privateKey,
  });
  const testing = gateway.webhookTesting as unknown as Omit<BraintreeSdk, 'kinds' | 'parse'>;
  const kinds = (braintree as unknown as { WebhookNotification: { Kind: Record<string, string> } })
    .WebhookNotification.Kind;
  return {
    kinds: Object.values(kinds),
    sampleNotification: (kind, id) => testing.sampleNotification(kind, id),
    sampleSignature: (payload) => testing.sampleSignature(payload),
    parse: (signature, payload) =>
      gateway.webhookNotification.parse(signature, payload) as Promise<
        BraintreeSdkNotification & braintree.WebhookNotification
      >,
  };
}
