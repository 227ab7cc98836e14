import { randomUUID } from 'node:crypto';
import { standardWebhooksEndpoint } from 'nestjs-payment-webhooks';
import { standardWebhooksHeaders } from '../support/standard-webhooks-delivery';
import { currencyOf, jsonDelivery, ProviderKit, tamperedWith } from './provider-kit';

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const OTHER = `whsec_${Buffer.from('provider-kit-other-secret').toString('base64')}`;

/** A payment message of `orderId` in the endpoint's default paths. */
const message = (orderId: string) => ({
  type: 'payment.succeeded',
  timestamp: new Date().toISOString(),
  data: { paymentId: `pay_${orderId}`, orderId, amount: 1999, currency: 'EUR', status: 'paid' },
});

/** Standard Webhooks, signed by the official `standardwebhooks` library. */
export const kit: ProviderKit = {
  kind: 'standard',
  signedBy: 'standardwebhooks library',
  answer: { status: 200, body: '' },
  endpoint: (name, secrets = 'right') =>
    standardWebhooksEndpoint({ name, secret: secrets === 'right' ? SECRET : OTHER }),
  paid(orderId) {
    const id = `msg_${randomUUID()}`;
    const body = JSON.stringify(message(orderId));
    return {
      delivery: jsonDelivery('standard-webhooks', body, standardWebhooksHeaders(SECRET, id, body)),
      expected: {
        eventId: id,
        type: 'payment.succeeded',
        paymentRef: `pay_${orderId}`,
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
      const eventId = `msg_${n}_${v.headerId}`;
      const body = JSON.stringify({
        type: v.type,
        timestamp: new Date().toISOString(),
        data: {
          paymentId: v.paymentRef,
          orderId: v.merchantRef,
          currency: v.currency,
          status: v.status,
          amount: 500,
        },
      });
      return {
        delivery: jsonDelivery(
          'standard-webhooks',
          body,
          standardWebhooksHeaders(SECRET, eventId, body),
        ),
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
    payload: (orderId) => message(orderId),
    expected: (orderId) => ({ type: 'payment.succeeded', merchantRef: orderId }),
  },
};
