import { squareEndpoint } from 'nestjs-payment-webhooks';
import { signSquareDelivery, squareFixtures } from 'nestjs-payment-webhooks/testing';
import { currencyOf, ProviderKit, tamperedWith } from './provider-kit';

const KEY = 'square-provider-kit-key';
const URL = 'https://shop.example.test/webhooks/square';

/**
 * Square, with the package's `signSquareDelivery` (its spec checks the header with Square's SDK,
 * `WebhooksHelper.verifySignature`).
 */
export const kit: ProviderKit = {
  kind: 'square',
  signedBy: 'x-square-hmacsha256-signature (checked by the square SDK)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    squareEndpoint({
      name,
      signatureKey: secrets === 'right' ? KEY : 'square-provider-kit-other',
      notificationUrl: URL,
    }),
  paid(orderId) {
    const payload = squareFixtures.paymentUpdated({ status: 'COMPLETED', orderId, amount: 1999 });
    return {
      delivery: signSquareDelivery({ signatureKey: KEY, notificationUrl: URL, payload }),
      expected: {
        eventId: payload.event_id,
        type: 'payment.succeeded',
        merchantRef: orderId,
        amount: 1999,
        currency: 'USD',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, orderId, `${orderId}x`);
  },
  poison: {
    build(v, n) {
      const event = squareFixtures.paymentUpdated({ orderId: v.merchantRef, amount: 1999 });
      const eventId = `${n}_${v.id}`;
      const payment = event.data.object.payment as Record<string, unknown>;
      const payload = {
        ...event,
        event_id: eventId,
        type: `payment.${v.type}`,
        data: {
          ...event.data,
          object: {
            payment: {
              ...payment,
              id: v.paymentRef,
              status: v.status,
              amount_money: { amount: 1999, currency: v.currency },
            },
          },
        },
      };
      return {
        delivery: signSquareDelivery({ signatureKey: KEY, notificationUrl: URL, payload }),
        expected: [
          {
            eventId,
            nativeType: `payment.${v.type}`,
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
    flags: ['--secret', KEY, '--notification-url', URL],
    payload: (orderId) => squareFixtures.paymentUpdated({ orderId, status: 'COMPLETED' }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
