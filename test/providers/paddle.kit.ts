import { paddleEndpoint } from 'nestjs-payment-webhooks';
import { paddleFixtures, signPaddleDelivery } from 'nestjs-payment-webhooks/testing';
import { currencyOf, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'pdl_ntfset_01providerkit000000000000_providerKitSecret';
const OTHER = 'pdl_ntfset_01providerkit000000000000_providerKitOther0';

/**
 * Paddle Billing, with the package's `signPaddleDelivery` (its spec checks the header with
 * Paddle's SDK, `Webhooks.unmarshal`).
 */
export const kit: ProviderKit = {
  kind: 'paddle',
  signedBy: 'Paddle-Signature (checked by @paddle/paddle-node-sdk)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    paddleEndpoint({ name, secret: secrets === 'right' ? SECRET : OTHER }),
  paid(orderId) {
    const payload = paddleFixtures.transactionCompleted({ orderId, amount: 1999 });
    return {
      delivery: signPaddleDelivery({ secret: SECRET, payload }),
      expected: {
        eventId: payload.event_id,
        type: 'payment.succeeded',
        merchantRef: orderId,
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, orderId, `${orderId}x`);
  },
  poison: {
    build(v, n) {
      const event = paddleFixtures.transactionCompleted({ orderId: v.merchantRef, amount: 1999 });
      const eventId = `evt_${n}_${v.id}`;
      const payload = {
        ...event,
        event_id: eventId,
        event_type: `transaction.${v.type}`,
        data: { ...event.data, id: v.paymentRef, currency_code: v.currency, status: v.status },
      };
      return {
        delivery: signPaddleDelivery({ secret: SECRET, payload }),
        expected: [
          {
            eventId,
            nativeType: `transaction.${v.type}`,
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
    flags: ['--secret', SECRET],
    payload: (orderId) => paddleFixtures.transactionCompleted({ orderId }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
