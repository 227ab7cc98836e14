import { createHmac, randomUUID } from 'node:crypto';
import { hmacEndpoint } from 'nestjs-payment-webhooks';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'hmac-provider-kit-secret';

const signed = (body: string) =>
  jsonDelivery('hmac', body, {
    'x-signature': createHmac('sha256', SECRET).update(body).digest('hex'),
  });

/** An event of `orderId` in the paths the kit's endpoint reads. */
const event = (orderId: string, id = `evt_${randomUUID()}`) => ({
  id,
  type: 'payment.succeeded',
  data: { orderId },
  payment: { id: `pay_${orderId}`, currency: 'EUR', status: 'paid' },
});

/** A generic HMAC sender, signed with node:crypto. */
export const kit: ProviderKit = {
  kind: 'hmac',
  signedBy: 'node:crypto',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    hmacEndpoint({
      name,
      secret: secrets === 'right' ? SECRET : 'hmac-provider-kit-other',
      paymentRefPath: 'payment.id',
      currencyPath: 'payment.currency',
      statusPath: 'payment.status',
    }),
  paid(orderId) {
    const payload = event(orderId);
    return {
      delivery: signed(JSON.stringify(payload)),
      expected: {
        eventId: payload.id,
        type: 'payment.succeeded',
        paymentRef: payload.payment.id,
        merchantRef: orderId,
        currency: 'EUR',
      },
    };
  },
  tampered(orderId) {
    return tamperedWith(this.paid(orderId).delivery, orderId, `${orderId}x`);
  },
  poison: {
    build(v, n) {
      const eventId = `${n}_${v.id}`;
      const body = JSON.stringify({
        id: eventId,
        type: v.type,
        data: { orderId: v.merchantRef },
        payment: { id: v.paymentRef, currency: v.currency, status: v.status },
      });
      return {
        delivery: signed(body),
        expected: [
          {
            eventId,
            nativeType: v.type,
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
    payload: (orderId) => event(orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
