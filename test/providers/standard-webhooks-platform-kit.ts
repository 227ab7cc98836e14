import type { WebhookEndpoint } from 'nestjs-payment-webhooks';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

/** A platform event as the package's fixtures build it. */
interface PlatformEvent {
  readonly type: string;
  readonly data: Record<string, unknown>;
}

/** What sets apart the kits of platforms that sign their own events with Standard Webhooks. */
export interface StandardWebhooksPlatform {
  /** The provider kind. */
  readonly kind: string;
  /** A signing secret in the form the platform issues, and another of the same form. */
  readonly secrets: { readonly right: string; readonly wrong: string };
  /** The platform's endpoint factory. */
  endpoint(options: { name: string; secret: string }): WebhookEndpoint;
  /** The platform's paid event from the package's fixtures, in USD unless it says otherwise. */
  paidEvent(options: { orderId: string; amount?: number }): PlatformEvent;
  /** The `data` field that holds the payment id, e.g. `'payment_id'`. */
  readonly paymentRefField: string;
  /** A `webhook-id` in the platform's form: around `unique` when given, else a fresh one. */
  eventId(unique?: string): string;
}

/**
 * The kit of a platform that signs with Standard Webhooks, its deliveries signed by the official
 * `standardwebhooks` library (`Webhook.sign`).
 */
export function standardWebhooksPlatformKit(platform: StandardWebhooksPlatform): ProviderKit {
  const { kind, secrets } = platform;
  const signed = (event: object, id: string = platform.eventId()) => {
    const body = JSON.stringify(event);
    return {
      id,
      delivery: jsonDelivery(kind, body, standardWebhooksHeaders(secrets.right, id, body)),
    };
  };
  const paidExpectation = (orderId: string) => ({
    type: 'payment.succeeded' as const,
    merchantRef: orderId,
    amount: 1999,
    currency: 'USD',
  });
  return {
    kind,
    signedBy: 'standardwebhooks library',
    answer: { status: 200, body: '' },
    endpoint: (name, which = 'right') => platform.endpoint({ name, secret: secrets[which] }),
    paid(orderId) {
      const event = platform.paidEvent({ orderId, amount: 1999 });
      const { id, delivery } = signed(event);
      const paymentRef = event.data[platform.paymentRefField] as string;
      return { delivery, expected: { eventId: id, paymentRef, ...paidExpectation(orderId) } };
    },
    tampered(orderId) {
      return tamperedWith(this.paid(orderId).delivery, '"total_amount":1999', '"total_amount":1');
    },
    poison: {
      build(v, n) {
        const event = platform.paidEvent({ orderId: v.merchantRef });
        // NOTE: the paid event's object (`order.`, `payment.`) with the chosen status word.
        const type = `${event.type.split('.')[0]}.${v.type}`;
        const data = {
          ...event.data,
          [platform.paymentRefField]: v.paymentRef,
          currency: v.currency,
          status: v.status,
        };
        const { id, delivery } = signed(
          { ...event, type, data },
          platform.eventId(`${n}_${v.headerId}`),
        );
        return {
          delivery,
          expected: [
            {
              eventId: id,
              nativeType: type,
              paymentRef: v.paymentRef,
              merchantRef: v.merchantRef,
              currency: currencyOf(v.currency),
              status: v.status,
            },
          ],
        };
      },
    },
    cli: {
      flags: ['--secret', secrets.right],
      payload: (orderId) => platform.paidEvent({ orderId, amount: 1999 }),
      expected: paidExpectation,
    },
  };
}
