import { randomUUID } from 'node:crypto';
import { polarEndpoint } from 'nestjs-payment-webhooks';
import { polarFixtures } from 'nestjs-payment-webhooks/testing';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

// NOTE: a secret in the form Polar generates since September 2026 (whsec_ + base64 of 32 bytes).
const SECRET = `whsec_${Buffer.alloc(32, 0x2a).toString('base64')}`;
const OTHER = `whsec_${Buffer.alloc(32, 0x3b).toString('base64')}`;

/** An order.paid event of `orderId`, signed as Polar signs it, by the `standardwebhooks` library. */
function signed(event: object, id: string = randomUUID()) {
  const body = JSON.stringify(event);
  return { id, delivery: jsonDelivery('polar', body, standardWebhooksHeaders(SECRET, id, body)) };
}

/** Polar, signed by the official `standardwebhooks` library (the one Polar's server signs with). */
export const kit: ProviderKit = {
  kind: 'polar',
  signedBy: 'standardwebhooks library',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    polarEndpoint({ name, secret: secrets === 'right' ? SECRET : OTHER }),
  paid(orderId) {
    const event = polarFixtures.orderPaid({ orderId, amount: 1999, currency: 'usd' });
    const { id, delivery } = signed(event);
    return {
      delivery,
      expected: {
        eventId: id,
        type: 'payment.succeeded',
        paymentRef: event.data.id as string,
        merchantRef: orderId,
        amount: 1999,
        currency: 'USD',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, '"total_amount":1999', '"total_amount":1');
  },
  poison: {
    build(v, n) {
      const event = polarFixtures.orderPaid({ orderId: v.merchantRef });
      const type = `order.${v.type}`;
      const payload = {
        ...event,
        type,
        data: { ...event.data, id: v.paymentRef, currency: v.currency, status: v.status },
      };
      const { id, delivery } = signed(payload, `${n}_${v.headerId}`);
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
    flags: ['--secret', SECRET],
    payload: (orderId) => polarFixtures.orderPaid({ orderId, amount: 1999 }),
    expected: (orderId) => ({
      type: 'payment.succeeded',
      merchantRef: orderId,
      amount: 1999,
      currency: 'USD',
    }),
  },
};
