import { createHmac } from 'node:crypto';
import { qvardEndpoint } from 'nestjs-payment-webhooks';
import { jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'qvard-provider-kit-secret';

/** Qvard's signature as documented: hex HMAC-SHA256 of the body. */
const signed = (body: string, secret = SECRET) =>
  jsonDelivery('qvard', body, {
    'x-qvard-signature': createHmac('sha256', secret).update(body).digest('hex'),
  });

/** Qvard, signed with node:crypto as its docs describe. */
export const kit: ProviderKit = {
  kind: 'qvard',
  signedBy: 'node:crypto (documented scheme)',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    qvardEndpoint({ name, secret: secrets === 'right' ? SECRET : 'qvard-provider-kit-other' }),
  paid(orderId) {
    return {
      delivery: signed(JSON.stringify({ id: orderId, status: 'completed' })),
      expected: {
        eventId: `${orderId}:completed`,
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
      const orderId = `${n}_${v.merchantRef}`;
      return {
        delivery: signed(JSON.stringify({ id: orderId, status: v.status })),
        expected: [
          {
            eventId: `${orderId}:${v.status}`,
            nativeType: v.status,
            merchantRef: orderId,
            status: v.status,
          },
        ],
      };
    },
  },
  cli: {
    flags: ['--secret', SECRET],
    payload: (orderId) => ({ id: orderId, status: 'completed' }),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
